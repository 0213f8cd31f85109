"""What a run comes to: ``RunResult``, and the status each way of ending gives a run."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# termination -> the run's status
STATUS_OF = {
    "done": "finished",
    "answer": "finished",
    "max_user_turns": "finished",
    "budget": "finished",
    "max_rounds": "finished",
    "error_loop": "finished",  # the extraction still runs and is scored, as the official harness does
    "context_length": "finished",
    "error": "failed",
    "cancelled": "cancelled",
    "abandoned": "abandoned",  # the person left a "me" run waiting past the idle timeout
}


@dataclass
class RunResult:
    run_id: str
    status: str
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
