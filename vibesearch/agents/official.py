"""The official agent: the react agent kind under the official profile (``agent/general_agent.py``
of the official harness, rule by rule; docs/protocol.md rows 11-19). It is an ``Agent`` of its own,
sharing the step kit (``steps.StepKit``: a model call, a recorded step, its tool calls) with the
react agent; ``make_agent`` builds it when the run's profile runs the official loop.

* No step limit per turn: the agent calls tools until it replies or the trajectory's budget of
  model calls (agent calls plus compactions, the run's ``limits.max_rounds``) is spent. A turn cut
  by the budget ends without a reply; the session then ends the conversation (``max_rounds``).
* Compaction when the prompt size the provider reported for the latest call is above the official
  threshold (``limits.compaction_tokens``: 229,376), and when a call is refused with a 400 (a context too long) or times out.
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

from typing import Any

from .._secrets import scrub
from ..config import Settings
from ..llm import LLMError, LLMResult, complete
from ..protocol import PromptSet
from ..protocol.profiles import DISCARDED_EMPTY, rounds_used
from ..protocol.prompts import OWN_GO_ON, OWN_SUMMARY_LEAD, CompactionPrompts
from ..protocol.rules import (
    CLIENT_ATTEMPTS,
    COMPACT_ATTEMPTS,
    COMPACT_MAX_CHARS,
    EXTRACTION_MIN_CALLS,
    MAX_CONSECUTIVE_ERRORS,
    MAX_EMPTY_REPLIES,
    PRE_EXTRACTION_COMPACT_FRACTION,
)
from ..run import AgentReply, Conversation, Emit, GraphResult, Limits, MessageEvent, NoteEvent, Sampling, Termination, Toolbox
from ..run.events import ErrorEvent
from ..tasks.models import Task
from ._context import missing_results, open_turn_steps, plain_messages, tracking_emit
from .compaction import Compactor, asked_so_far
from .extraction import pending_instruction, record_graph_answer
from .steps import StepKit, is_final_answer

# the calls whose reported prompt size decides the official compaction
_PROMPT_PURPOSES = frozenset({"agent", "compaction", "extraction"})


def last_prompt_tokens(convo: Conversation) -> int:
    """The prompt size the provider reported for the agent's latest call (0 right after a
    compaction, or when the provider reported none): what the official agent compacts on."""
    for usage in reversed(convo.usage):
        if usage.purpose in _PROMPT_PURPOSES:
            return 0 if usage.purpose == "compaction" else usage.input_tokens or 0
    return 0


class OfficialCompactor(Compactor):
    """Compaction as the official agent does it: with a checkout, the summary is asked with its
    compaction prompts over the official transcript (``official_transcript``, cut to its first
    ``COMPACT_MAX_CHARS`` characters, up to ``COMPACT_ATTEMPTS`` calls); and after a compaction the
    context is the official rebuild — the question, the summary as the agent's own message after
    the lead-in, the request to go on (the checkout's words, or ours; docs/protocol.md row 13)."""

    def __init__(self, *, model: str, settings: Settings, system_prompt: str, limits: Limits, sampling: Sampling,
                 prompts: CompactionPrompts | None, question: str):
        super().__init__(model=model, settings=settings, system_prompt=system_prompt, limits=limits, sampling=sampling.params())
        self.prompts = prompts
        self.question = question

    def summary_messages(self, summary: str) -> list[dict[str, Any]]:
        lead = self.prompts.summary_lead if self.prompts is not None else OWN_SUMMARY_LEAD
        go_on = self.prompts.go_on if self.prompts is not None else OWN_GO_ON
        return [
            {"role": "user", "content": self.question},
            {"role": "assistant", "content": "".join(p if isinstance(p, str) else summary for p in lead)},
            {"role": "user", "content": go_on},
        ]

    def context(self, convo: Conversation) -> list[dict[str, Any]]:
        return convo.agent_messages(self.summary_messages)

    async def summarise(self, convo: Conversation, emit: Emit) -> str:
        if self.prompts is None:  # our own compaction prompt over our transcript
            return await super().summarise(convo, emit)
        text = official_transcript(self.context(convo))[:COMPACT_MAX_CHARS]
        messages = [{"role": "system", "content": self.prompts.system}, {"role": "user", "content": self.prompts.request(text)}]
        for _ in range(COMPACT_ATTEMPTS):
            result = await complete(
                messages, model=self.model, purpose="compaction", emit=emit, settings=self.settings, sampling=self.sampling
            )
            if result.content.strip():
                return result.content.strip()
        return asked_so_far(convo)


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
        self.limits = limits
        self.prompts = prompts
        self.kit = StepKit(model=model, toolbox=toolbox, settings=settings, sampling=sampling or Sampling(), api_base=api_base, api_key=api_key)
        self.system = prompts.agent_system_prompt(task.language)
        self.compactor = OfficialCompactor(
            model=model, settings=settings, system_prompt=self.system, limits=limits, sampling=self.kit.sampling,
            prompts=prompts.compaction, question=task.persona.initial_query,
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

    def _should_compact(self, prompt_tokens: int) -> bool:
        """Compact before the next call? Strictly above the threshold, as the official agent does."""
        return prompt_tokens > self.threshold

    def _calls_left(self, convo: Conversation) -> int | None:
        limit = self.limits.max_rounds
        return None if limit is None else max(0, limit - rounds_used(convo))

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        kit, compactor = self.kit, self.compactor
        stored = open_turn_steps(convo)
        emit = tracking_emit(convo, emit)
        schemas, known = kit.offered()
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await kit.run_calls(emit, owed, known)
        # the turn's loop runs at most as many times as the budget had calls left when it began;
        # a discarded or failed call uses one of those tries (the official ``range(max_rounds)``)
        tries = self._calls_left(convo)
        empty = failed = blank = 0
        while tries is None or tries > 0:
            tries = None if tries is None else tries - 1
            before = last_prompt_tokens(convo)
            if self._should_compact(before):
                await compactor.compact(convo, emit, self._messages, schemas, before=before, threshold=self.threshold)
                continue
            try:
                result = await kit.call(self._messages(convo), emit, tools=schemas, purpose="agent")
            except LLMError as exc:
                if exc.bad_request or exc.timed_out:  # a context too long (or a timeout): compact
                    measured = compactor.count(self._messages(convo), schemas)
                    await compactor.compact(convo, emit, self._messages, schemas, before=measured, threshold=self.threshold)
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
                return kit.reply(emit, result.content, result.thinking)
            calls = kit.record_step(emit, result)
            await kit.run_calls(emit, calls, known)

        # the turn used every try it had: it ends without a reply (the session ends the
        # conversation when the trajectory's budget is spent; dropped replies gave some back)
        if self._calls_left(convo) != 0:
            emit(NoteEvent(text="this turn used every try the budget allowed when it began; it ends without a reply", data={"turn_tries_spent": True}))
        elif not any(n.data.get("max_llm_calls") for n in convo.turns[-1].notes):
            emit(
                NoteEvent(
                    text=f"the budget of {self.limits.max_rounds} model calls is spent; the turn ends without a reply",
                    data={"max_llm_calls": self.limits.max_rounds},
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
        emit = tracking_emit(convo, emit)
        instruction = self.prompts.extraction_prompt(self.task.language)

        def with_instruction(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(self._messages(c) + [{"role": "user", "content": instruction}])

        if pending_instruction(convo) is None:  # a resumed run may have asked already
            before = last_prompt_tokens(convo)
            if before > self.threshold * PRE_EXTRACTION_COMPACT_FRACTION:
                await self.compactor.compact(convo, emit, with_instruction, before=before, threshold=self.threshold)
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        messages = plain_messages(self._messages(convo))
        result: LLMResult | None = None
        for _ in range(EXTRACTION_MIN_CALLS):
            result = await self.kit.call(messages, emit, tools=None, purpose="extraction")
            if result.content.strip():
                break
        assert result is not None
        return record_graph_answer(emit, result.content, result.thinking)


def official_transcript(messages: list[dict[str, Any]]) -> str:
    """The context as the official compaction shows it: one ``[role]: text`` line per message
    (system prompts left out), a step's tool calls named after its text as ``[tool_calls: a, b]``."""
    lines = []
    for m in messages:
        if m.get("role") == "system":
            continue
        content = m.get("content") or ""
        if not isinstance(content, str):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        names = [tc["function"]["name"] for tc in m.get("tool_calls") or () if isinstance(tc, dict) and "function" in tc]
        if names:
            content = f"{content} [tool_calls: {', '.join(names)}]".strip()
        lines.append(f"[{m.get('role')}]: {content}")
    return "\n".join(lines)


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
