"""Numbers written in words, for the offline judge.

* ``spell_out``: English number words at the start of a value become digits — "nine symphonies"
  is "9 symphonies", "twenty-one" 21, "three hundred and twelve" 312, "two million" "2 million"
  (read by the magnitude words of ``_normalize``), "a dozen" 12, "a million" "1 million". A
  capitalised word after the number is a name ("Seven Sisters", "One World Trade Center") and the
  text stays as written.

Figures given as bounds ("over 6 million") are read in ``_bounds``.
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
