"""What a run comes to: ``RunResult``, the run's status vocabulary (``RunStatus``) and the status
each way of ending (``Termination``) gives a run. Every list of statuses is derived here."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from .events import Termination

RunStatus = Literal[
    "running",  # driven now, or left by a driver that died (then closed as interrupted by a sweep)
    "finished",
    "failed",
    "cancelled",  # a person (or a batch's stop) ended it
    "interrupted",  # its driver stopped before it ended: it can be continued
    "abandoned",  # a person left a "me" run waiting past the idle timeout: its owner may continue it
]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
# a driver may take these up again (``vibesearch resume``, a batch's --resume, the app's Continue)
RESUMABLE: frozenset[RunStatus] = frozenset({"running", "interrupted", "abandoned"})
# a run no process drives in one of these may be ended as cancelled (the Runs tab's Stop)
STOPPABLE: frozenset[RunStatus] = RESUMABLE
# offered for continuing in the app (a "running" one too when no process drives it)
CONTINUABLE: frozenset[RunStatus] = frozenset({"interrupted", "abandoned"})

# termination -> the run's status
STATUS_OF: dict[Termination, RunStatus] = {
    "done": "finished",
    "answer": "finished",
    "max_user_turns": "finished",
    "budget": "finished",
    "max_rounds": "finished",
    "error_loop": "finished",  # the extraction still runs and is scored, as the official harness does
    "empty_response": "finished",
    "malformed_tool_call": "finished",
    "context_length": "finished",
    "no_response": "finished",  # scored on what it has (the official driver asks for no graph then)
    "error": "failed",
    "cancelled": "cancelled",
    "abandoned": "abandoned",  # the person left a "me" run waiting past the idle timeout
    "imported": "finished",  # an official trajectory read in (interop)
}
assert set(STATUS_OF) == set(get_args(Termination)), "every termination gives a status"
assert set(STATUS_OF.values()) <= set(RUN_STATUSES)


def as_status(value: str | None) -> RunStatus:
    """A status read from a run's row (anything not in the vocabulary reads as ``failed``)."""
    for status in RUN_STATUSES:
        if value == status:
            return status
    return "failed"


def status_after(termination: str | None, *, failed: bool = False) -> RunStatus:
    """The status a run ending with ``termination`` gets (``failed``: a fatal error was recorded)."""
    if failed:
        return "failed"
    for known, status in STATUS_OF.items():
        if termination == known:
            return status
    return "failed"


@dataclass
class RunResult:
    run_id: str
    status: RunStatus | Literal["skipped"]  # skipped: a batch left the run to the process that drives it
    termination: str | None
    stages_reached: int
    stages_total: int
    user_turns: int
    assistant_steps: int
    tool_calls: int
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PartFailed(Exception):
    """A part of the run (``source``: "agent", "user", "extraction" ...) raised ``cause``.

    The session wraps what a part raises in this, so the fatal error it records names the part."""

    def __init__(self, source: str, cause: BaseException):
        super().__init__(f"{source}: {type(cause).__name__}: {cause}")
        self.source = source
        self.cause = cause
