"""Reading the final answer as strictly as the official grader does.

The official harness tries, in this order, and stops at the first step that yields a list:

1. when the text holds code fences: each fenced part (a leading ``json`` word dropped), parsed
   with ``json.loads`` — the first part that is a JSON array wins, even an empty one;
2. again over the non-empty fenced parts, with repair: curly double quotes become ``\\"``, curly
   single quotes ``\\'``, control characters other than newline, return and tab become spaces, then
   ``json.loads``; failing that, a regular expression picks out objects written exactly as
   ``{"head": "...", "relation": "...", "tail": "..."}`` (in that key order) — a non-empty result wins;
3. the whole text with ``json.loads``;
4. the text from the first ``[`` to the last ``]``: ``json.loads``, then the repair of step 2;
5. otherwise nothing.

Every dict in the list is kept, with each of its values turned into text (``None`` into ``""``),
so an object without ``head`` still counts as a prediction; anything that is not a dict is
dropped. Duplicates stay. Our own parser (``vibesearch.agents._triples``) recovers far more; under
the official profile what it found beyond the strict parse is recorded as a note, never scored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_OBJECT = re.compile(
    r'\{\s*"head"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"relation"\s*:\s*"((?:[^"\\]|\\.)*)"'
    r'\s*,\s*"tail"\s*:\s*"((?:[^"\\]|\\.)*)"\s*\}'
)
_CONTROL = re.compile(r"[\x00-\x1f]")

PredTriple = dict[str, str]


@dataclass
class StrictParse:
    """The predictions the official grader would score, and what the lenient parser added."""

    triples: list[PredTriple]
    step: str  # which step produced them ("fenced", "fenced-repaired", "whole", "brackets", ...)
    lenient_count: int | None = None  # triples our parser read from the same text (None: not given)
    lenient_only: list[PredTriple] = field(default_factory=list)  # read by ours, not by the strict parse

    def note(self) -> str:
        if self.lenient_count is None:
            return f"strict parse: {len(self.triples)} predictions ({self.step})"
        return (
            f"strict parse: {len(self.triples)} predictions ({self.step}); our parser would have read "
            f"{self.lenient_count}, {len(self.lenient_only)} of them not found by the strict parse (not scored)"
        )


def _as_list(text: str) -> list[Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) else None


def _repaired(text: str) -> list[Any] | None:
    fixed = text.replace("\u201c", '\\"').replace("\u201d", '\\"')
    fixed = fixed.replace("\u2018", "\\'").replace("\u2019", "\\'")
    fixed = _CONTROL.sub(lambda m: m.group() if m.group() in "\n\r\t" else " ", fixed)
    value = _as_list(fixed)
    if value is not None:
        return value
    found: list[Any] = [{"head": h, "relation": r, "tail": t} for h, r, t in _OBJECT.findall(text)]
    return found or None


def _fenced_parts(text: str) -> list[str]:
    parts = []
    for block in text.split("```"):
        block = block.strip()
        if block.startswith("json"):
            block = block[4:].strip()
        parts.append(block)
    return parts


def _texts(items: list[Any]) -> list[PredTriple]:
    return [{str(k): "" if v is None else str(v) for k, v in item.items()} for item in items if isinstance(item, dict)]


def strict_parse(text: str, lenient: Sequence[Mapping[str, Any]] | None = None) -> StrictParse:
    """Parse like the official grader; ``lenient`` (the run's stored graph as our parser read it)
    is compared with the result and recorded, never added."""
    triples, step = _strict(text or "")
    out = StrictParse(triples=triples, step=step)
    if lenient is not None:
        have = {_key(t) for t in triples}
        out.lenient_count = len(lenient)
        out.lenient_only = [
            {"head": str(t.get("head", "")), "relation": str(t.get("relation", "")), "tail": str(t.get("tail", ""))}
            for t in lenient
            if _key(t) not in have
        ]
    return out


def _key(t: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(t.get("head", "")).strip(), str(t.get("relation", "")).strip(), str(t.get("tail", "")).strip())


def _strict(raw: str) -> tuple[list[PredTriple], str]:
    text = raw.strip()
    if "```" in text:
        parts = _fenced_parts(text)
        for part in parts:
            value = _as_list(part)
            if value is not None:
                return _texts(value), "fenced"
        for part in parts:
            if not part:
                continue
            value = _repaired(part)
            if value:
                return _texts(value), "fenced-repaired"
    value = _as_list(text)
    if value is not None:
        return _texts(value), "whole"
    start, end = text.find("["), text.rfind("]")
    if start != -1 and end > start:
        inner = text[start : end + 1]
        value = _as_list(inner)
        if value is not None:
            return _texts(value), "brackets"
        value = _repaired(inner)
        if value:
            return _texts(value), "brackets-repaired"
    return [], "nothing parsed"
