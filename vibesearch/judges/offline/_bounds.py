"""Figures given as bounds, for the offline judge.

* ``parse_bound``: a figure said to be a lower or upper bound — "over 6 million", "more than
  100", "at least 3", "6,800,000+", "超过500", "500多", "500以上" (lower); "under 10", "less
  than 5", "fewer than", "up to", "不到", "少于", "以下" (upper).
* ``bound_states`` decides whether a predicted figure or bound says what a ground-truth bound
  says: a larger exact figure states "over N" (6,800,000 for "over 6 million"), a tighter bound
  states a looser one ("over 6.8 million" states "over 6 million"), and a bare figure is never
  stated by a bound ("over 6 million" does not state "6 million", nor "6.8 million").
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._normalize import base, parse_quantity

_LOWER = re.compile(r"^(?:over|more than|greater than|at least|in excess of|upwards of|exceeding|above|no fewer than|"
                    r"no less than|超过|逾|多于|高于|至少|不少于|不低于)\s*(.+)$")
_UPPER = re.compile(r"^(?:under|less than|fewer than|below|up to|at most|no more than|不到|少于|低于|不足|至多|不超过)\s*(.+)$")
_LOWER_AFTER = re.compile(r"^(.+?)\s*(?:\+|多|以上|余|or more|and above|and over|plus)$")
_UPPER_AFTER = re.compile(r"^(.+?)\s*(?:以下|or less|or fewer|and below|and under)$")

Bound = tuple[str, tuple[str, "str | None"]]  # (">" or "<", (number, unit))


@lru_cache(maxsize=65536)
def parse_bound(text: str) -> Bound | None:
    """('>', quantity) for "over 6 million" / "6,800,000+", ('<', quantity) for "under 10"; else None.
    Text in brackets after the figure ("(2024)") is left aside."""
    t = re.sub(r"\s*[(（][^()（）]*[)）]\s*$", "", base(text)).strip().rstrip(".")
    for pattern, op in ((_LOWER, ">"), (_UPPER, "<"), (_LOWER_AFTER, ">"), (_UPPER_AFTER, "<")):
        m = pattern.match(t)
        if m:
            q = parse_quantity(m.group(1))
            if q is not None:
                return op, q
    return None


def bound_states(gt: Bound, pred_value: tuple[str, str | None] | None, pred_bound: Bound | None) -> bool:
    """Does a predicted figure (or bound) say what the ground-truth bound says? Same unit, or
    one side without one."""
    op, (gv, gu) = gt
    if pred_bound is not None:
        pop, (pv, pu) = pred_bound
        if pop != op:
            return False
    elif pred_value is not None:
        pv, pu = pred_value
    else:
        return False
    if not (gu is None or pu is None or gu == pu):
        return False
    try:
        g, p = float(gv), float(pv)
    except ValueError:
        return False
    if pred_bound is not None:
        return p >= g if op == ">" else p <= g
    return p > g if op == ">" else p < g
