"""The parts a tool-using agent's turn is made of, shared by the react agent (``react.py``) and the
official agent (``official.py``): one model call, recording a step that called tools, running
those calls, and recording the reply to the user.

    kit = StepKit(model="openai/gpt-4o", toolbox=toolbox, settings=settings, sampling=sampling)
    schemas, known = kit.offered()
    result = await kit.call(messages, emit, tools=schemas, purpose="agent")
    if result.tool_calls:
        await kit.run_calls(emit, kit.record_step(emit, result), known)
    else:
        reply = kit.reply(emit, result.content, result.thinking)

Each agent decides its own loop (how many steps, when to compact, what a failure does); the kit
only does what both do the same way.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..llm import LLMResult, ToolCall, complete
from ..run import AgentReply, Emit, MessageEvent, Sampling, Toolbox, ToolCallEvent
from ..run.events import Phase
from ..run.tools import execute_tool_call, tool_names
from ._context import ends_with_question


def is_final_answer(text: str) -> bool:
    """A reply is a final answer unless it is empty or ends by asking the user something."""
    return bool(text.strip()) and not ends_with_question(text)


@dataclass
class StepKit:
    """One agent's model, tools and sampling, and the steps it records with them. ``settings``
    gives the process facts of a model call (retries, timeouts); the run's behaviour comes from
    the run's config through the agent that holds the kit."""

    model: str
    toolbox: Toolbox
    settings: Settings
    sampling: Sampling = field(default_factory=Sampling)
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    _tools: tuple[Toolbox, list[dict[str, Any]], set[str]] | None = field(default=None, init=False, repr=False)

    def offered(self) -> tuple[list[dict[str, Any]], set[str]]:
        """The toolbox's schemas and tool names, asked once per toolbox (not again every turn)."""
        if self._tools is None or self._tools[0] is not self.toolbox:
            self._tools = (self.toolbox, self.toolbox.schemas(), tool_names(self.toolbox))
        return self._tools[1], self._tools[2]

    async def call(
        self, messages: list[dict[str, Any]], emit: Emit, *, tools: list[dict[str, Any]] | None, purpose: str, **options: Any
    ) -> LLMResult:
        """One model call of the agent (``purpose``: "agent", "extraction" ...), its usage emitted.
        ``options``: more of ``complete``'s parameters (``retries``, ``extra_body`` ...)."""
        return await complete(
            messages,
            model=self.model,
            purpose=purpose,
            emit=emit,
            tools=tools or None,
            settings=self.settings,
            api_base=self.api_base,
            api_key=self.api_key,
            sampling=self.sampling.params(),
            **options,
        )

    def record_step(
        self, emit: Emit, result: LLMResult, *, phase: Phase = "dialogue", calls: list[ToolCall] | None = None, content: str | None = None
    ) -> list[ToolCallEvent]:
        """Record a step that called tools (the message, then each call); return the calls.
        ``calls`` / ``content``: what the step is recorded with instead of the result's own (tool
        calls an agent read out of the text)."""
        events = [
            ToolCallEvent(call_id=c.id, tool=c.name, arguments=c.arguments, raw_arguments=c.raw_arguments)
            for c in unique_ids(calls if calls is not None else result.tool_calls)
        ]
        text = result.content if content is None else content
        emit(MessageEvent(role="assistant", content=text, thinking=result.thinking, n_tool_calls=len(events), phase=phase))
        for call in events:
            emit(call)
        return events

    async def run_calls(self, emit: Emit, calls: list[ToolCallEvent], known: set[str] | None) -> None:
        """Run a step's tool calls concurrently, their results recorded in call order (``known``:
        the tool names; a call of another is answered without the toolbox; None: the toolbox
        answers every call itself)."""
        tasks = [asyncio.create_task(execute_tool_call(self.toolbox, call, emit, known=known)) for call in calls]
        try:
            for task in tasks:
                emit(await task)
        finally:  # a cancelled run leaves no tool running behind it
            for task in tasks:
                if not task.done():
                    task.cancel()

    @staticmethod
    def reply(emit: Emit, content: str, thinking: str | None) -> AgentReply:
        """Record the step that replies to the user."""
        emit(MessageEvent(role="assistant", content=content, thinking=thinking, final=True))
        return AgentReply(text=content, final=is_final_answer(content))


def unique_ids(calls: list[ToolCall]) -> list[ToolCall]:
    """Tool call ids must be unique within a step (some providers repeat or omit them)."""
    seen: set[str] = set()
    for i, call in enumerate(calls):
        if not call.id or call.id in seen:
            call.id = f"{call.id or 'call'}_{i}"
        seen.add(call.id)
    return calls
