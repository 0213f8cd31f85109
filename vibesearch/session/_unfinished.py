"""Resuming a run cut inside a group of events (written before such groups were stored together),
or with an agent that cannot continue a turn itself (no ``resumes_open_turn``).

``owed_message``: a stage decision was stored without the user's message; ``answer_unanswered``:
tool calls were stored without results. ``self`` is the ``loop.Session``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..llm import scrub
from ..store.events import MessageEvent, ToolResultEvent
from ._restore import Position


async def owed_message(self: Any, position: Position) -> None:
    """A stage decision was stored but not its message: ask the user again for the words."""
    stored = position.dangling
    assert stored is not None
    state = self.user_state()
    state.stage_index = position.pointer_before
    turn = await self._call("user", self.user.next_turn(self.convo, state))
    message = turn.message
    if stored.advanced and not turn.stage_advanced:
        message = self.task.persona.stages[stored.stage_index].line
    elif turn.stage_advanced and not stored.advanced:  # the stored decision holds: no disclosure
        from ..users._stages import push_message

        nxt = position.pointer_before + 1
        fallback = self.task.persona.stages[nxt].fallback if nxt < self.task.stage_count() else None
        message = push_message(self.task, fallback, state.user_turns)
    self.rec.emit(MessageEvent(role="user", content=message))

async def answer_unanswered(self: Any, position: Position) -> None:
    """Tool calls cut off by the interruption: run them again if the agent's toolbox is at hand."""
    toolbox = getattr(self.agent, "toolbox", None)
    for call in position.unanswered:
        if toolbox is not None and hasattr(toolbox, "call"):
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            try:
                out = await toolbox.call(call.tool, call.arguments)
            except Exception as exc:  # noqa: BLE001 - toolboxes should not raise, but never trust it
                from ..tools.base import ToolOutput

                out = ToolOutput(content=scrub(f"Error: {type(exc).__name__}: {exc}")[:2000], error=True)
            self.rec.emit(
                ToolResultEvent(
                    call_id=call.call_id,
                    tool=call.tool,
                    content=out.content,
                    error=out.error,
                    truncated_chars=out.truncated_chars,
                    elapsed_s=round(loop.time() - t0, 4),
                )
            )
        else:
            self.rec.emit(
                ToolResultEvent(call_id=call.call_id, tool=call.tool, content="Error: the tool call was interrupted and did not return.", error=True)
            )
