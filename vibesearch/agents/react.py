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
from datetime import date
from typing import Any

from ..config import Settings
from ..llm import LLMResult, ToolCall, complete
from ..run import AgentReply, Conversation, Emit, GraphResult, MessageEvent, NoteEvent, Sampling, Toolbox, ToolCallEvent
from ..protocol import ProfileLimits, PromptSet, own_prompts
from ..run.tools import execute_tool_call, tool_names
from ..tasks.models import Task
from ._context import ends_with_question, missing_results, open_turn_steps, plain_messages, tracking_emit
from ._official import OfficialTurns
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
        sampling: Sampling | None = None,
        profile: ProfileLimits | None = None,
        prompts: PromptSet | None = None,
    ):
        self.task = task
        self.settings = settings
        self.model = model
        self.toolbox: Toolbox = toolbox
        self._tools: tuple[Toolbox, list[dict[str, Any]], set[str]] | None = None  # ``_offered``
        self.sampling = sampling or Sampling()
        self.api_base = api_base
        self._api_key = api_key
        # the official profile (``profile.protocol == "official"``) runs the official agent loop
        # (``_official.OfficialTurns``) with ``prompts``; None: our profile, from the settings
        self.official = OfficialTurns(self, profile, prompts or own_prompts()) if profile is not None and profile.protocol == "official" else None
        self.system = self.official.system_prompt() if self.official is not None else system_prompt(today)
        self.compactor = Compactor(
            model=model,
            settings=settings,
            system_prompt=self.system,
            sampling=self.sampling.params() if self.official is not None else None,
            official=self.official.prompts.compaction if self.official is not None else None,
            summary_view=self.official.summary_messages if self.official is not None else None,
        )
        self.name = f"react:{model}"
        self.description = (
            f"ReAct agent on {model}: native function calling over the tools search, visit, "
            "scholar_search and python, with context compaction"
        )

    kind = "react"
    resumes_open_turn = True

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        if self.official is not None:
            return await self.official.respond(convo, emit)
        stored = open_turn_steps(convo)  # steps of this turn stored before an interruption
        emit = tracking_emit(convo, emit)
        schemas, known = self._offered()
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await self._run_calls(emit, owed, known)
        limit_noted = bool(stored) and any(n.data.get("max_steps_per_turn") for n in convo.turns[-1].notes)
        for _ in range(max(1, self.settings.max_steps_per_turn) - len(stored)):
            messages = await self._context(convo, emit, schemas)
            result = await self._call(messages, emit, tools=schemas, purpose="agent")
            if not result.tool_calls:
                return self._reply(emit, result.content, result.thinking)
            calls = self._record_step(emit, result)
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
        if self.official is not None:
            return await self.official.extract_graph(convo, emit)
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
    def _offered(self) -> tuple[list[dict[str, Any]], set[str]]:
        """The toolbox's schemas and tool names, asked once per toolbox (not again every turn)."""
        if self._tools is None or self._tools[0] is not self.toolbox:
            self._tools = (self.toolbox, self.toolbox.schemas(), tool_names(self.toolbox))
        return self._tools[1], self._tools[2]

    def _messages(self, convo: Conversation) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, *convo.agent_messages(self.compactor.summary_view)]

    async def _context(self, convo: Conversation, emit: Emit, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        built: list[list[dict[str, Any]]] = []

        def build(c: Conversation) -> list[dict[str, Any]]:
            messages = self._messages(c)
            if c is convo:
                built.append(messages)
            return messages

        # the context measured is the context sent, unless a compaction changed the conversation
        if await self.compactor.ensure_room(convo, emit, build, tools) is None and built:
            return built[-1]
        return self._messages(convo)

    async def _call(self, messages: list[dict[str, Any]], emit: Emit, *, tools: list[dict[str, Any]] | None, purpose: str) -> LLMResult:
        return await complete(
            messages,
            model=self.model,
            purpose=purpose,
            emit=emit,
            tools=tools or None,
            settings=self.settings,
            api_base=self.api_base,
            api_key=self._api_key,
            sampling=self.sampling.params(),
        )

    def _reply(self, emit: Emit, content: str, thinking: str | None) -> AgentReply:
        emit(MessageEvent(role="assistant", content=content, thinking=thinking, final=True))
        return AgentReply(text=content, final=self.reply_is_final(content))

    def reply_is_final(self, text: str) -> bool:
        """A reply is a final answer unless it is empty or ends by asking the user something."""
        return bool(text.strip()) and not ends_with_question(text)

    def _record_step(self, emit: Emit, result: LLMResult) -> list[ToolCallEvent]:
        """Record a step that called tools (the message, then each call); return the calls."""
        calls = [
            ToolCallEvent(call_id=c.id, tool=c.name, arguments=c.arguments, raw_arguments=c.raw_arguments)
            for c in _unique_ids(result.tool_calls)
        ]
        emit(MessageEvent(role="assistant", content=result.content, thinking=result.thinking, n_tool_calls=len(calls)))
        for call in calls:
            emit(call)
        return calls

    async def _run_calls(self, emit: Emit, calls: list[ToolCallEvent], known: set[str]) -> None:
        tasks = [asyncio.create_task(execute_tool_call(self.toolbox, call, emit, known=known)) for call in calls]
        try:
            for task in tasks:  # run concurrently, recorded in call order
                emit(await task)
        finally:  # a cancelled run leaves no tool running behind it
            for task in tasks:
                if not task.done():
                    task.cancel()


def _unique_ids(calls: list[ToolCall]) -> list[ToolCall]:
    """Tool call ids must be unique within a step (some providers repeat or omit them)."""
    seen: set[str] = set()
    for i, call in enumerate(calls):
        if not call.id or call.id in seen:
            call.id = f"{call.id or 'call'}_{i}"
        seen.add(call.id)
    return calls


__all__ = ["ReactAgent", "parse_triples"]
