"""The stage pointer rule, in one place: a user's turn advances the pointer by at most one stage.

Every user (simulator, paper simulator, rules, a person, a script) and the session itself apply
``stage_step``; none of them moves the pointer any other way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .events import DecidedBy, ReplyKind, StageEvent

if TYPE_CHECKING:
    from ..tasks.models import Task
    from .protocols import UserTurn


@dataclass(frozen=True)
class StageStep:
    reply_kind: ReplyKind  # the turn's kind as recorded
    advanced: bool  # did the pointer move (by exactly one)?
    stage_index: int  # the pointer after the turn


def stage_step(pointer: int, stages_total: int, reply_kind: ReplyKind, advance: bool) -> StageStep:
    """Where a turn that claims ``reply_kind`` (and wants to ``advance``) leaves a pointer at ``pointer``.

    The pointer moves to the next stage only when the turn asks for it and a next stage exists;
    a disclosure that cannot move it, and an ``open`` after the opening, are recorded as a push.
    """
    nxt = pointer + 1 if pointer + 1 < stages_total else None
    advanced = advance and nxt is not None
    kind: ReplyKind = reply_kind
    if kind == "open" or (kind == "disclose" and not advanced):
        kind = "push"
    return StageStep(kind, advanced, nxt if advanced and nxt is not None else pointer)


def decision_event(task: "Task", before: int, turn: "UserTurn", decided_by: DecidedBy, rationale: str | None) -> StageEvent:
    """The ``stage`` event recording ``turn`` taken with the pointer at ``before`` (``stage_step`` applied)."""
    stages = task.persona.stages
    step = stage_step(before, len(stages), turn.reply_kind, turn.stage_advanced)
    return StageEvent(
        stage_index=step.stage_index, stage_name=stages[step.stage_index].name, advanced=step.advanced,
        reply_kind=step.reply_kind, trigger_met=turn.trigger_met, decided_by=decided_by, rationale=rationale,
        shadow=decided_by == "shadow",
    )
