"""List-valued names: "Io, Europa, Ganymede and Callisto", "A; B", '["A", "B"]', "韩愈、柳宗元".

A value is read as a list when it has at least three items, or two items joined by a list
separator other than a lone comma or "and" ("A, B and C" splits its last "and"; "Trinidad and
Tobago" and "Johnson & Johnson" stay whole) (a lone comma is usually "City, Country", which rule 2's
containment handles). Inside a list, the ground-truth name must *equal* one item: "Lufthansa
Cargo" in a list does not state "Lufthansa".
"""

from __future__ import annotations

import re
from functools import lru_cache

_BRACKETS = re.compile(r"^\s*[\[{(（【]\s*(.*?)\s*[\]})）】]\s*$", re.S)
_STRONG = re.compile(r"\s*(?:;|；|、|\|)\s*")
_LAST_AND = re.compile(r"\s+(?:and|or)\s+")
_COMMA = re.compile(r"\s*(?:，|(?<!\d),|,(?!\d{3}))\s*")  # "5,150,000 m" is a number, not a list


@lru_cache(maxsize=65536)
def list_items(text: str) -> tuple[str, ...] | None:
    """The items of a list-valued name, or None when it is not a list."""
    raw = str(text).strip()
    bracketed = _BRACKETS.match(raw)
    body = bracketed.group(1) if bracketed else raw
    items: list[str] = []
    strong = False
    chunks = _COMMA.split(body)
    for n, chunk in enumerate(chunks):
        parts = _STRONG.split(chunk)
        strong = strong or len(parts) > 1
        if n == len(chunks) - 1 and len(chunks) >= 2 and len(parts) == 1:
            # "A, B and C": only the last item of a comma list may carry "and" ("Trinidad and Tobago" stays whole)
            parts = _LAST_AND.split(chunk)
        items.extend(parts)
    items = [i.strip().strip("\"'“”‘’").strip() for i in items]
    items = [i for i in items if i]
    if len(items) >= 3 or (len(items) == 2 and (strong or bracketed)):
        return tuple(items)
    return None
