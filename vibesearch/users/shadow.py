"""A person with a simulator in the shadow.

``ShadowUser`` passes the person's turn through unchanged and, on the same conversation and state,
asks a simulator what it would have decided (concurrently with waiting for the person). The turn
it returns carries the simulator's opinion in ``.shadow``; the session stores it as a second stage
event (``shadow=True``, ``decided_by="shadow"``) right after the person's. ``shadow_agreement``
then measures how often the simulator's trigger judgement matches the person's.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterable

from ..config import Settings
from ..run.config import RunConfig
from ..run.conversation import Conversation
from ..run.events import ErrorEvent, EventData, StageEvent, StoredEvent
from ..run.protocols import User, UserState, UserTurn
from ..tasks.models import Task
from .human import HumanUser
from .registry import RULES_SHADOW, UserKindInfo, register_user_kind
from .rules import RuleUser
from .simulator import SimulatorUser


class ShadowUser:
    kind = "human"
    model: str | None = None

    def __init__(self, human: HumanUser, simulator: User):
        self.human = human
        self.simulator = simulator
        self.task = human.task
        self.shadow_model = simulator.model or simulator.kind

    async def opening(self, state: UserState) -> UserTurn:
        return await self.human.opening(state)

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        # the simulator judges the very state the person sees (a copy: the person's turn may move it)
        shadow_task = asyncio.ensure_future(self.simulator.next_turn(convo, state.copy()))
        try:
            turn = await self.human.next_turn(convo, state)
        except BaseException:
            shadow_task.cancel()
            raise
        try:
            turn.shadow = await shadow_task
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the shadow is an opinion; its failure never ends the run
            if state.emit is not None:
                from ..llm import scrub

                state.emit(ErrorEvent(source="shadow", message=scrub(f"{type(exc).__name__}: {exc}")[:1000]))
            turn.shadow = None
        return turn

    # the UI talks to the person
    async def submit(self, turn: UserTurn) -> None:
        await self.human.submit(turn)

    def submit_nowait(self, turn: UserTurn) -> None:
        self.human.submit_nowait(turn)

    def leave(self) -> None:
        self.human.leave()

    def pending_state(self) -> dict[str, Any] | None:
        return self.human.pending_state()

    async def wait_pending(self) -> dict[str, Any]:
        return await self.human.wait_pending()

    @property
    def waiting(self) -> bool:
        return self.human.waiting


def shadow_agreement(events: Iterable[StoredEvent | EventData]) -> dict[str, Any]:
    """Agreement of the shadow's advance decisions with the primary (person's) ones, per turn.

    A turn counts when a primary stage event (not the opening) is directly followed by a shadow
    one; they agree when both advanced or both did not. ``rate`` is None when no turn counts.
    """
    data = [e.data if isinstance(e, StoredEvent) else e for e in events]
    stages = [s for s in data if isinstance(s, StageEvent)]
    n = agree = 0
    for prev, cur in zip(stages, stages[1:]):
        if not prev.shadow and prev.reply_kind != "open" and cur.shadow:
            n += 1
            agree += int(bool(prev.advanced) == bool(cur.advanced))
    return {"n": n, "agree": agree, "rate": (agree / n) if n else None}


def build_human(config: RunConfig, task: Task, settings: Settings) -> User:
    """A person; with ``config.user.shadow`` a simulator in the shadow beside them: a model string
    for the LLM simulator, or ``"rules"`` for the rule-based one."""
    spec = config.user
    human = HumanUser(task)
    if not spec.shadow:
        return human
    shadow: User = (
        RuleUser(task) if spec.shadow == RULES_SHADOW else SimulatorUser(task, settings, model=spec.shadow, sampling=spec.sampling)
    )
    return ShadowUser(human, shadow)


register_user_kind(UserKindInfo(
    name="human", label="Me — I play the persona", help="", factory=build_human, person=True, in_batches=False, simulated=False,
))
