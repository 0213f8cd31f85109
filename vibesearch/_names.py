"""The one rule for a person's name (an annotator, an adjudicator) wherever it comes in: a label
file, a meta-eval import's ``--annotator``, a campaign's ``--annotator`` and ``--by``, the app.

Labels are keyed by the name as stored, and the campaign rules compare names ("a disagreement is
resolved by a third person"), so " ann" and "ann" must never be two people. ``annotator_name``
therefore gives every name one form — surrounding whitespace dropped, each run of inner whitespace
one space, Unicode NFC — and refuses what cannot be a name on one line: nothing left, a line break,
a NUL or any other control character, an invisible format character (zero-width marks, bidi
controls: they would make two names look alike) and more than ``MAX_NAME_CHARS`` characters.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_NAME_CHARS = 200
# what splits text into lines (str.splitlines' list): a name spanning lines is refused, not joined
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


class PersonNameError(ValueError):
    """A name that cannot be taken; the message says why (one line, the value quoted short)."""


def _quote(value: str) -> str:
    text = value if len(value) <= 40 else value[:40] + "…"
    return repr(text)


def annotator_name(value: Any) -> str:
    """``value`` as a person's name in its one stored form, or ``PersonNameError`` saying why not."""
    if not isinstance(value, str):
        raise PersonNameError(f"expected a name (text), got {type(value).__name__}")
    if value.isascii() and value.isprintable() and 0 < len(value) <= MAX_NAME_CHARS and value == value.strip() and "  " not in value:
        return value  # already in its one form (printable ASCII excludes every control character)
    if any(ch in _LINE_BREAKS for ch in value):
        raise PersonNameError(f"{_quote(value)} spans several lines; a name is one line")
    if "\x00" in value:
        raise PersonNameError(f"{_quote(value)} holds a NUL character (\\u0000)")
    text = unicodedata.normalize("NFC", " ".join(value.split()))
    for ch in text:
        kind = unicodedata.category(ch)
        if kind in ("Cc", "Cs"):
            raise PersonNameError(f"{_quote(value)} holds the control character U+{ord(ch):04X}")
        if kind == "Cf":
            raise PersonNameError(f"{_quote(value)} holds the invisible character U+{ord(ch):04X}")
    if not text:
        raise PersonNameError("the name is empty" if not value else "the name is only whitespace")
    if len(text) > MAX_NAME_CHARS:
        raise PersonNameError(f"the name is longer than {MAX_NAME_CHARS} characters")
    return text
