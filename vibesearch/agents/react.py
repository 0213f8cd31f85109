"""The ReAct agent: an LLM with native function calling over the run's toolbox (SPEC 4.1).

Each user turn is a sequence of steps; a step is one LLM call. A step that calls tools is
recorded as an assistant ``message`` (with ``n_tool_calls``), one ``tool_call`` per call and one
``tool_result`` per call; the tools of a step run concurrently. The first step without tool
calls is the reply to the user (``final=True``). After ``settings.max_steps_per_turn`` tool steps
the agent is made to reply with one more call that offers no tools.

The working context is always rebuilt from the ``Conversation`` (system prompt +
``convo.agent_messages()``), which the session updates with every event the agent emits; so a
resumed run and a live run see the same context. Before each call the context is measured and
compacted when it is too large (``compaction.Compactor``). An ``LLMError`` (after the client's
retries) propagates: the session records it as a fatal error.

A resumed run may hand over a turn with some steps stored already: the agent runs only the tool
calls whose result is missing, counts the stored steps against its step budget and goes on; an
extraction whose instruction is stored goes on from it.
"""

from __future__ import annotations

import asyncio
import time
from datetime import date
from typing import Any

from ..config import Settings
from ..llm import ToolCall, complete
from ..store.conversation import Conversation
from ..store.events import Emit, MessageEvent, NoteEvent, ToolCallEvent, ToolResultEvent
from ..tasks.models import Task
from ..tools.base import Toolbox, ToolOutput
from ._context import ends_with_question, missing_results, open_turn_steps, plain_messages, tracking_emit
from .base import AgentReply, GraphResult
from .compaction import Compactor
from .extraction import extraction_instruction, parse_triples, pending_instruction, record_graph_answer
from .prompts import FORCED_REPLY_NOTE, system_prompt


class ReactAgent:
    """A tool-using LLM agent (any litellm model string)."""

    def __init__(
        self,
        task: Task,
        settings: Settings,
        *,
        model: str,
        toolbox: Toolbox,
        today: date | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
    ):
        self.task = task
        self.settings = settings
        self.model = model
        self.toolbox = toolbox
        self.api_base = api_base
        self._api_key = api_key
        self.system = system_prompt(today)
        self.compactor = Compactor(model=model, settings=settings, system_prompt=self.system)
        self.name = f"react:{model}"
        self.description = (
            f"ReAct agent on {model}: native function calling over the tools search, visit, "
            "scholar_search and python, with context compaction"
        )

    resumes_open_turn = True

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        stored = open_turn_steps(convo)  # steps of this turn stored before an interruption
        emit = tracking_emit(convo, emit)
        self._bind_tool_emit(emit)
        schemas = self.toolbox.schemas()
        known = {s.get("function", {}).get("name") for s in schemas}
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await self._run_calls(emit, [ToolCall(id=c.call_id, name=c.tool, arguments=c.arguments, raw_arguments=c.raw_arguments) for c in owed], known)
        limit_noted = bool(stored) and any(n.data.get("max_steps_per_turn") for n in convo.turns[-1].notes)
        for _ in range(max(1, self.settings.max_steps_per_turn) - len(stored)):
            messages = await self._context(convo, emit, schemas)
            result = await self._call(messages, emit, tools=schemas, purpose="agent")
            if not result.tool_calls:
                return self._reply(emit, result.content, result.thinking)
            calls = _unique_ids(result.tool_calls)
            emit(
                MessageEvent(
                    role="assistant", content=result.content, thinking=result.thinking, n_tool_calls=len(calls)
                )
            )
            for call in calls:
                emit(
                    ToolCallEvent(
                        call_id=call.id, tool=call.name, arguments=call.arguments, raw_arguments=call.raw_arguments
                    )
                )
            await self._run_calls(emit, calls, known)

        # the step budget is spent: one more call, without tools, for the reply
        if not limit_noted:
            emit(
                NoteEvent(
                    text=f"step limit of {self.settings.max_steps_per_turn} reached; asking the agent to reply without tools",
                    data={"max_steps_per_turn": self.settings.max_steps_per_turn},
                )
            )

        def forced(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(self._messages(c)) + [{"role": "user", "content": FORCED_REPLY_NOTE}]

        await self.compactor.ensure_room(convo, emit, forced)
        result = await self._call(forced(convo), emit, tools=None, purpose="agent")
        return self._reply(emit, result.content, result.thinking)

    # ------------------------------------------------------------------ extraction
    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        emit = tracking_emit(convo, emit)
        instruction = extraction_instruction(self.task.language)

        def with_instruction(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(self._messages(c) + [{"role": "user", "content": instruction}])

        if pending_instruction(convo) is None:  # a resumed run may have asked already
            # compaction (if needed) comes before the instruction so the summary never swallows it
            await self.compactor.ensure_room(convo, emit, with_instruction)
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        messages = plain_messages(self._messages(convo))
        result = await self._call(messages, emit, tools=None, purpose="extraction")
        return record_graph_answer(emit, result.content, result.thinking)

    # ------------------------------------------------------------------ internals
    def _messages(self, convo: Conversation) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, *convo.agent_messages()]

    async def _context(self, convo: Conversation, emit: Emit, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await self.compactor.ensure_room(convo, emit, self._messages, tools)
        return self._messages(convo)

    async def _call(self, messages: list[dict[str, Any]], emit: Emit, *, tools: list[dict[str, Any]] | None, purpose: str):
        return await complete(
            messages,
            model=self.model,
            purpose=purpose,
            emit=emit,
            tools=tools or None,
            settings=self.settings,
            api_base=self.api_base,
            api_key=self._api_key,
        )

    def _reply(self, emit: Emit, content: str, thinking: str | None) -> AgentReply:
        emit(MessageEvent(role="assistant", content=content, thinking=thinking, final=True))
        return AgentReply(text=content, final=self.reply_is_final(content))

    def reply_is_final(self, text: str) -> bool:
        """A reply is a final answer unless it is empty or ends by asking the user something."""
        return bool(text.strip()) and not ends_with_question(text)

    async def _run_calls(self, emit: Emit, calls: list[ToolCall], known: set[str | None]) -> None:
        tasks = [asyncio.create_task(self._run_tool(call, known)) for call in calls]
        try:
            for task in tasks:  # run concurrently, recorded in call order
                emit(await task)
        finally:  # a cancelled run leaves no tool running behind it
            for task in tasks:
                if not task.done():
                    task.cancel()

    async def _run_tool(self, call: ToolCall, known: set[str | None]) -> ToolResultEvent:
        start = time.perf_counter()
        if call.name not in known:
            names = ", ".join(sorted(n for n in known if n))
            out = ToolOutput(content=f"Error: there is no tool named {call.name!r}. Available tools: {names}.", error=True)
        elif call.raw_arguments is not None:
            out = ToolOutput(
                content=(
                    f"Error: the arguments of this {call.name} call are not valid JSON "
                    f"({call.raw_arguments[:300]!r}). Call it again with a JSON object."
                ),
                error=True,
            )
        else:
            try:
                out = await self.toolbox.call(call.name, call.arguments)
            except Exception as exc:  # noqa: BLE001 - a toolbox must not raise, but never crash the run
                out = ToolOutput(content=f"Error: {call.name} failed: {type(exc).__name__}: {exc}", error=True)
        return ToolResultEvent(
            call_id=call.id,
            tool=call.name,
            content=out.content,
            error=out.error,
            truncated_chars=out.truncated_chars,
            elapsed_s=round(time.perf_counter() - start, 4),
        )

    def _bind_tool_emit(self, emit: Emit) -> None:
        """Let a toolbox that records its own events (e.g. visit summaries) use this run's emit."""
        setter = getattr(self.toolbox, "set_emit", None)
        if callable(setter):
            setter(emit)
            return
        backend = getattr(self.toolbox, "backend", None)
        if backend is not None and hasattr(backend, "emit"):
            backend.emit = emit


def _unique_ids(calls: list[ToolCall]) -> list[ToolCall]:
    """Tool call ids must be unique within a step (some providers repeat or omit them)."""
    seen: set[str] = set()
    for i, call in enumerate(calls):
        if not call.id or call.id in seen:
            call.id = f"{call.id or 'call'}_{i}"
        seen.add(call.id)
    return calls


__all__ = ["ReactAgent", "parse_triples"]
