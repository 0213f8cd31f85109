"""Reading a knowledge graph out of whatever a model wrote.

Models asked for "only a JSON array of triples" still wrap it in code fences, put prose around
it, leave trailing commas, use single quotes, forget commas or colons, stop mid-array, wrap the
array in an object, use other key names or write numbers as tails. ``parse_triples`` accepts all
of that, keeps every triple it can validate, and records what it repaired and what it dropped
(with the reason) so a zero score caused by formatting can be told apart from a bad answer.
It never raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..run.protocols import GraphResult

MAX_INPUT_CHARS = 500_000
MAX_FIELD_CHARS = 2_000

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|\Z)", re.S | re.I)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)

# accepted spellings of the three fields (compared after lower-casing and dropping - _ and spaces)
_KEYS = {
    "head": ("head", "subject", "h", "s", "source", "headentity", "entity", "from", "entity1", "subj", "主体", "头实体"),
    "relation": ("relation", "predicate", "r", "p", "rel", "relationship", "property", "edge", "attribute", "pred", "关系"),
    "tail": ("tail", "object", "t", "o", "target", "tailentity", "value", "to", "entity2", "obj", "尾实体", "客体"),
}
_WRAPPER_KEYS = ("triples", "graph", "knowledgegraph", "kg", "edges", "relations", "facts", "data", "results", "items", "output", "answer")


def _norm_key(key: Any) -> str:
    return re.sub(r"[\s_\-]", "", str(key).lower())


class _Log:
    def __init__(self) -> None:
        self.repaired: list[str] = []
        self.dropped: list[dict[str, Any]] = []

    def repair(self, note: str) -> None:
        if note not in self.repaired:
            self.repaired.append(note)

    def drop(self, index: int | None, item: Any, reason: str) -> None:
        try:
            shown = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, default=str)
        except Exception:  # noqa: BLE001 - only for display
            shown = repr(item)
        if len(shown) > 300:
            shown = shown[:300] + "…"
        self.dropped.append({"index": index, "item": shown, "reason": reason})


def parse_triples(text: str | None) -> GraphResult:
    """Parse model output into ``{head, relation, tail}`` triples (see the module docstring)."""
    raw = text if isinstance(text, str) else ("" if text is None else str(text))
    log = _Log()
    try:
        triples = _parse(raw, log)
    except Exception as exc:  # noqa: BLE001 - the parser must never take a run down
        log.drop(None, raw[:300], f"parser error: {type(exc).__name__}: {exc}")
        triples = []
    return GraphResult(triples=triples, raw_text=raw, repaired=log.repaired, dropped=log.dropped)


# ------------------------------------------------------------------------------- locating JSON
def _parse(raw: str, log: _Log) -> list[dict[str, str]]:
    body = raw
    if len(body) > MAX_INPUT_CHARS:
        body = body[:MAX_INPUT_CHARS]
        log.repair(f"cut the output to its first {MAX_INPUT_CHARS} characters")
    if _THINK.search(body):
        body = _THINK.sub("", body)
        log.repair("removed a reasoning block")
    if not body.strip():
        log.drop(None, raw[:300], "the output is empty")
        return []

    fenced = [m.group(1) for m in _FENCE.finditer(body)]
    if fenced:
        chosen = next((f for f in fenced if "[" in f or "{" in f), None)
        if chosen is not None:
            log.repair("removed code fence")
            body = chosen

    start = _json_start(body)
    if start is None:
        log.drop(None, body.strip()[:300], "no JSON array or object found in the output")
        return []
    obj, end = _load(body, start, log)
    if isinstance(obj, dict) and _field_keys(obj):
        obj, end = _more_objects(body, obj, end, log)
    if body[:start].strip() or body[end:].strip():
        log.repair("removed text around the JSON")
    return _to_triples(obj, log)


def _json_start(text: str) -> int | None:
    """Index of the first bracket that plausibly opens JSON (skips prose like "[1]" or "[sic]")."""
    loose = None
    for m in re.finditer(r"[\[{]", text):
        i = m.start()
        rest = text[i + 1 : i + 40].lstrip()
        nxt = rest[:1]
        if loose is None:
            loose = i
        if m.group() == "[" and (nxt in ("{", "[", "]", '"', "'") or nxt == ""):
            return i
        if m.group() == "{" and (nxt in ('"', "'", "}", "") or re.match(r"[A-Za-z_\u4e00-\u9fff]+\s*:", rest)):
            return i
    return loose


def _load(text: str, start: int, log: _Log) -> tuple[Any, int]:
    """Decode JSON at ``start``; repair it when strict decoding fails. Returns (object, end)."""
    try:
        obj, end = json.JSONDecoder().raw_decode(text, start)
        return obj, end
    except ValueError:
        pass
    end, closed = _balanced_end(text, start)
    candidate = text[start:end]
    from json_repair import repair_json

    obj = repair_json(candidate, return_objects=True)
    log.repair("json repaired")
    if not closed:
        log.repair("closed a truncated array")
    return obj, end


def _more_objects(text: str, first: dict, end: int, log: _Log) -> tuple[Any, int]:
    """Triple objects written one after another without an array (JSON lines): gather them."""
    found = [first]
    while True:
        m = re.compile(r"[\s,]*").match(text, end)
        nxt = m.end() if m else end
        if nxt >= len(text) or text[nxt] != "{":
            break
        obj, new_end = _load(text, nxt, log)
        if not isinstance(obj, dict) or new_end <= nxt:
            break
        found.append(obj)
        end = new_end
    if len(found) > 1:
        log.repair("gathered several top-level objects into a list")
        return found, end
    return first, end


def _balanced_end(text: str, start: int) -> tuple[int, bool]:
    """End of the bracketed value opened at ``start`` (string-aware) and whether it closes;
    (len(text), False) when the output stops before the value is closed."""
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote or ch == "\n":
                quote = None
            continue
        if ch == '"':
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1, True
    return len(text), False


# ------------------------------------------------------------------------------- structure
def _to_triples(obj: Any, log: _Log) -> list[dict[str, str]]:
    items = _items(obj, log, depth=0)
    if items is None:
        log.drop(None, obj, f"expected a JSON array of triples, got {_kind(obj)}")
        return []
    out: list[dict[str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for index, item in enumerate(items):
        for triple in _triples_of(index, item, log):
            key = (triple["head"].casefold(), triple["relation"].casefold(), triple["tail"].casefold())
            if key in seen:
                log.drop(index, triple, "duplicate of an earlier triple")
                continue
            seen.add(key)
            out.append(triple)
    return out


def _kind(obj: Any) -> str:
    if obj is None:
        return "null"
    if isinstance(obj, str):
        return "text" if obj else "nothing"
    return type(obj).__name__


def _items(obj: Any, log: _Log, depth: int) -> list[Any] | None:
    if isinstance(obj, list):
        flat: list[Any] = []
        for item in obj:
            if isinstance(item, list) and item and all(isinstance(x, (dict, list)) for x in item):
                log.repair("flattened a nested list")
                flat.extend(item)
            else:
                flat.append(item)
        return flat
    if isinstance(obj, dict) and depth < 3:
        if _field_keys(obj):
            log.repair("wrapped a single triple object in a list")
            return [obj]
        by_norm = {_norm_key(k): k for k in obj}
        ordered = [by_norm[w] for w in _WRAPPER_KEYS if w in by_norm]
        ordered += [k for k in obj if k not in ordered]
        for key in ordered:
            value = obj[key]
            if isinstance(value, (list, dict)) and value:
                inner = _items(value, log, depth + 1)
                if inner is not None:
                    log.repair(f"unwrapped object (key {key!r})")
                    return inner
    return None


def _field_keys(item: dict) -> dict[str, Any] | None:
    """Map a dict's keys onto head/relation/tail; None unless all three are present."""
    norm = {_norm_key(k): k for k in item}
    found: dict[str, Any] = {}
    for field, names in _KEYS.items():
        for name in names:
            if name in norm:
                found[field] = norm[name]
                break
    return found if len(found) == 3 else None


def _triples_of(index: int, item: Any, log: _Log) -> list[dict[str, str]]:
    if isinstance(item, list):
        if len(item) == 3 and all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in item):
            log.repair("read [head, relation, tail] lists as triples")
            item = {"head": item[0], "relation": item[1], "tail": item[2]}
        else:
            log.drop(index, item, "a list item that is not [head, relation, tail]")
            return []
    if not isinstance(item, dict):
        log.drop(index, item, f"not a triple object ({_kind(item)})")
        return []
    keys = _field_keys(item)
    if keys is None:
        missing = [f for f, names in _KEYS.items() if not any(n in {_norm_key(k) for k in item} for n in names)]
        log.drop(index, item, f"missing {', '.join(missing)}")
        return []
    if any(keys[f] != f for f in keys):
        log.repair("renamed keys to head/relation/tail")
    extra = set(item) - set(keys.values())
    if extra:
        log.repair("ignored extra keys")

    texts: dict[str, str] = {}
    tails: list[str] = []
    for field, key in keys.items():
        value, problem = _text_value(item[key], allow_list=field == "tail", log=log)
        if problem:
            log.drop(index, item, f"{field} {problem}")
            return []
        if isinstance(value, list):  # only the tail may be a list
            tails = value
        elif field == "tail":
            tails = [value]
        else:
            texts[field] = value
    if len(tails) > 1:
        log.repair("split a list tail into one triple per value")
    return [{"head": texts["head"], "relation": texts["relation"], "tail": t} for t in tails]


def _text_value(value: Any, *, allow_list: bool, log: _Log) -> tuple[str | list[str], str | None]:
    """A field as text, or (_, problem)."""
    if isinstance(value, bool):
        log.repair("converted non-string values to text")
        return ("true" if value else "false"), None
    if isinstance(value, (int, float)):
        log.repair("converted non-string values to text")
        text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        return text, None
    if value is None:
        return "", "is missing (null)"
    if isinstance(value, list):
        if not allow_list:
            return "", "is a list, not text"
        parts: list[str] = []
        for v in value:
            t, problem = _text_value(v, allow_list=False, log=log)
            if problem or not isinstance(t, str) or not t:
                return "", "is a list holding something other than text"
            parts.append(t)
        if not parts:
            return "", "is an empty list"
        return (parts if len(parts) > 1 else parts[0]), None
    if isinstance(value, dict):
        return "", "is an object, not text"
    text = str(value).strip()
    if not text:
        return "", "is empty"
    if len(text) > MAX_FIELD_CHARS:
        return "", f"is longer than {MAX_FIELD_CHARS} characters"
    return text, None
