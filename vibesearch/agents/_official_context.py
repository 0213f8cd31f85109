"""The official agent's working context and its compaction (``agent/general_agent.py`` of the
official harness: ``_msg_for_api``, ``_compact_context``; docs/protocol.md rows 11, 13).

* Each step is sent back as the official client keeps it: the assistant message with a text
  content (``""`` for a step that only called tools, never null), its reasoning as
  ``reasoning_content`` whenever the step had some (and an empty one for a model that requires it),
  its tool calls with their arguments written out again as JSON; then one ``tool`` message per call
  with the call's id and the result, and nothing else (no ``name``).
* After a compaction the context is the official rebuild: the opening question, the summary as the
  agent's own message after the lead-in, the request to go on (the checkout's words, or ours).
* The summary is asked over the official transcript (``[role]: text`` lines, tool calls named), cut
  to its first ``min(2 x threshold, 300,000)`` characters, with the checkout's compaction prompts
  (or ours), up to three calls until one answers with text; if none does, the compaction failed and
  the context stays as it was (``CompactionFailed``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

from ..config import Settings
from ..llm import LLMResult
from ..protocol.profiles import DISCARDED_EMPTY
from ..protocol.prompts import OWN_GO_ON, OWN_SUMMARY_LEAD, CompactionPrompts
from ..protocol.rules import COMPACT_ATTEMPTS, COMPACT_MAX_CHARS
from ..run import Conversation, Emit, Limits
from ..run.conversation import Step, Turn
from ..run.events import CompactionEvent, NoteEvent, UsageEvent
from ._context import transcript
from .compaction import Compactor
from .prompts import COMPACTION_PROMPT, COMPACTION_TRANSCRIPT_HEADER

Ask = Callable[[list[dict[str, Any]], Emit, str], Awaitable[LLMResult]]  # (messages, emit, purpose) -> result

# the calls whose reported prompt size decides the official compaction
_PROMPT_PURPOSES = frozenset({"agent", "extraction"})


class CompactionFailed(RuntimeError):
    """No summary came back: the official agent leaves the context as it was."""


def official_step(step: Step, *, require_reasoning: bool = False) -> list[dict[str, Any]]:
    """A step as the official client sends it back (see the module's docstring)."""
    msg: dict[str, Any] = {"role": "assistant", "content": step.content or ""}
    if step.thinking:
        msg["reasoning_content"] = step.thinking
    elif require_reasoning:
        msg["reasoning_content"] = ""
    if step.calls:
        msg["tool_calls"] = [
            {"id": c.call_id, "type": "function", "function": {"name": c.tool, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for c in step.calls
        ]
    out = [msg]
    for c in step.calls:
        res = step.results.get(c.call_id)
        out.append({"role": "tool", "tool_call_id": c.call_id,
                    "content": res.content if res is not None else "Error: the tool call did not return (interrupted)."})
    return out


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


def turn_prompt_tokens(turn: Turn | None) -> int:
    """The prompt size the provider reported for the latest answered call of ``turn`` (0 at its
    start, after a compaction, or when none was reported): what the official loop compacts on. A
    blank answer the client asked again for does not count (the official client never returns it)."""
    tokens = 0
    before_blank = 0
    for entry in turn.log if turn is not None else ():
        if isinstance(entry, UsageEvent) and entry.purpose in _PROMPT_PURPOSES:
            before_blank, tokens = tokens, entry.input_tokens or 0
        elif isinstance(entry, CompactionEvent):
            tokens = before_blank = 0
        elif isinstance(entry, NoteEvent) and entry.data.get(DISCARDED_EMPTY) and entry.data.get("blank"):
            tokens = before_blank
    return tokens


class OfficialCompactor(Compactor):
    """Compaction as the official agent does it (see the module's docstring). ``ask`` makes the
    summary call the way the agent makes its own calls (its client's attempts, sampling and body)."""

    def __init__(self, *, model: str, settings: Settings, system_prompt: str, limits: Limits, prompts: CompactionPrompts | None,
                 question: str, ask: Ask, require_reasoning: bool = False):
        super().__init__(model=model, settings=settings, system_prompt=system_prompt, limits=limits)
        self.prompts = prompts
        self.question = question
        self.ask = ask
        self.require_reasoning = require_reasoning

    def summary_messages(self, summary: str) -> list[dict[str, Any]]:
        lead = self.prompts.summary_lead if self.prompts is not None else OWN_SUMMARY_LEAD
        go_on = self.prompts.go_on if self.prompts is not None else OWN_GO_ON
        said: dict[str, Any] = {"role": "assistant", "content": "".join(p if isinstance(p, str) else summary for p in lead)}
        if self.require_reasoning:
            said["reasoning_content"] = ""
        return [{"role": "user", "content": self.question}, said, {"role": "user", "content": go_on}]

    def step_view(self, step: Step) -> list[dict[str, Any]]:
        return official_step(step, require_reasoning=self.require_reasoning)

    def context(self, convo: Conversation) -> list[dict[str, Any]]:
        return convo.agent_messages(self.summary_messages, step_view=self.step_view)

    async def summarise(self, convo: Conversation, emit: Emit) -> str:
        cap = min(2 * self.threshold, COMPACT_MAX_CHARS)
        if self.prompts is not None:
            text = official_transcript(self.context(convo))[:cap]
            messages = [{"role": "system", "content": self.prompts.system}, {"role": "user", "content": self.prompts.request(text)}]
        else:  # our own compaction prompt, over the same context
            text = transcript(self.context(convo))[:cap]
            messages = [{"role": "system", "content": COMPACTION_PROMPT},
                        {"role": "user", "content": f"{COMPACTION_TRANSCRIPT_HEADER}\n\n{text}"}]
        for attempt in range(1, COMPACT_ATTEMPTS + 1):
            try:
                result = await self.ask(messages, emit, "compaction")
            except Exception:  # noqa: BLE001 - a failed attempt, as an empty answer is
                result = None
            if result is not None and result.content.strip():
                return result.content.strip()
            if attempt < COMPACT_ATTEMPTS:
                await asyncio.sleep(2.0 * attempt * self.settings.llm_backoff_s)
        raise CompactionFailed(f"no summary after {COMPACT_ATTEMPTS} compaction calls")
