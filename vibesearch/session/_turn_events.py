"""The events one user turn is stored as: its stage decision (the session's pointer moved by at
most one stage, ``run.stages.stage_step``), the shadow simulator's decision on the same state when
a person plays beside one, then the user's message — or, under the official profile, a note that
the simulator said ``[DONE]`` (the agent never sees it and it is not a user turn)."""

from __future__ import annotations

from ..run import UserTurn
from ..run.events import DecidedBy, EventData, MessageEvent, NoteEvent, StageEvent
from ..run.stages import stage_step
from ..tasks.models import Task


def turn_events(task: Task, before: int, turn: UserTurn, *, official: bool) -> list[EventData]:
    """What to emit for ``turn``, taken with the stage pointer at ``before``."""
    out: list[EventData] = [_decision(task, before, turn, turn.decided_by, turn.rationale)]
    shadow = turn.shadow
    if shadow is not None:  # the shadow judged the same state: the same rule, the same pointer
        said = f" (would have said: {shadow.message[:500]})" if shadow.message else ""
        out.append(_decision(task, before, shadow, "shadow", ((shadow.rationale or "") + said).strip() or None))
    if official and turn.reply_kind == "done":
        out.append(NoteEvent(text="the simulator said [DONE]: the conversation ends", data={"done": turn.message}))
    else:
        out.append(MessageEvent(role="user", content=turn.message))
    return out


def _decision(task: Task, before: int, turn: UserTurn, decided_by: DecidedBy, rationale: str | None) -> StageEvent:
    stages = task.persona.stages
    step = stage_step(before, len(stages), turn.reply_kind, turn.stage_advanced)
    return StageEvent(
        stage_index=step.stage_index, stage_name=stages[step.stage_index].name, advanced=step.advanced,
        reply_kind=step.reply_kind, trigger_met=turn.trigger_met, decided_by=decided_by, rationale=rationale,
        shadow=decided_by == "shadow",
    )
