"""The cheap bound on a context's tokens remembers non-ASCII byte lengths and tool-schema sizes
between calls; it must still equal the plain computation, also when texts and tools change."""

from __future__ import annotations

import json

from vibesearch.agents import compaction


def plain(messages, tools) -> int:
    size = 0
    for m in messages:
        content = m.get("content")
        size += len(content.encode("utf-8")) if isinstance(content, str) else 4 if content is None else len(json.dumps(content, ensure_ascii=False))
        for tc in m.get("tool_calls") or ():
            size += len(str(tc["function"]["arguments"]).encode("utf-8")) + 32
    if tools:
        size += len(json.dumps(tools, ensure_ascii=False).encode("utf-8"))
    return size // 2 + 8 * len(messages) + 16


def test_the_bound_is_the_plain_computation_across_calls(monkeypatch):
    monkeypatch.setattr(compaction, "_UTF8_MAX", 200)  # also across the cache being emptied
    tools = [{"type": "function", "function": {"name": "search", "description": "cherche — vite"}}]
    messages: list[dict] = [{"role": "user", "content": "plain words"}]
    for i in range(30):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "search", "arguments": json.dumps({"q": f"été {i}"})}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "résumé 中文 " * (i + 1)})
        messages.append({"role": "user", "content": [{"type": "text", "text": "ü"}]})
        assert compaction._token_ceiling(messages, tools) == plain(messages, tools)
        if i == 10:
            tools = tools + [{"type": "function", "function": {"name": "visit", "description": "ouvre"}}]
    messages[2] = {"role": "tool", "content": "ß" * 500}  # an edited context is measured anew
    assert compaction._token_ceiling(messages, tools) == plain(messages, tools)


def test_the_bound_measured_from_the_last_context_is_the_plain_computation():
    memo = compaction._Measured()
    tools = [{"type": "function", "function": {"name": "search", "description": "cherche"}}]
    messages: list[dict] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "plain words"}]
    for i in range(20):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "search", "arguments": json.dumps({"q": f"été {i}"})}}
        messages = [*map(dict, messages), {"role": "assistant", "content": None, "tool_calls": [call]}]  # copies, as agents build them
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "résumé 中文 " * (i + 1)})
        assert compaction._token_ceiling(messages, tools, memo) == plain(messages, tools)
    summarised = [messages[0], {"role": "user", "content": "[Summary] all of it"}, *messages[-2:]]  # a compaction
    assert compaction._token_ceiling(summarised, tools, memo) == plain(summarised, tools)
    edited = [*messages[:5], {"role": "tool", "content": "ß" * 500}, *messages[6:]]
    assert compaction._token_ceiling(edited, tools, memo) == plain(edited, tools)
    assert compaction._token_ceiling(messages[:3], None, memo) == plain(messages[:3], None)
