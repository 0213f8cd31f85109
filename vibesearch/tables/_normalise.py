"""Reading cell text as strings, numbers, dates and web domains.

Dates (``parse_dates``) accept ISO forms (``1997-05-14``, ``1997/5/14``, ``1997-05``), English
month names (``May 14, 1997``, ``14 May 1997``, ``14th of May 1997``, ``May 1997``), Chinese
(``1997年5月14日``, ``1997年5月``, ``1997年``), numeric day/month forms and a bare year. Missing
parts default to the first day (``1997-05`` is 1 May 1997, ``1997`` is 1 January 1997).

Ambiguity rule for numeric ``a/b/yyyy`` dates: when one of ``a``/``b`` is above 12 only one reading
is possible; with dots (``14.05.1997``) the European day-first reading is used; otherwise
(``05/06/1997``, also with ``-``) *both* readings are kept, and a cell is right when any reading
of the answer lies within the window of any reading of the gold value.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..tasks.table import nfkc, norm_header, norm_text

# --------------------------------------------------------------------- strings
# one rule for text and headers, defined with the table model (keys and headers use it there)
__all__ = ["nfkc", "norm_header", "norm_text", "parse_dates", "parse_number", "url_domains"]


# --------------------------------------------------------------------- numbers
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f\u2009'](?=\d{3}(?!\d))")
_NUMBER = re.compile(r"(?:(?<![0-9A-Za-z])[-+])?(?:\d+(?:\.\d*)?|\.\d+)")
_SCALE = [
    (re.compile(r"^\s*(?:%|percent\b|per\s*cent\b)", re.I), 0.01),
    (re.compile(r"^\s*(?:thousand\b|千)", re.I), 1e3),
    (re.compile(r"^\s*(?:million\b|百万)", re.I), 1e6),
    (re.compile(r"^\s*(?:billion\b|十亿)", re.I), 1e9),
    (re.compile(r"^\s*(?:trillion\b|万亿)", re.I), 1e12),
    (re.compile(r"^\s*万"), 1e4),
    (re.compile(r"^\s*亿"), 1e8),
]


def parse_number(value: Any) -> float | None:
    """The first number of a cell, or None.

    Thousands separators (``1,234,567``) are removed, a percentage becomes a fraction (``12.5%`` is
    0.125), the scale words thousand/million/billion/trillion and 千/万/亿 multiply, and any other
    unit is ignored (``3,643 km`` is 3643).
    """
    text = nfkc(value).replace("\u2212", "-")
    while True:
        stripped = _THOUSANDS.sub("", text)
        if stripped == text:
            break
        text = stripped
    m = _NUMBER.search(text)
    if m is None:
        return None
    try:
        number = float(m.group())
    except ValueError:
        return None
    rest = text[m.end():]
    for pattern, factor in _SCALE:
        if pattern.match(rest):
            number *= factor
            break
    return number


# --------------------------------------------------------------------- dates
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{3,4})"

_DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("zh", re.compile(r"(?P<year>\d{1,4})\s*年(?:\s*(?P<month>\d{1,2})\s*月(?:\s*(?P<day>\d{1,2})\s*[日号])?)?")),
    ("ymd", re.compile(r"(?<!\d)(?P<year>\d{4})[-/.](?P<month>\d{1,2})[-/.](?P<day>\d{1,2})(?!\d)")),
    ("num", re.compile(r"(?<!\d)(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4})(?!\d)")),
    ("ym", re.compile(r"(?<!\d)(?P<year>\d{4})[-/.](?P<month>\d{1,2})(?![\d])")),
    ("mdy", re.compile(_MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + r"(?!\d)", re.I)),
    ("dmy", re.compile(r"(?<!\d)" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"(?!\d)", re.I)),
    ("my", re.compile(r"(?<![a-z])" + _MONTH + r",?\s+" + _YEAR + r"(?!\d)", re.I)),
    ("y", re.compile(r"(?<!\d)(?P<year>\d{3,4})(?!\d)")),
]


def _make(year: int, month: int = 1, day: int = 1) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def parse_dates(value: Any) -> list[dt.date]:
    """Every reading of the first date in a cell (usually one; two for an ambiguous a/b/yyyy)."""
    text = nfkc(value)
    # a time of day after an ISO date is dropped first
    text = re.sub(r"(?<=\d)T\d{1,2}:\d{2}.*$", "", text.strip())
    for kind, pattern in _DATE_PATTERNS:
        m = pattern.search(text)
        if m is None:
            continue
        g = m.groupdict()
        year = int(g["year"])
        if kind == "num":
            a, b, sep = int(g["a"]), int(g["b"]), g["sep"]
            # readings are (month, day)
            if a > 12:
                readings = [(b, a)]
            elif b > 12:
                readings = [(a, b)]
            elif sep == ".":
                readings = [(b, a)]
            else:
                readings = [(a, b), (b, a)] if a != b else [(a, b)]
            out = [d for month, day in readings if (d := _make(year, month, day)) is not None]
        elif kind in ("mdy", "dmy", "my"):
            month = _MONTHS[g["mon"].lower()]
            out = [d] if (d := _make(year, month, int(g.get("day") or 1))) else []
        else:
            month = int(g.get("month") or 1)
            day = int(g.get("day") or 1)
            out = [d] if (d := _make(year, month, day)) else []
        if out:
            return out
    return []


# --------------------------------------------------------------------- urls
_HOST = re.compile(
    r"(?i)(?<![\w@.-])(?:[a-z][a-z0-9+.\-]*://)?(?:[^\s/@:]+@)?"
    r"(?P<host>(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,})(?::\d+)?(?=[/?#:\s)\]>,;|\"']|$)"
)


def url_domains(value: Any) -> set[str]:
    """The web domains a cell names: lowercase, without scheme, ``www.``, port or path."""
    hosts = set()
    for m in _HOST.finditer(nfkc(value)):
        host = m.group("host").lower().rstrip(".")
        if host.startswith("www."):
            host = host[4:]
        hosts.add(host)
    return hosts
