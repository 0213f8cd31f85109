"""The react agent's turns under the official profile (``agent/general_agent.py`` of the official
harness, rule by rule; docs/protocol.md rows 11-18).

* No step limit per turn: the agent calls tools until it replies or the trajectory's budget of
  model calls (agent calls plus compactions, ``ProfileLimits.max_llm_calls``) is spent. A turn cut
  by the budget ends without a reply; the session then ends the conversation (``max_rounds``).
* Compaction when the prompt size the provider reported for the latest call is above the official
  threshold (229,376), and when a call is refused with a 400 (a context too long) or times out.
  Each compaction is one call of the budget.
* The system prompt and the extraction request come from the ``PromptSet`` (the user's checkout
  of the official harness, or our own), in the task's language.
* Before the extraction request, one more compaction when the latest prompt was above 0.85 x the
  threshold; none during extraction. An empty extraction answer is asked again, up to
  ``EXTRACTION_MIN_CALLS`` calls (the official extraction loop always gets at least that many).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..llm import LLMError, LLMResult
from ..protocol import ProfileLimits, PromptSet
from ..protocol.profile import last_prompt_tokens, llm_calls_used
from ..protocol.rules import EXTRACTION_MIN_CALLS, OFFICIAL_COMPACTION_TOKENS, PRE_EXTRACTION_COMPACT_FRACTION
from ..run import AgentReply, Conversation, Emit, GraphResult, MessageEvent, NoteEvent, Toolbox, ToolCallEvent
from ..run.tools import tool_names
from ..tasks.models import Task
from ._context import missing_results, open_turn_steps, plain_messages, tracking_emit
from .compaction import Compactor
from .extraction import pending_instruction, record_graph_answer


class ToolAgent(Protocol):
    """What the official loop uses of the agent it runs for (``react.ReactAgent``)."""

    task: Task
    toolbox: Toolbox
    compactor: Compactor

    def _messages(self, convo: Conversation) -> list[dict[str, Any]]: ...

    async def _call(self, messages: list[dict[str, Any]], emit: Emit, *, tools: list[dict[str, Any]] | None, purpose: str) -> LLMResult: ...

    def _reply(self, emit: Emit, content: str, thinking: str | None) -> AgentReply: ...

    def _record_step(self, emit: Emit, result: LLMResult) -> list[ToolCallEvent]: ...

    async def _run_calls(self, emit: Emit, calls: list[ToolCallEvent], known: set[str]) -> None: ...


class OfficialTurns:
    """The official agent loop, run with a ``ReactAgent``'s model, tools and records."""

    def __init__(self, agent: ToolAgent, limits: ProfileLimits, prompts: PromptSet):
        self.agent = agent
        self.limits = limits
        self.prompts = prompts

    def system_prompt(self) -> str:
        return self.prompts.agent_system_prompt(self.agent.task.language)

    @property
    def threshold(self) -> int:
        return self.limits.compaction_tokens if self.limits.compaction_tokens is not None else OFFICIAL_COMPACTION_TOKENS

    def calls_left(self, convo: Conversation) -> bool:
        left = self.limits.llm_calls_left(llm_calls_used(convo))
        return left is None or left > 0

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        agent = self.agent
        stored = open_turn_steps(convo)
        emit = tracking_emit(convo, emit)
        schemas = agent.toolbox.schemas()
        known = tool_names(agent.toolbox)
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await agent._run_calls(emit, owed, known)
        while self.calls_left(convo):
            before = last_prompt_tokens(convo)
            if self.limits.should_compact(before, self.threshold):
                await agent.compactor.compact(convo, emit, agent._messages, schemas, before=before, threshold=self.threshold)
                continue
            try:
                result = await agent._call(agent._messages(convo), emit, tools=schemas, purpose="agent")
            except LLMError as exc:
                if not (self.limits.compact_on_context_overflow and (exc.bad_request or exc.timed_out)):
                    raise
                measured = agent.compactor.count(agent._messages(convo), schemas)
                await agent.compactor.compact(convo, emit, agent._messages, schemas, before=measured, threshold=self.threshold)
                continue
            if not result.tool_calls:
                return agent._reply(emit, result.content, result.thinking)
            calls = agent._record_step(emit, result)
            await agent._run_calls(emit, calls, known)

        # the trajectory's budget is spent inside this turn: it ends without a reply
        if not any(n.data.get("max_llm_calls") for n in convo.turns[-1].notes):
            emit(
                NoteEvent(
                    text=f"the budget of {self.limits.max_llm_calls} model calls is spent; the turn ends without a reply",
                    data={"max_llm_calls": self.limits.max_llm_calls},
                )
            )
        steps = convo.turns[-1].steps if convo.turns else []
        last = next((s.content for s in reversed(steps) if s.content.strip()), "")
        return AgentReply(text=last, final=False)

    # ------------------------------------------------------------------ extraction
    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        agent = self.agent
        emit = tracking_emit(convo, emit)
        instruction = self.prompts.extraction_prompt(agent.task.language)

        def with_instruction(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(agent._messages(c) + [{"role": "user", "content": instruction}])

        if pending_instruction(convo) is None:  # a resumed run may have asked already
            before = last_prompt_tokens(convo)
            if before > self.threshold * PRE_EXTRACTION_COMPACT_FRACTION:
                await agent.compactor.compact(convo, emit, with_instruction, before=before, threshold=self.threshold)
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        messages = plain_messages(agent._messages(convo))
        result: LLMResult | None = None
        for _ in range(EXTRACTION_MIN_CALLS):
            result = await agent._call(messages, emit, tools=None, purpose="extraction")
            if result.content.strip():
                break
        assert result is not None
        return record_graph_answer(emit, result.content, result.thinking)
