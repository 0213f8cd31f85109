"""Context compaction (SPEC 4.2).

Before every LLM call the agent measures its context. When it is over the threshold —
``settings.compaction_threshold`` times the context window, where the window is the model's
(from litellm's map) or ``settings.context_window``, whichever is smaller — the model is asked to
summarise the research and the conversation so far. A ``compaction`` event records the token
counts and the summary; from then on the ``Conversation`` shows the summary in place of what it
replaced (``Conversation.agent_messages``), so the agent continues from system prompt + summary.

Under the official profile with a checkout of the official harness, the summary is asked with that
checkout's compaction prompts over the official transcript (``official_transcript``), and under
that profile the summary stands in the context as the official harness puts it (``summary_view``:
the question, the summary as the agent's message, a request to go on; docs/protocol.md row 13).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, Mapping

from ..config import Settings
from ..llm import complete, context_window, count_tokens
from ..protocol.prompts import CompactionPrompts
from ..protocol.rules import COMPACT_ATTEMPTS, COMPACT_MAX_CHARS
from ..run.conversation import Conversation
from ..run.events import CompactionEvent, Emit
from ._context import transcript
from .prompts import COMPACTION_PROMPT, COMPACTION_TRANSCRIPT_HEADER

# tool results are shortened step by step until the text to summarise fits the window
_TOOL_CAPS: tuple[int | None, ...] = (None, 4000, 1500, 500, 150)


def window_for(model: str, settings: Settings) -> int:
    """The context window used for ``model``: its own, or the configured one when smaller."""
    return min(context_window(model, settings.context_window), settings.context_window)


def threshold_for(model: str, settings: Settings) -> int:
    return int(window_for(model, settings) * settings.compaction_threshold)


@dataclass
class Compactor:
    """Measures an agent's context and compacts it when it is over the threshold."""

    model: str
    settings: Settings
    system_prompt: str
    sampling: Mapping[str, float | int] | None = None  # the summary call's (None: the settings')
    # the official compaction prompts (the official profile with a checkout); None: ours
    official: CompactionPrompts | None = None
    # how the summary stands in the agent's context (``Conversation.agent_messages``); None: ours
    summary_view: Callable[[str], list[dict[str, Any]]] | None = None
    _measured: _Measured = field(default_factory=lambda: _Measured(), init=False, repr=False, compare=False)

    @property
    def window(self) -> int:
        return window_for(self.model, self.settings)

    @property
    def threshold(self) -> int:
        return threshold_for(self.model, self.settings)

    def count(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
        return count_tokens(messages, self.model, tools)

    async def ensure_room(
        self,
        convo: Conversation,
        emit: Emit,
        build: Callable[[Conversation], list[dict[str, Any]]],
        tools: list[dict[str, Any]] | None = None,
    ) -> CompactionEvent | None:
        """Compact when the context ``build(convo)`` is over the threshold; return the event."""
        messages = build(convo)
        threshold = self.threshold
        if _token_ceiling(messages, tools, self._measured) <= threshold:
            return None  # certainly below: skip the exact (slow) count
        before = self.count(messages, tools)
        if before <= threshold:
            return None
        return await self.compact(convo, emit, build, tools, before=before, threshold=threshold)

    async def compact(
        self,
        convo: Conversation,
        emit: Emit,
        build: Callable[[Conversation], list[dict[str, Any]]],
        tools: list[dict[str, Any]] | None = None,
        *,
        before: int,
        threshold: int,
    ) -> CompactionEvent:
        """Summarise now and record the ``compaction`` event (``before``: the tokens that made it
        necessary, as measured by the caller)."""
        summary = await self.summarise(convo, emit)
        event = CompactionEvent(tokens_before=before, tokens_after=0, threshold=threshold, summary=summary)
        preview = copy.deepcopy(convo)
        preview.add(event)
        event.tokens_after = self.count(build(preview), tools)
        emit(event)
        return event

    async def summarise(self, convo: Conversation, emit: Emit) -> str:
        """Ask the model for a summary of everything in the agent's context."""
        if self.official is not None:
            return await self._official_summary(convo, emit, self.official)
        context = convo.agent_messages(self.summary_view)
        budget = max(self.window - min(4000, self.window // 4), self.window // 2)
        text = ""
        for cap in _TOOL_CAPS:
            text = transcript(context, tool_chars=cap)
            if self.count([{"role": "user", "content": text}]) <= budget:
                break
        else:
            text = _keep_ends(text, budget * 3)
        messages = [
            {"role": "system", "content": COMPACTION_PROMPT},
            {"role": "user", "content": f"{COMPACTION_TRANSCRIPT_HEADER}\n\n{text}"},
        ]
        result = await complete(
            messages, model=self.model, purpose="compaction", emit=emit, settings=self.settings, sampling=self.sampling
        )
        return result.content.strip() or _asked_so_far(convo)

    async def _official_summary(self, convo: Conversation, emit: Emit, prompts: CompactionPrompts) -> str:
        """The official compaction call: its prompts over the official transcript (cut to its first
        ``COMPACT_MAX_CHARS`` characters), asked up to ``COMPACT_ATTEMPTS`` times for a summary."""
        text = official_transcript(convo.agent_messages(self.summary_view))[:COMPACT_MAX_CHARS]
        messages = [{"role": "system", "content": prompts.system}, {"role": "user", "content": prompts.request(text)}]
        for _ in range(COMPACT_ATTEMPTS):
            result = await complete(
                messages, model=self.model, purpose="compaction", emit=emit, settings=self.settings, sampling=self.sampling
            )
            if result.content.strip():
                return result.content.strip()
        return _asked_so_far(convo)


def _asked_so_far(convo: Conversation) -> str:
    """The summary when the model returned none: at least what the user asked for."""
    asked = [t.user for t in convo.turns if t.user]
    return "The user's messages so far:\n" + "\n".join(f"- {u}" for u in asked)


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


def _token_ceiling(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, memo: "_Measured | None" = None) -> int:
    """A cheap bound that natural text never exceeds: half a token per UTF-8 byte.

    English runs about a quarter of a token per byte and Chinese about a third to a half, so
    when this bound is under the threshold the exact count (slow on long contexts) is not needed.
    (Made before every model call over the whole context, so nothing is encoded twice; with
    ``memo``, only the messages added since the context it measured last.)
    """
    size = memo.size(messages) if memo is not None else _messages_size(messages)
    if tools:
        size += _tools_size(tools)
    return size // 2 + 8 * len(messages) + 16


def _messages_size(messages: list[dict[str, Any]]) -> int:
    size = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):  # (an ASCII string's length is its byte count: no encoding needed)
            size += len(content) if content.isascii() else _utf8_len(content)
        else:
            size += 4 if content is None else len(json.dumps(content, ensure_ascii=False))
        for tc in m.get("tool_calls") or ():
            size += len(str(tc["function"]["arguments"]).encode("utf-8")) + 32
    return size


class _Measured:
    """The messages of the last context an agent measured and their size: the next context
    usually starts with the same messages (compared by value, in C), so only the ones after
    them are measured."""

    def __init__(self) -> None:
        self.contents: list[Any] = []
        self.calls: list[Any] = []
        self.total = 0

    def size(self, messages: list[dict[str, Any]]) -> int:
        contents = list(map(dict.get, messages, repeat("content")))
        calls = list(map(dict.get, messages, repeat("tool_calls")))
        n = len(self.contents)
        if n and len(contents) >= n and contents[:n] == self.contents and calls[:n] == self.calls:
            total = self.total + _messages_size(messages[n:])
        else:
            total = _messages_size(messages)
        self.contents, self.calls, self.total = contents, calls, total
        return total


_UTF8_LEN: dict[str, int] = {}  # byte lengths of the non-ASCII texts of recent contexts
_UTF8_HELD = [0]  # the characters _UTF8_LEN keeps alive (it is emptied past _UTF8_MAX)
_UTF8_MAX = 4_000_000


def _utf8_len(text: str) -> int:
    """``len(text.encode("utf-8"))``, remembered: the same texts come back on every call (a
    string keeps its hash, and a dict finds the very same string without comparing it)."""
    n = _UTF8_LEN.get(text)
    if n is None:
        if _UTF8_HELD[0] + len(text) > _UTF8_MAX:
            _UTF8_LEN.clear()
            _UTF8_HELD[0] = 0
        n = _UTF8_LEN[text] = len(text.encode("utf-8"))
        _UTF8_HELD[0] += len(text)
    return n


_TOOLS_SIZE: list[tuple[list[dict[str, Any]], int]] = []  # the last tool list measured (held, so its id stays its own)


def _tools_size(tools: list[dict[str, Any]]) -> int:
    """The tool schemas' JSON size in bytes; an agent offers the same list on every call of a
    turn, so it is measured once per list."""
    if not _TOOLS_SIZE or _TOOLS_SIZE[0][0] is not tools:
        _TOOLS_SIZE[:] = [(tools, len(json.dumps(tools, ensure_ascii=False).encode("utf-8")))]
    return _TOOLS_SIZE[0][1]


def _keep_ends(text: str, chars: int) -> str:
    """Keep the start and (mostly) the end of an over-long text."""
    if len(text) <= chars:
        return text
    head = chars * 3 // 10
    tail = chars - head
    return f"{text[:head]}\n\n[... {len(text) - chars} characters left out ...]\n\n{text[-tail:]}"
