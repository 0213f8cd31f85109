"""Context compaction (SPEC 4.2).

Before every LLM call the agent measures its context. When it is over the threshold — the run's
``limits.compaction_tokens`` when its profile fixes one, else ``limits.compaction_threshold``
times the context window, where the window is the model's (from litellm's map) or
``limits.context_window``, whichever is smaller — the model is asked to summarise the research
and the conversation so far. A ``compaction`` event records the token counts and the summary; from
then on the ``Conversation`` shows the summary in place of what it replaced
(``Conversation.agent_messages``), so the agent continues from system prompt + summary.

An agent with other compaction rules subclasses ``Compactor``: ``summarise`` (how the summary is
asked) and ``context`` (how the summary stands in the agent's context); the official agent's is
``official.OfficialCompactor``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, Mapping

from ..config import Settings
from ..llm import complete, context_window, count_tokens
from ..run.config import Limits
from ..run.conversation import Conversation
from ..run.events import CompactionEvent, Emit
from ._context import transcript
from .prompts import COMPACTION_PROMPT, COMPACTION_TRANSCRIPT_HEADER

# tool results are shortened step by step until the text to summarise fits the window
_TOOL_CAPS: tuple[int | None, ...] = (None, 4000, 1500, 500, 150)


def window_for(model: str, limits: Limits) -> int:
    """The context window used for ``model``: its own, or the run's when smaller."""
    return min(context_window(model, limits.context_window), limits.context_window)


def threshold_for(model: str, limits: Limits) -> int:
    """Prompt tokens above which the context is compacted."""
    if limits.compaction_tokens is not None:
        return limits.compaction_tokens
    return int(window_for(model, limits) * (limits.compaction_threshold if limits.compaction_threshold is not None else 0.8))


@dataclass
class Compactor:
    """Measures an agent's context and compacts it when it is over the threshold.

    ``settings`` gives the process facts of the summary call (retries, timeouts); the limits are
    the run's."""

    model: str
    settings: Settings
    system_prompt: str
    limits: Limits = field(default_factory=Limits)
    sampling: Mapping[str, float | int | str] | None = None  # the summary call's (None: the provider's)
    _measured: _Measured = field(default_factory=lambda: _Measured(), init=False, repr=False, compare=False)

    @property
    def window(self) -> int:
        return window_for(self.model, self.limits)

    @property
    def threshold(self) -> int:
        return threshold_for(self.model, self.limits)

    def count(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
        return count_tokens(messages, self.model, tools)

    def context(self, convo: Conversation) -> list[dict[str, Any]]:
        """The agent's working context after its system prompt (a summary standing in for what
        it replaced)."""
        return convo.agent_messages()

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
        context = self.context(convo)
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
        return result.content.strip() or asked_so_far(convo)


def asked_so_far(convo: Conversation) -> str:
    """The summary when the model returned none: at least what the user asked for."""
    asked = [t.user for t in convo.turns if t.user]
    return "The user's messages so far:\n" + "\n".join(f"- {u}" for u in asked)


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


_TOOLS_KEPT = 1024
_TOOLS_SIZE: dict[int, tuple[list[dict[str, Any]], int]] = {}  # id → the list (held, so its id stays its own), its size


def _tools_size(tools: list[dict[str, Any]]) -> int:
    """The tool schemas' JSON size in bytes; an agent offers the same list on every call of a
    turn, so it is measured once per list, for the last ``_TOOLS_KEPT`` lists (each run of a
    batch has its own: with one list remembered, 200 runs on one loop measured on every call,
    7% of the process's time)."""
    held = _TOOLS_SIZE.get(id(tools))
    if held is not None and held[0] is tools:
        return held[1]
    size = len(json.dumps(tools, ensure_ascii=False).encode("utf-8"))
    if len(_TOOLS_SIZE) >= _TOOLS_KEPT:
        try:
            del _TOOLS_SIZE[next(iter(_TOOLS_SIZE))]  # the oldest
        except (KeyError, RuntimeError, StopIteration):  # another thread's loop evicted at the same moment
            pass
    _TOOLS_SIZE[id(tools)] = (tools, size)  # the list is held, so its id is not another list's meanwhile
    return size


def _keep_ends(text: str, chars: int) -> str:
    """Keep the start and (mostly) the end of an over-long text."""
    if len(text) <= chars:
        return text
    head = chars * 3 // 10
    tail = chars - head
    return f"{text[:head]}\n\n[... {len(text) - chars} characters left out ...]\n\n{text[-tail:]}"
