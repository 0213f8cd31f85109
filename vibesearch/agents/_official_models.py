"""What the official agent does differently for some model families, matched on the model's name
as the official harness matches it (case-insensitive substrings; ``agent/general_agent.py``):

* ``deepseek``: thinking switched on in the request body and the highest reasoning effort; every
  assistant message sent back carries ``reasoning_content`` (empty when the step had none);
* ``kimi``: thinking and the highest effort asked through the chat template's arguments;
* ``qwen``: tool calls a reply wrote as text tags (in its reasoning or its content) instead of
  native calls are read back and run; text that holds such tags but cannot be read is no answer.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..llm import ToolCall
from ..protocol.rules import family_reasoning_effort


@dataclass(frozen=True)
class ModelRules:
    extra_body: dict[str, Any] = field(default_factory=dict)
    reasoning_effort: str | None = None
    require_reasoning: bool = False  # every assistant message sent back carries reasoning_content
    recovers_tag_calls: bool = False

    def call_kwargs(self) -> dict[str, Any]:
        """What every agent call of this model adds to the request (compaction and extraction too)."""
        out: dict[str, Any] = {}
        if self.extra_body:
            out["extra_body"] = self.extra_body
        if self.reasoning_effort:
            out["reasoning_effort"] = self.reasoning_effort
        return out


def rules_for(model: str) -> ModelRules:
    name = model.lower()
    if "deepseek" in name:
        return ModelRules(extra_body={"thinking": {"type": "enabled"}}, reasoning_effort=family_reasoning_effort(model), require_reasoning=True)
    if "kimi" in name:
        return ModelRules(extra_body={"chat_template_kwargs": {"thinking": True, "reasoning_effort": "max"}})
    return ModelRules(recovers_tag_calls="qwen" in name)


_TAGS = ("<tool_call>", "<function=", "<parameter=")
_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_FUNCTION = re.compile(r"<function=(\w+)>(.*?)(?:</function>|$)", re.S)
_PARAMETER = re.compile(r"<parameter=(\w+)>\s*(.*?)\s*</parameter>", re.S)


def has_call_tags(rules: ModelRules, text: str) -> bool:
    """Text in which this model wrote tool-call tags (so it is not an answer)."""
    return rules.recovers_tag_calls and any(tag in text for tag in _TAGS)


def recover_calls(rules: ModelRules, reasoning: str | None, content: str) -> list[ToolCall]:
    """Tool calls written as tags, read from the reasoning first, then the content ([] when none)."""
    if not rules.recovers_tag_calls:
        return []
    for source in (reasoning or "", content):
        calls = _parse_tags(source)
        if calls:
            return calls
    return []


def _parse_tags(text: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for block in _BLOCK.findall(text):
        for name, body in _FUNCTION.findall(block):
            params = {key: _value(raw) for key, raw in _PARAMETER.findall(body)}
            calls.append(ToolCall(id=f"recovered_{uuid.uuid4().hex[:8]}", name=name, arguments=params))
    return calls


def _value(raw: str) -> Any:
    """A parameter's text as the official reader types it: a whole number, a number, JSON for a
    list or an object, else the text."""
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    if raw[:1] in ("[", "{"):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
