"""The events one user turn is stored as: its stage decision (the session's pointer moved by at
most one stage, ``run.stages.stage_step``), the shadow simulator's decision on the same state when
a person plays beside one, then the user's message — or, when the user is done, what the run's
profile stores for that (``Profile.done_events``: under the official profile a note, never shown
to the agent and not a user turn)."""

from __future__ import annotations

from ..protocol import Profile
from ..run import UserTurn
from ..run.events import EventData, MessageEvent
from ..run.stages import decision_event
from ..tasks.models import Task


def turn_events(task: Task, before: int, turn: UserTurn, profile: Profile) -> list[EventData]:
    """What to emit for ``turn``, taken with the stage pointer at ``before``."""
    out: list[EventData] = [decision_event(task, before, turn, turn.decided_by, turn.rationale)]
    shadow = turn.shadow
    if shadow is not None:  # the shadow judged the same state: the same rule, the same pointer
        said = f" (would have said: {shadow.message[:500]})" if shadow.message else ""
        out.append(decision_event(task, before, shadow, "shadow", ((shadow.rationale or "") + said).strip() or None))
    if turn.reply_kind == "done":
        out += profile.done_events(turn.message)
    else:
        out.append(MessageEvent(role="user", content=turn.message))
    return out
