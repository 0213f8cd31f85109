"""The offline judge: decides coverage without a model (rules 1 and 2 only).

A ground-truth triple (h, r, t) is covered by a predicted triple (h', r', t') when

* rule 1, same fact: h' equals h, t' equals t and r' carries r's meaning; or the same with head
  and tail swapped when exactly one relation is passive ("proved by" / "proved");
* rule 2, states more: as rule 1, but h' or t' *contains* the ground-truth name (a list of
  members containing this one, a fuller date, "Frankfurt am Main, Germany" for "Frankfurt").

"Equals" is decided in ``_matching`` (normalisation, aliases in parentheses, initials, unambiguous
surnames, dates, numbers and units, near-identical spellings). Joint coverage (rule 3) and
composition (rule 4) need understanding and are left to the LLM judge; so are translations
between languages. The offline judge is a transparent baseline, labelled "offline judge"
wherever its numbers are shown.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Sequence

from rapidfuzz import fuzz, process

from ._matching import (
    ENTITY_FUZZY,
    RELATION_MATCH,
    Context,
    Name,
    entity_relation,
    name_of,
    passive_flipped,
    relation_matches,
    relation_score,
)
from .verdicts import JudgeResult, Verdict

TripleText = tuple[str, str, str]


def as_text_triple(item: Any) -> TripleText:
    """(head, relation, tail) strings from a dict or an object with those attributes."""
    if isinstance(item, dict):
        return (str(item.get("head", "")), str(item.get("relation", "")), str(item.get("tail", "")))
    if isinstance(item, (tuple, list)) and len(item) == 3:
        return (str(item[0]), str(item[1]), str(item[2]))
    return (str(item.head), str(item.relation), str(item.tail))


class _EntityIndex:
    """Finds, for a ground-truth name, the predicted names it may equal or be contained in."""

    def __init__(self, names: Iterable[str], ctx: Context):
        self.ctx = ctx
        self.names = sorted(set(names))
        self.parsed = [name_of(n) for n in self.names]
        self.norms = [n.norm for n in self.parsed]
        self.joined = [" | ".join(n.aliases) for n in self.parsed]
        self.by_key: dict[tuple[str, Any], set[int]] = {}
        for i, n in enumerate(self.parsed):
            for alias in n.aliases:
                self._add(("alias", alias), i)
            if n.date is not None:
                self._add(("year", n.date[0]), i)
            if n.quantity is not None:
                self._add(("qty", n.quantity[0]), i)
            if n.acronym:
                self._add(("acronym", n.acronym), i)
            for ini in n.initials:
                self._add(("initials", ini), i)
            if n.is_person_like:
                self._add(("first-last", (n.tokens[0], n.tokens[-1])), i)
                self._add(("surname", n.tokens[-1]), i)
            if len(n.tokens) == 1:
                self._add(("single", n.tokens[0]), i)
        self._cache: dict[str, dict[str, str]] = {}

    def _add(self, key: tuple[str, Any], i: int) -> None:
        self.by_key.setdefault(key, set()).add(i)

    def _candidates(self, g: Name) -> set[int]:
        keys: list[tuple[str, Any]] = [("alias", a) for a in g.aliases]
        if g.date is not None:
            keys.append(("year", g.date[0]))
        if g.quantity is not None:
            keys.append(("qty", g.quantity[0]))
        if g.acronym:
            keys.append(("initials", g.acronym))
        keys.extend(("acronym", ini) for ini in g.initials)
        if g.is_person_like:
            keys.append(("first-last", (g.tokens[0], g.tokens[-1])))
            keys.append(("single", g.tokens[-1]))
        if len(g.tokens) == 1:
            keys.append(("surname", g.tokens[0]))
        found: set[int] = set()
        for key in keys:
            found |= self.by_key.get(key, set())
        if len(g.norm) >= 4:
            for _, _, i in process.extract(g.norm, self.norms, scorer=fuzz.ratio, score_cutoff=ENTITY_FUZZY, limit=None):
                found.add(i)
        for alias in g.aliases:
            if alias:
                found.update(i for i, text in enumerate(self.joined) if alias in text)
        return found

    def matches(self, gt_name: str) -> dict[str, str]:
        """Predicted name -> 'equal' | 'more' for every predicted name that matches."""
        cached = self._cache.get(gt_name)
        if cached is not None:
            return cached
        g = name_of(gt_name)
        out: dict[str, str] = {}
        for i in self._candidates(g):
            level = entity_relation(g, self.parsed[i], self.ctx)
            if level:
                out[self.names[i]] = level
        self._cache[gt_name] = out
        return out


class OfflineJudge:
    """Normalisation + fuzzy/lexical matching; see the module docstring for the rules."""

    name = "offline"

    def judge(self, gt: Sequence[Any], pred: Sequence[Any]) -> JudgeResult:
        start = time.perf_counter()
        gt_t = [as_text_triple(t) for t in gt]
        pred_t = [as_text_triple(t) for t in pred]
        all_names = [name_of(x) for tr in (*gt_t, *pred_t) for x in (tr[0], tr[2])]
        ctx = Context(all_names)
        index = _EntityIndex([x for tr in pred_t for x in (tr[0], tr[2])], ctx)
        by_head: dict[str, list[int]] = {}
        by_tail: dict[str, list[int]] = {}
        for i, (h, _, t) in enumerate(pred_t):
            by_head.setdefault(h, []).append(i)
            by_tail.setdefault(t, []).append(i)

        verdicts = []
        for gi, (h, r, t) in enumerate(gt_t):
            head_m, tail_m = index.matches(h), index.matches(t)
            found: dict[int, int] = {}  # predicted index -> rule
            for ph, head_level in head_m.items():
                if head_level != "equal":  # a longer head names another entity ("Air China" / "China")
                    continue
                for pi in by_head.get(ph, ()):
                    _, pr, pt = pred_t[pi]
                    tail_level = tail_m.get(pt)
                    if tail_level is None:
                        continue
                    if relation_matches(r, pr) or (
                        tail_level == "more" and relation_score(r, f"{pr} {pt}") >= RELATION_MATCH
                    ):
                        found[pi] = 1 if head_level == tail_level == "equal" else 2
            # the same fact written the other way round: (FLT, proved by, Wiles) / (Wiles, proved, FLT)
            for pt_name, head_level in head_m.items():
                for pi in by_tail.get(pt_name, ()):
                    ph, pr, _ = pred_t[pi]
                    tail_level = tail_m.get(ph)
                    if head_level != "equal" or not tail_level or pi in found:
                        continue
                    if passive_flipped(r, pr):
                        found[pi] = 1 if head_level == tail_level == "equal" else 2
            if found:
                rule = min(found.values())
                evidence = sorted(found)
                why = "same fact as" if rule == 1 else "states more in"
                verdicts.append(
                    Verdict(gt_index=gi, covered=True, rule=rule, evidence=evidence,
                            rationale=f"{why} predicted {', '.join(f'#{i}' for i in evidence[:5])}")
                )
            else:
                verdicts.append(Verdict(gt_index=gi, covered=False, rationale=_why_not(h, t, head_m, tail_m)))
        return JudgeResult(
            judge="offline",
            verdicts=verdicts,
            details={
                "judge_kind": "offline",
                "seconds": round(time.perf_counter() - start, 4),
                "thresholds": {"entity_fuzzy": ENTITY_FUZZY, "relation_match": RELATION_MATCH},
                "rules": [1, 2],
            },
        )


def _why_not(h: str, t: str, head_m: dict[str, str], tail_m: dict[str, str]) -> str:
    if not head_m and not tail_m:
        return "no predicted triple mentions its head or tail"
    if not head_m:
        return f"no predicted triple mentions {h!r}"
    if not tail_m:
        return f"no predicted triple about {h!r} states {t!r}"
    return "head and tail appear, but not linked by a matching relation"


def offline_covered(gt: Any, pred: Sequence[Any]) -> Verdict:
    """Judge a single ground-truth triple against a predicted graph (used by calibration)."""
    return OfflineJudge().judge([gt], pred).verdicts[0]


__all__ = ["OfflineJudge", "as_text_triple", "offline_covered"]
