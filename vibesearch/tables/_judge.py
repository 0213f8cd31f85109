"""The judge model's three jobs in table scoring, each one ``complete_json`` call.

* ``map_headers`` - answer headers that did not match the schema after normalisation;
* ``map_keys`` - answer row keys that did not match a gold key (aliases, translations, spellings);
* ``grade_column`` - every undecided cell of one ``llm`` column, in one batched call.

Replies are read leniently (extra fields ignored) and then checked: a mapping may only name
headers/keys that exist, each target once. Callers catch failures and fall back to offline rules.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..config import Settings
from ..llm import complete_json
from ..run.config import default_sampling


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Pair(_Lenient):
    answer: str
    gold: str | None = None


class _Pairs(_Lenient):
    pairs: list[_Pair] = []


class _Verdict(_Lenient):
    id: int
    right: bool | None = None
    score: float | None = None
    reason: str = ""

    def is_right(self) -> bool | None:
        if self.right is not None:
            return self.right
        if self.score is not None:
            return self.score >= 0.5
        return None


class _Verdicts(_Lenient):
    verdicts: list[_Verdict] = []


_HEADER_PROMPT = """You compare the header of a table an assistant wrote with the columns a task asked for.
Pair each written header with the requested column it stands for: the same column under another
wording, another language, a different case, an added unit or a small typo counts as the same.
A written header that stands for none of the requested columns gets "gold": null. Use each
requested column at most once, and copy both names exactly as given.

Reply with one JSON object only:
{"pairs": [{"answer": "<written header>", "gold": "<requested column or null>"}]}"""

_KEY_PROMPT = """You line up the rows of an assistant's table with the rows of a reference table.
Each row is named by its key (for several key columns, the cells are joined with " | ").
Pair an answer key with a reference key only when both name the same entity: another spelling,
an alias, a translation, an abbreviation or extra qualifiers are fine; a merely similar or
related entity is not. An answer key with no counterpart gets "gold": null. Use each reference
key at most once, and copy both keys exactly as given.

Reply with one JSON object only:
{"pairs": [{"answer": "<answer key>", "gold": "<reference key or null>"}]}"""

_GRADE_PROMPT = """You grade the cells of one column of an assistant's table against the reference values.
Apply this grading rule to every item:
{rule}

Judge each item on its own: right when the answer satisfies the rule for its reference value,
wrong otherwise (an empty or evasive answer is wrong).

Reply with one JSON object only, one verdict per item id:
{{"verdicts": [{{"id": <id>, "right": true or false, "reason": "<a few words>"}}]}}"""


async def _ask(system: str, user: dict[str, Any], schema: type[BaseModel], *, model: str, settings: Settings):
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(user, ensure_ascii=False, indent=1)},
    ]
    parsed, _ = await complete_json(messages, schema, model=model, purpose="judge", settings=settings,
                                 sampling=default_sampling(settings))
    return parsed


def _one_to_one(pairs: list[_Pair], answers: list[str], golds: list[str]) -> dict[str, str]:
    allowed_a, allowed_g = set(answers), set(golds)
    out: dict[str, str] = {}
    used: set[str] = set()
    for p in pairs:
        if p.gold is None or p.answer not in allowed_a or p.gold not in allowed_g:
            continue
        if p.answer in out or p.gold in used:
            continue
        out[p.answer] = p.gold
        used.add(p.gold)
    return out


async def map_headers(written: list[str], requested: list[str], *, model: str, settings: Settings) -> dict[str, str]:
    reply = await _ask(
        _HEADER_PROMPT,
        {"written_headers": written, "requested_columns": requested},
        _Pairs,
        model=model,
        settings=settings,
    )
    return _one_to_one(reply.pairs, written, requested)


async def map_keys(answer_keys: list[str], gold_keys: list[str], *, model: str, settings: Settings) -> dict[str, str]:
    reply = await _ask(
        _KEY_PROMPT,
        {"answer_keys": answer_keys, "reference_keys": gold_keys},
        _Pairs,
        model=model,
        settings=settings,
    )
    return _one_to_one(reply.pairs, answer_keys, gold_keys)


async def grade_column(
    column: str, rule: str, items: list[tuple[int, str, str]], *, model: str, settings: Settings
) -> dict[int, tuple[bool, str]]:
    """``items`` are ``(id, answer, reference)``; returns the verdicts the model gave, by id."""
    reply = await _ask(
        _GRADE_PROMPT.format(rule=rule),
        {"column": column, "items": [{"id": i, "answer": a, "reference": r} for i, a, r in items]},
        _Verdicts,
        model=model,
        settings=settings,
    )
    ids = {i for i, _, _ in items}
    out: dict[int, tuple[bool, str]] = {}
    for v in reply.verdicts:
        right = v.is_right()
        if v.id in ids and v.id not in out and right is not None:
            out[v.id] = (right, v.reason)
    return out
