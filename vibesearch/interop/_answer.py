"""Reading the triples out of a final answer text, even a cut or malformed one."""

from __future__ import annotations

import json
import re
from typing import Any

_CUT_MARKERS = (re.compile(r"⟪…condensed"), re.compile(r"…\s*\[\d+ chars truncated\]"))
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def is_cut(text: str) -> bool:
    return any(p.search(text or "") for p in _CUT_MARKERS)


def _as_triple(obj: Any) -> dict[str, str] | None:
    if not isinstance(obj, dict):
        return None
    parts = [obj.get(k) for k in ("head", "relation", "tail")]
    if any(p is None or isinstance(p, (dict, list)) for p in parts):
        return None
    text = [str(p).strip() for p in parts]
    if not all(text):
        return None
    return {"head": text[0], "relation": text[1], "tail": text[2]}


def parse_triples(text: str) -> tuple[list[dict[str, str]], list[str], list[dict[str, Any]]]:
    """(triples, what was repaired, what was dropped) from an answer that should be a JSON array.

    The whole text is parsed with json-repair; the ``{...}`` objects in it are also parsed one by
    one (this survives a cut in the middle of the array); the reading with more triples wins.
    """
    from json_repair import repair_json

    repaired: list[str] = []
    dropped: list[dict[str, Any]] = []
    body = text or ""
    fenced = re.search(r"```(?:json)?\s*(.*?)(?:```|$)", body, re.S)
    if fenced:
        body = fenced.group(1)
    whole: list[dict[str, str]] = []
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, ValueError):
        data = repair_json(body, return_objects=True)
        repaired.append("the answer was not valid JSON; read with json-repair")
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, list):
        for item in data:
            t = _as_triple(item)
            if t is not None:
                whole.append(t)
            elif item not in ("", None):
                dropped.append({"item": item if isinstance(item, (dict, str, int, float)) else str(item), "reason": "not a {head, relation, tail} object"})
    pieces: list[dict[str, str]] = []
    for m in _OBJECT.finditer(text or ""):
        try:
            obj = json.loads(m.group(0))
        except json.JSONDecodeError:
            obj = repair_json(m.group(0), return_objects=True)
        t = _as_triple(obj)
        if t is not None:
            pieces.append(t)
    if len(pieces) > len(whole):
        repaired.append(f"read {len(pieces)} triple objects one by one (the array as a whole gave {len(whole)})")
        return pieces, repaired, [d for d in dropped if not isinstance(d.get("item"), dict)]
    return whole, repaired, dropped
