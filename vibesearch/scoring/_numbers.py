"""Numbers written in words, and figures given as bounds, for the offline judge.

* ``spell_out``: English number words at the start of a value become digits — "nine symphonies"
  is "9 symphonies", "twenty-one" 21, "three hundred and twelve" 312, "two million" "2 million"
  (read by the magnitude words of ``_normalize``), "a dozen" 12, "a million" "1 million". A
  capitalised word after the number is a name ("Seven Sisters", "One World Trade Center") and the
  text stays as written.
* ``parse_bound``: a figure said to be a lower or upper bound — "over 6 million", "more than
  100", "at least 3", "6,800,000+", "超过500", "500多", "500以上" (lower); "under 10", "less
  than 5", "fewer than", "up to", "不到", "少于", "以下" (upper). ``bound_states`` decides whether
  a predicted figure or bound says what a ground-truth bound says: a larger exact figure states
  "over N" (6,800,000 for "over 6 million"), a tighter bound states a looser one ("over 6.8
  million" states "over 6 million"), and a bare figure is never stated by a bound ("over 6
  million" does not state "6 million", nor "6.8 million").
"""

from __future__ import annotations

import re
from functools import lru_cache

_UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
               "ninety": 90}
_SCALE_WORDS = {"hundred": 100, "thousand": 1000}
_BIG = ("million", "billion", "trillion")  # left as words: ``canon_numbers`` multiplies them
_WORD = "|".join(sorted([*_UNITS_WORDS, *_TENS_WORDS, *_SCALE_WORDS, "a", "an", "and", "dozen"], key=len, reverse=True))
_LEADING_WORDS = re.compile(r"^((?:(?:" + _WORD + r")(?:[\s-]+|$))+)", re.I)


def _words_value(words: list[str]) -> int | None:
    """The value of number words ("three hundred and twelve" -> 312), None when they are not one."""
    total, current, seen = 0, 0, False
    for i, w in enumerate(words):
        if w in ("a", "an"):
            if i != 0:
                return None
            current, seen = 1, True
            continue
        if w == "and":
            if not seen:
                return None
            continue
        if w == "dozen":
            current = (current or 1) * 12
        elif w in _UNITS_WORDS:
            if current % 10 or (current and current < 20 and current % 100):
                return None  # "five six"
            current += _UNITS_WORDS[w]
        elif w in _TENS_WORDS:
            if current % 100:
                return None
            current += _TENS_WORDS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w == "thousand":
            total += (current or 1) * 1000
            current = 0
        seen = True
    return total + current if seen else None


@lru_cache(maxsize=65536)
def spell_out(raw: str) -> str:
    """``raw`` in lower case with its leading number words as digits ("nine symphonies" -> "9
    symphonies"); lower-cased but otherwise unchanged when there are none, when they do not make
    one number, or when a later word is capitalised (a name: "Seven Sisters")."""
    text = raw.lower()
    m = _LEADING_WORDS.match(text)
    if not m or any(w[:1].isupper() for w in raw.split()[1:]):
        return text
    words = [w for w in re.split(r"[\s-]+", m.group(1).strip()) if w]
    rest = text[m.end():].strip()
    if words[-1] in ("a", "an", "and") and not (len(words) == 1 and rest.startswith(_BIG)):
        return text  # "one and a half", "a dog": not read; "a million" is a number
    value = _words_value(words)
    if value is None:
        return text
    return f"{value} {rest}".strip()


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
    from ._normalize import base, parse_quantity

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
