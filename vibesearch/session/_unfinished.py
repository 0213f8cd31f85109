"""Resuming a run cut inside a group of events (written before such groups were stored together),
or with an agent that cannot continue a turn itself (no ``resumes_open_turn``).

``owed_message``: a stage decision was stored without the user's message; ``answer_unanswered``:
tool calls were stored without results.
"""

from __future__ import annotations

from ..run import Emit, Toolbox, ToolCallEvent, UserState, UserTurn
from ..run.tools import execute_tool_call
from ..tasks.models import Task
from ..users import push_message
from ._restore import Position


def owed_message(task: Task, position: Position, state: UserState, turn: UserTurn) -> str:
    """The words of a stage decision stored without its message, from the ``turn`` the user took
    again in the ``state`` before that decision: the stored decision holds."""
    stored = position.dangling
    assert stored is not None
    if stored.advanced and not turn.stage_advanced:
        return task.persona.stages[stored.stage_index].line
    if turn.stage_advanced and not stored.advanced:  # no disclosure after all: a push
        nxt = position.pointer_before + 1
        fallback = task.persona.stages[nxt].fallback if nxt < task.stage_count() else None
        return push_message(task, fallback, state.user_turns)
    return turn.message


async def answer_unanswered(toolbox: Toolbox | None, calls: list[ToolCallEvent], emit: Emit) -> None:
    """Tool calls cut off by the interruption: run them again if the agent's toolbox is at hand
    (without one, each gets an error result saying it was interrupted)."""
    for call in calls:
        emit(await execute_tool_call(toolbox, call, emit))
