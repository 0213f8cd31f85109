"""The react agent's turns under the official profile (``agent/general_agent.py`` of the official
harness, rule by rule; docs/protocol.md rows 11-19).

* No step limit per turn: the agent calls tools until it replies or the trajectory's budget of
  model calls (agent calls plus compactions, ``ProfileLimits.max_llm_calls``) is spent. A turn cut
  by the budget ends without a reply; the session then ends the conversation (``max_rounds``).
* Compaction when the prompt size the provider reported for the latest call is above the official
  threshold (229,376), and when a call is refused with a 400 (a context too long) or times out.
  Each compaction is one call of the budget.
* The system prompt and the extraction request come from the ``PromptSet`` (the user's checkout
  of the official harness, or our own), in the task's language.
* A reply with reasoning but neither text nor tool calls is dropped from the context and asked
  again, up to ``MAX_EMPTY_REPLIES`` times in a turn (dropped replies do not count against the
  budget); then the turn ends without a reply and the conversation goes on. A blank answer (no
  reasoning either) is what the official client retries as a failed call: asked again up to
  ``CLIENT_ATTEMPTS`` times, none counted against the budget, then one failure. A step whose tool arguments even
  json-repair cannot read as an object is dropped too, and counts as a failure, as does a call that
  fails after the client's retries; ``MAX_CONSECUTIVE_ERRORS`` failures in a row end the
  conversation (``error_loop``: the extraction still runs).
* Before the extraction request, one more compaction when the latest prompt was above 0.85 x the
  threshold; none during extraction. An empty extraction answer is asked again, up to
  ``EXTRACTION_MIN_CALLS`` calls (the official extraction loop always gets at least that many).
"""

from __future__ import annotations

from typing import Any, Protocol

from .._secrets import scrub
from ..llm import LLMError, LLMResult
from ..protocol import ProfileLimits, PromptSet
from ..protocol.profile import DISCARDED_EMPTY, last_prompt_tokens, llm_calls_used
from ..protocol.prompts import OWN_GO_ON, OWN_SUMMARY_LEAD
from ..protocol.rules import (
    CLIENT_ATTEMPTS,
    EXTRACTION_MIN_CALLS,
    MAX_CONSECUTIVE_ERRORS,
    MAX_EMPTY_REPLIES,
    OFFICIAL_COMPACTION_TOKENS,
    PRE_EXTRACTION_COMPACT_FRACTION,
)
from ..run import AgentReply, Conversation, Emit, GraphResult, MessageEvent, NoteEvent, Termination, Toolbox, ToolCallEvent
from ..run.events import ErrorEvent
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

    def summary_messages(self, summary: str) -> list[dict[str, Any]]:
        """The official context after a compaction (after the system prompt): the question, the
        summary as the agent's own message, and a request to go on — in the checkout's words, or ours."""
        words = self.prompts.compaction
        lead = words.summary_lead if words is not None else OWN_SUMMARY_LEAD
        go_on = words.go_on if words is not None else OWN_GO_ON
        return [
            {"role": "user", "content": self.agent.task.persona.initial_query},
            {"role": "assistant", "content": "".join(p if isinstance(p, str) else summary for p in lead)},
            {"role": "user", "content": go_on},
        ]

    @property
    def threshold(self) -> int:
        return self.limits.compaction_tokens if self.limits.compaction_tokens is not None else OFFICIAL_COMPACTION_TOKENS

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
        # the turn's loop runs at most as many times as the budget had calls left when it began;
        # a discarded or failed call uses one of those tries (the official ``range(max_rounds)``)
        tries = self.limits.llm_calls_left(llm_calls_used(convo))
        empty = failed = blank = 0
        while tries is None or tries > 0:
            tries = None if tries is None else tries - 1
            before = last_prompt_tokens(convo)
            if self.limits.should_compact(before, self.threshold):
                await agent.compactor.compact(convo, emit, agent._messages, schemas, before=before, threshold=self.threshold)
                continue
            try:
                result = await agent._call(agent._messages(convo), emit, tools=schemas, purpose="agent")
            except LLMError as exc:
                if self.limits.compact_on_context_overflow and (exc.bad_request or exc.timed_out):
                    measured = agent.compactor.count(agent._messages(convo), schemas)
                    await agent.compactor.compact(convo, emit, agent._messages, schemas, before=measured, threshold=self.threshold)
                    continue
                failed += 1
                if self._failed(emit, failed, f"the agent's call failed: {exc}"):
                    return self._stop_here(convo, "error_loop")
                continue
            if not result.tool_calls and not result.content.strip() and not (result.thinking or "").strip():
                # no text, no calls, no reasoning: the official client takes this for a failed call and
                # asks again (up to its attempts; none counts against the budget); then one failure
                blank += 1
                emit(NoteEvent(text=f"blank answer {blank} of at most {CLIENT_ATTEMPTS} for this call: asked again",
                               data={DISCARDED_EMPTY: blank, "blank": True}))
                if blank < CLIENT_ATTEMPTS:
                    tries = None if tries is None else tries + 1  # still the same try
                    continue
                blank = 0
                failed += 1
                if self._failed(emit, failed, f"the agent answered nothing {CLIENT_ATTEMPTS} times in a row"):
                    return self._stop_here(convo, "error_loop")
                continue
            blank = 0
            if not result.tool_calls and not result.content.strip():
                # reasoning but no text: dropped from the context and asked again (not counted against the budget)
                empty += 1
                emit(NoteEvent(text=f"empty reply {empty} of at most {MAX_EMPTY_REPLIES} this turn: dropped and asked again",
                               data={DISCARDED_EMPTY: empty}))
                if empty >= MAX_EMPTY_REPLIES:
                    emit(NoteEvent(text=f"{MAX_EMPTY_REPLIES} empty replies: the turn ends without a reply", data={"empty_response": True}))
                    return self._stop_here(convo, None)
                continue
            unreadable = [c.name for c in result.tool_calls if _unreadable(c.raw_arguments)]
            if unreadable:  # the step is dropped; it counts against the budget and as a failure
                failed += 1
                if self._failed(emit, failed, f"unreadable arguments for {', '.join(unreadable)}: the step is dropped"):
                    return self._stop_here(convo, "error_loop")
                continue
            failed = 0
            if not result.tool_calls:
                return agent._reply(emit, result.content, result.thinking)
            calls = agent._record_step(emit, result)
            await agent._run_calls(emit, calls, known)

        # the turn used every try it had: it ends without a reply (the session ends the
        # conversation when the trajectory's budget is spent; dropped replies gave some back)
        if self.limits.llm_calls_left(llm_calls_used(convo)) != 0:
            emit(NoteEvent(text="this turn used every try the budget allowed when it began; it ends without a reply", data={"turn_tries_spent": True}))
        elif not any(n.data.get("max_llm_calls") for n in convo.turns[-1].notes):
            emit(
                NoteEvent(
                    text=f"the budget of {self.limits.max_llm_calls} model calls is spent; the turn ends without a reply",
                    data={"max_llm_calls": self.limits.max_llm_calls},
                )
            )
        return self._stop_here(convo, None)

    def _failed(self, emit: Emit, failed: int, what: str) -> bool:
        """Record a failed try (``failed`` in a row); True when that many end the conversation."""
        emit(ErrorEvent(source="agent", message=scrub(what)[:1000], fatal=False, attempt=failed))
        if failed < MAX_CONSECUTIVE_ERRORS:
            return False
        emit(NoteEvent(text=f"{failed} failed agent calls in a row: the conversation ends (error_loop)", data={"error_loop": failed}))
        return True

    @staticmethod
    def _stop_here(convo: Conversation, ends: Termination | None) -> AgentReply:
        """The turn ends without a new reply; the agent's last text stands (what the official
        harness hands the simulator)."""
        steps = convo.turns[-1].steps if convo.turns else []
        last = next((s.content for s in reversed(steps) if s.content.strip()), "")
        return AgentReply(text=last, final=False, ends_conversation=ends)

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


def _unreadable(raw: str | None) -> bool:
    """Arguments the official loop drops its step for: not readable as an object even by
    json-repair (the client kept the raw text only when strict JSON failed)."""
    if raw is None:
        return False
    from json_repair import repair_json

    try:
        return not isinstance(repair_json(raw, return_objects=True), dict)
    except Exception:  # noqa: BLE001 - whatever json-repair cannot read is unreadable
        return True
