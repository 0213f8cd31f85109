"""Checking one answer cell against its gold cell by the column's rule (everything but the judge
model lives here; ``llm`` columns without a judge use ``loose_match``).

Every check returns ``(right, note)``; the note says what was compared, so a wrong cell can be
explained without re-running anything. Empty answer cells are wrong unless the gold cell is
empty too. When the gold cell cannot be read the way the rule needs (no number, no date, no
domain), the cells are compared as normalised text instead, and the note says so.
"""

from __future__ import annotations

from .models import TableColumn
from ._normalise import norm_text, parse_dates, parse_number, url_domains


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def exact_match(pred: str, gold: str) -> tuple[bool, str]:
    p, g = norm_text(pred), norm_text(gold)
    return p == g, "" if p == g else "differs after normalisation"


def contains_match(pred: str, gold: str) -> tuple[bool, str]:
    p, g = norm_text(pred), norm_text(gold)
    if not p:
        return (not g), "empty answer"
    return p in g, "" if p in g else "the answer is not part of the gold value"


def loose_match(pred: str, gold: str) -> tuple[bool, str]:
    """Equal after normalisation, or one inside the other (the offline stand-in for a judge)."""
    p, g = norm_text(pred), norm_text(gold)
    if p == g:
        return True, ""
    if p and g and (p in g or g in p):
        return True, "one value contains the other"
    return False, "no normalised match"


def number_match(pred: str, gold: str, tolerance: float) -> tuple[bool, str]:
    t = parse_number(gold)
    if t is None:
        ok, _ = exact_match(pred, gold)
        return ok, "the gold cell holds no number; compared as text"
    r = parse_number(pred)
    if r is None:
        return False, "no number in the answer"
    ok = abs(r - t) <= abs(t) * tolerance + 1e-12 * max(1.0, abs(t))
    return ok, f"{_fmt(r)} vs {_fmt(t)} (tolerance {tolerance:g})"


def date_match(pred: str, gold: str, window_days: int) -> tuple[bool, str]:
    golds = parse_dates(gold)
    if not golds:
        ok, _ = exact_match(pred, gold)
        return ok, "the gold cell holds no date; compared as text"
    preds = parse_dates(pred)
    if not preds:
        return False, "no date in the answer"
    best = min(abs((p - g).days) for p in preds for g in golds)
    ok = best <= window_days
    return ok, f"{best} day(s) apart (window {window_days})"


def url_match(pred: str, gold: str) -> tuple[bool, str]:
    gd = url_domains(gold)
    if not gd:
        ok, _ = exact_match(pred, gold)
        return ok, "the gold cell holds no web address; compared as text"
    pd = url_domains(pred)
    if not pd:
        return False, "no web address in the answer"
    ok = pd == gd
    return ok, "" if ok else f"domains {sorted(pd)} vs {sorted(gd)}"


def check_cell(column: TableColumn, pred: str, gold: str) -> tuple[bool, str]:
    """Right or wrong by the column's rule, offline. ``llm`` columns get ``loose_match``."""
    pred = pred or ""
    gold = gold or ""
    if not norm_text(pred):
        return (not norm_text(gold)), "empty answer cell"
    metric = column.metric
    if metric == "number":
        return number_match(pred, gold, column.tolerance)
    if metric == "date":
        return date_match(pred, gold, column.window_days)
    if metric == "url":
        return url_match(pred, gold)
    if metric == "contains":
        return contains_match(pred, gold)
    if metric == "llm":
        return loose_match(pred, gold)
    return exact_match(pred, gold)
