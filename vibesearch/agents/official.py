"""The official agent: the react agent kind under the official profile — the official harness's
``_run_loop`` (``agent/general_agent.py``), rule by rule (docs/protocol.md rows 11-19). It is an
``Agent`` of its own, sharing the step kit (``steps.StepKit``) with the react agent; ``make_agent``
builds it when the run's profile runs the official loop.

One loop (``_run_loop``) serves a user turn and the extraction, as in the official code:

* **Rounds.** A user turn gets as many rounds as the trajectory has left (``limits.max_rounds``
  less ``rounds_used``); the extraction gets at least ``EXTRACTION_MIN_ROUNDS``. A round is one
  answered call, a failed call, a compaction, or a dropped reply.
* **Each call** is the official client's: up to ``CLIENT_ATTEMPTS`` attempts with a doubling pause
  (1 s, 2 s, 4 s … x 0.8-1.2, times ``settings.llm_backoff_s``); a null answer with no calls and no
  reasoning is asked again within those attempts (free); a 400 is not retried. What still fails is
  one failure; ``MAX_CONSECUTIVE_ERRORS`` in a row end the loop as ``error_loop``. A timeout is a
  failure like any other (the official profile follows the OpenAI SDK path: its timeout is not
  the httpx read timeout the harness compacts on).
* **Compaction** when the previous call of the same loop reported a prompt above the threshold
  (``limits.compaction_tokens``; so never before a turn's first call), or when a call is refused
  with a 400; a compaction that brings no summary ends the loop as ``context_length`` with the
  context as it was. In the extraction loop, either ends it as ``context_length``.
* **Replies.** A reply with text is the answer. One with no text (or, for Qwen, tags it could not
  read) is dropped and asked again; the fifth stays in the context, counts as a round and ends the
  loop (``empty_response`` / ``malformed_tool_call``). A step whose arguments cannot be read is
  dropped (it counts as a round) and is a failure.
* **The context** is the official client's (``_official_context``): reasoning sent back, ``""`` for
  a text-less step, no tool names on tool results, arguments written out again as JSON; the model
  rules of ``_official_models`` (DeepSeek, Kimi, Qwen).
* **Extraction** always runs: the request as its own user message on the same context, no tools;
  before it, one more compaction when the last turn's prompt was above 0.85 x the threshold (if
  that fails, nothing is asked: ``context_length``). ``GraphResult.outcome`` is the loop's end.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

from .._secrets import scrub
from ..config import Settings
from ..llm import LLMError, LLMResult
from ..protocol import PromptSet
from ..protocol.profiles import DISCARDED_EMPTY, official_language, rounds_used
from ..protocol.rules import (
    CLIENT_ATTEMPTS,
    EXTRACTION_MIN_ROUNDS,
    MAX_CONSECUTIVE_ERRORS,
    MAX_EMPTY_REPLIES,
    PRE_EXTRACTION_COMPACT_FRACTION,
)
from ..run import AgentReply, Conversation, Emit, GraphResult, Limits, MessageEvent, NoteEvent, Sampling, Termination, Toolbox
from ..run.events import ErrorEvent, Phase
from ..tasks.models import Task
from ._context import missing_results, open_turn_steps, tracking_emit
from ._official_context import CompactionFailed, OfficialCompactor, official_transcript, turn_prompt_tokens
from ._official_models import has_call_tags, recover_calls, rules_for
from .extraction import pending_instruction, record_graph_answer
from .steps import StepKit, is_final_answer

__all__ = ["OfficialAgent", "official_transcript"]

LoopEnd = str  # "answer" or a termination the loop ends with


class _NoAnswer(RuntimeError):
    """The client's attempts brought nothing back (null answers)."""


@dataclass
class _Ended:
    termination: LoopEnd
    text: str = ""  # the answer (termination "answer")
    thinking: str | None = None


class OfficialAgent:
    """The official agent loop over a litellm model and the run's toolbox.

    ``limits`` are the run's, resolved by the official profile (``max_rounds``,
    ``compaction_tokens``); ``prompts`` the profile's (a checkout's, or ours)."""

    kind = "react"  # the agent kind the run names; the profile decides that it runs this loop
    resumes_open_turn = True

    def __init__(
        self,
        task: Task,
        settings: Settings,
        *,
        model: str,
        toolbox: Toolbox,
        limits: Limits,
        prompts: PromptSet,
        sampling: Sampling | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
    ):
        self.task = task
        self.settings = settings
        self.limits = limits
        self.prompts = prompts
        self.language = official_language(task)
        self.rules = rules_for(model)
        self.kit = StepKit(model=model, toolbox=toolbox, settings=settings, sampling=sampling or Sampling(), api_base=api_base, api_key=api_key)
        self.system = prompts.agent_system_prompt(self.language)
        self.compactor = OfficialCompactor(
            model=model, settings=settings, system_prompt=self.system, limits=limits, prompts=prompts.compaction,
            question=task.persona.initial_query, ask=self._ask, require_reasoning=self.rules.require_reasoning,
        )
        self.name = f"react:{model}"
        self.description = f"ReAct agent on {model} in the official harness's loop (official protocol profile)"

    @property
    def model(self) -> str:
        return self.kit.model

    @property
    def toolbox(self) -> Toolbox:
        return self.kit.toolbox

    @property
    def threshold(self) -> int:
        return self.compactor.threshold

    def reply_is_final(self, text: str) -> bool:
        return is_final_answer(text)

    def _messages(self, convo: Conversation) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, *self.compactor.context(convo)]

    def _rounds_left(self, convo: Conversation) -> int | None:
        limit = self.limits.max_rounds
        return None if limit is None else limit - rounds_used(convo)

    # ------------------------------------------------------------------ one call, as the official client makes it
    async def _chat(self, messages: list[dict[str, Any]], emit: Emit, *, tools: list[dict[str, Any]] | None, purpose: str) -> LLMResult:
        """Up to ``CLIENT_ATTEMPTS`` attempts; a null answer (no text, calls or reasoning) is asked
        again within them and never counted; a 400 is raised at once; the last failure is raised."""
        delay = 1.0
        for attempt in range(1, CLIENT_ATTEMPTS + 1):
            try:
                result = await self.kit.call(messages, emit, tools=tools, purpose=purpose, retries=0, **self.rules.call_kwargs())
            except LLMError as exc:
                if exc.bad_request or attempt == CLIENT_ATTEMPTS:
                    raise
            else:
                if not (result.content_none and not result.tool_calls and not (result.thinking or "").strip()):
                    return result
                emit(NoteEvent(text=f"a null answer (attempt {attempt} of {CLIENT_ATTEMPTS} for this call): asked again",
                               data={DISCARDED_EMPTY: attempt, "blank": True}))
                if attempt == CLIENT_ATTEMPTS:
                    raise _NoAnswer(f"the agent answered nothing {CLIENT_ATTEMPTS} times in a row")
            await asyncio.sleep(delay * random.uniform(0.8, 1.2) * self.settings.llm_backoff_s)
            delay *= 2
        raise AssertionError("unreachable")

    async def _ask(self, messages: list[dict[str, Any]], emit: Emit, purpose: str) -> LLMResult:
        return await self._chat(messages, emit, tools=None, purpose=purpose)

    async def _compact(self, convo: Conversation, emit: Emit, tools: list[dict[str, Any]] | None, before: int) -> bool:
        try:
            await self.compactor.compact(convo, emit, self._messages, tools, before=before, threshold=self.threshold)
        except CompactionFailed as exc:
            emit(NoteEvent(text=f"compaction failed ({exc}): the context stays as it was", data={"compaction_failed": True}))
            return False
        return True

    # ------------------------------------------------------------------ the loop
    async def _run_loop(
        self, convo: Conversation, emit: Emit, *, tools: list[dict[str, Any]] | None, rounds: int | None, extraction: bool
    ) -> _Ended:
        kit, turn = self.kit, convo.turns[-1]
        phase: Phase = "extraction" if extraction else "dialogue"
        purpose = "extraction" if extraction else "agent"
        # where a resumed loop stands: what the provider reported last in it, the replies dropped
        last = turn_prompt_tokens(turn)
        empty = sum(1 for n in turn.notes if n.data.get(DISCARDED_EMPTY) and not n.data.get("blank"))
        failed = 0
        left = rounds
        while left is None or left > 0:
            left = None if left is None else left - 1
            if last > self.threshold:
                if extraction or not await self._compact(convo, emit, tools, last):
                    return _Ended("context_length")
                last = 0
                continue
            try:
                result = await self._chat(self._messages(convo), emit, tools=tools, purpose=purpose)
            except LLMError as exc:
                if exc.bad_request:  # a context too long (or any refused request): compact
                    if extraction or not await self._compact(convo, emit, tools, kit_count(self, convo, tools)):
                        return _Ended("context_length")
                    last = 0
                    continue
                failed += 1
                if self._failed(emit, failed, f"the agent's call failed: {exc}"):
                    return _Ended("error_loop")
                continue
            except _NoAnswer as exc:
                failed += 1
                if self._failed(emit, failed, str(exc)):
                    return _Ended("error_loop")
                continue
            last = result.input_tokens or 0
            calls = result.tool_calls
            content: str | None = None
            if not calls:
                text = result.content.strip()
                calls = recover_calls(self.rules, result.thinking, text)
                content = "" if calls else None
                if not calls and text and not has_call_tags(self.rules, text):
                    return _Ended("answer", result.content, result.thinking)
                if not calls:
                    empty += 1
                    if empty >= MAX_EMPTY_REPLIES:  # the last one stays in the context and counts
                        emit(MessageEvent(role="assistant", content=result.content, thinking=result.thinking, phase=phase, final=not extraction))
                        ends = "malformed_tool_call" if text else "empty_response"
                        emit(NoteEvent(text=f"{MAX_EMPTY_REPLIES} replies without an answer: the loop ends ({ends})", data={"empty_response": ends}))
                        return _Ended(ends)
                    emit(NoteEvent(text=f"a reply without an answer ({empty} of at most {MAX_EMPTY_REPLIES} in this loop): dropped and asked again",
                                   data={DISCARDED_EMPTY: empty}))
                    continue
            unreadable = [c.name for c in calls if _unreadable(c.raw_arguments)]
            if unreadable:  # the step is dropped; it counts as a round and as a failure
                failed += 1
                if self._failed(emit, failed, f"unreadable arguments for {', '.join(unreadable)}: the step is dropped"):
                    return _Ended("error_loop")
                continue
            recorded = kit.record_step(emit, result, phase=phase, calls=calls, content=content)
            await kit.run_calls(emit, recorded, None)  # the toolbox answers an unknown tool itself (the official text)
            failed = 0
        return _Ended("max_rounds")

    def _failed(self, emit: Emit, failed: int, what: str) -> bool:
        """Record a failed try (``failed`` in a row); True when that many end the loop."""
        emit(ErrorEvent(source="agent", message=scrub(what)[:1000], fatal=False, attempt=failed))
        if failed < MAX_CONSECUTIVE_ERRORS:
            return False
        emit(NoteEvent(text=f"{failed} failed agent calls in a row: the loop ends (error_loop)", data={"error_loop": failed}))
        return True

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        kit = self.kit
        stored = open_turn_steps(convo)
        emit = tracking_emit(convo, emit)
        schemas, _ = kit.offered()
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await kit.run_calls(emit, owed, None)
        left = self._rounds_left(convo)
        ended = await self._run_loop(convo, emit, tools=schemas, rounds=None if left is None else max(0, left), extraction=False)
        if ended.termination == "answer":
            return kit.reply(emit, ended.text, ended.thinking)
        if ended.termination == "max_rounds" and self._rounds_left(convo) != 0:
            emit(NoteEvent(text="this turn used every round the budget allowed when it began; it ends without a reply",
                           data={"turn_tries_spent": True}))
        elif ended.termination == "max_rounds" and not any(n.data.get("max_llm_calls") for n in convo.turns[-1].notes):
            emit(NoteEvent(text=f"the budget of {self.limits.max_rounds} model calls is spent; the turn ends without a reply",
                           data={"max_llm_calls": self.limits.max_rounds}))
        # only error_loop ends the conversation; the other endings leave it to the user's next turn
        return self._stop_here(convo, "error_loop" if ended.termination == "error_loop" else None)

    @staticmethod
    def _stop_here(convo: Conversation, ends: Termination | None) -> AgentReply:
        """The turn ends without a new reply; the agent's last text stands (what the official
        harness hands the simulator)."""
        steps = convo.turns[-1].steps if convo.turns else []
        last = next((s.content for s in reversed(steps) if s.content), "")
        return AgentReply(text=last, final=False, ends_conversation=ends)

    # ------------------------------------------------------------------ extraction
    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        emit = tracking_emit(convo, emit)
        instruction = self.prompts.extraction_prompt(self.language)
        if pending_instruction(convo) is None:  # a resumed run may have asked already
            before = turn_prompt_tokens(convo.turns[-1] if convo.turns else None)
            if before > self.threshold * PRE_EXTRACTION_COMPACT_FRACTION and not await self._compact(convo, emit, None, before):
                return GraphResult(triples=[], outcome="context_length")  # nothing is asked
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        left = self._rounds_left(convo)
        rounds = EXTRACTION_MIN_ROUNDS if left is None else max(left, EXTRACTION_MIN_ROUNDS)
        ended = await self._run_loop(convo, emit, tools=None, rounds=rounds, extraction=True)
        if ended.termination == "answer":
            graph = record_graph_answer(emit, ended.text, ended.thinking)
            graph.outcome = "answer"
            return graph
        return GraphResult(triples=[], outcome=ended.termination)


def kit_count(agent: OfficialAgent, convo: Conversation, tools: list[dict[str, Any]] | None) -> int:
    """The size of the context a refused call carried (ours: recorded with the compaction)."""
    return agent.compactor.count(agent._messages(convo), tools)


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
