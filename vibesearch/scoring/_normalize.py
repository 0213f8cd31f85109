"""Text normalisation for matching triples without a model.

``base`` folds width, case, Unicode forms (NFKC) and traditional Chinese into one form;
``norm`` also canonicalises numbers and units and turns punctuation into spaces; ``parse_date``
and ``parse_quantity`` read a whole value as a date or a number with an optional unit so that
"14 May 1997", "1997-05-14" and "1997年5月14日" compare equal, as do "1,000" and "1000".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SPACES = re.compile(r"\s+")
_SPACE_NEAR_CJK = re.compile(r"(?<=[\u3400-\u9fff])\s+|\s+(?=[\u3400-\u9fff])")

_converter = None


def _t2s(text: str) -> str:
    global _converter
    if _converter is None:
        from opencc import OpenCC

        _converter = OpenCC("t2s")
    return _converter.convert(text)


@lru_cache(maxsize=65536)
def base(text: str) -> str:
    """NFKC, simplified Chinese, lower case, single spaces."""
    text = unicodedata.normalize("NFKC", str(text)).replace("\u2212", "-")  # the minus sign is a hyphen
    if CJK.search(text):
        text = _t2s(text)
    return _SPACES.sub(" ", text.lower()).strip()


# ---------------------------------------------------------------- numbers and units
_MULTIPLIERS = {"万": 10_000, "亿": 100_000_000, "千": 1_000, "thousand": 1_000, "million": 1_000_000,
                "billion": 1_000_000_000, "bn": 1_000_000_000, "trillion": 1_000_000_000_000}
_MULT_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(万|亿|千(?![米克瓦])|thousand\b|million\b|billion\b|trillion\b|bn\b)")
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d])")
_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.(\d+)(?![\d.])")

# physical units and currencies: two quantities with different units of this kind differ
_UNITS = {
    "km": ("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers", "公里", "千米"),
    "m": ("m", "metre", "metres", "meter", "meters", "米"),
    "cm": ("cm", "centimetre", "centimetres", "centimeter", "centimeters", "厘米"),
    "mm": ("mm", "millimetre", "millimetres", "millimeter", "millimeters", "毫米"),
    "mi": ("mi", "mile", "miles", "英里"),
    "ft": ("ft", "foot", "feet", "英尺"),
    "kg": ("kg", "kilogram", "kilograms", "公斤", "千克"),
    "t": ("t", "tonne", "tonnes", "ton", "tons", "吨"),
    "g": ("g", "gram", "grams", "克"),
    "%": ("%", "percent", "per cent", "pct"),
    "usd": ("usd", "$", "us$", "dollar", "dollars", "us dollar", "us dollars", "美元"),
    "gbp": ("gbp", "£", "pound sterling", "pounds sterling", "英镑"),
    "eur": ("eur", "€", "euro", "euros", "欧元"),
    "cny": ("cny", "rmb", "yuan", "¥", "元", "人民币"),
    "°c": ("°c", "℃", "degrees celsius", "degree celsius", "celsius", "deg c", "摄氏度"),
    "h": ("h", "hour", "hours", "小时"),
    "min": ("min", "minute", "minutes", "分钟"),
    "s": ("sec", "secs", "second", "seconds", "秒"),
    "y": ("years", "year", "yr", "yrs"),
    "d": ("day", "days", "天"),
    "km/h": ("km/h", "kmh", "kph", "km per hour", "kilometres per hour", "kilometers per hour", "公里/小时", "千米/小时", "千米/时"),
    "mph": ("mph", "mi/h", "miles per hour"),
    "m/s": ("m/s", "metres per second", "meters per second", "米/秒"),
    "kn": ("knot", "knots", "kn", "kt"),
    "nmi": ("nmi", "nautical mile", "nautical miles", "海里"),
    "in": ("inch", "inches"),
    "yd": ("yd", "yard", "yards"),
    "lb": ("lb", "lbs", "pound", "pounds", "磅"),
    "oz": ("oz", "ounce", "ounces"),
    "km2": ("km2", "sq km", "square kilometre", "square kilometres", "square kilometer", "square kilometers", "平方公里", "平方千米"),
    "m2": ("m2", "sq m", "square metre", "square metres", "square meter", "square meters", "平方米"),
    "mi2": ("mi2", "sq mi", "sq miles", "square mile", "square miles", "平方英里"),
    "ha": ("ha", "hectare", "hectares", "公顷"),
    "acre": ("acre", "acres", "英亩"),
    "kwh": ("kwh", "kw h", "kilowatt hour", "kilowatt hours", "kilowatt-hour", "kilowatt-hours", "千瓦时"),
    "mwh": ("mwh", "megawatt hour", "megawatt hours"),
    "gwh": ("gwh", "gigawatt hour", "gigawatt hours"),
    "twh": ("twh", "terawatt hour", "terawatt hours"),
    "w": ("w", "watt", "watts", "瓦"),
    "kw": ("kw", "kilowatt", "kilowatts", "千瓦"),
    "mw": ("mw", "megawatt", "megawatts", "兆瓦"),
    "gw": ("gw", "gigawatt", "gigawatts", "吉瓦"),
    "°f": ("°f", "℉", "degrees fahrenheit", "fahrenheit", "deg f"),
}
_UNIT_OF = {alias: canon for canon, aliases in _UNITS.items() for alias in aliases}
# words after a unit that say what was measured, not how much: "8,849 m above sea level"
_QUALIFIER = re.compile(r"\s+(?:above sea level|above mean sea level|asl|amsl|high|tall|long|wide|deep|in height|in length)$")
# "384 400 000 m": groups of three digits separated by spaces, at the start of a value only
_SPACED_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?: \d{3})+(?![\d])")
_OF_WHAT = re.compile(r"\s+of\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?$")
_CURRENCY_FIRST = re.compile(r"^(us\$|\$|€|£|¥)\s*(?=\d)")
_APPROX = re.compile(r"^(?:about|approximately|approx\.?|around|roughly|circa|ca\.?|c\.|~|约|大约|大概|近)\s*")


def _fmt(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(round(value, 6)).rstrip("0").rstrip(".")


def canon_numbers(text: str) -> str:
    """'1,000' -> '1000', '1.50' -> '1.5', '1.0' -> '1', '8万' -> '80000', '1.2 million' -> '1200000'."""
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    text = _MULT_RE.sub(lambda m: _fmt(float(m.group(1)) * _MULTIPLIERS[m.group(2)]), text)

    def dec(m: re.Match) -> str:
        frac = m.group(2).rstrip("0")
        return m.group(1) + ("." + frac if frac else "")

    return _DECIMAL.sub(dec, text)


@lru_cache(maxsize=65536)
def parse_quantity(text: str) -> tuple[str, str | None] | None:
    """A value that is only a number with an optional unit: ('853', None), ('384400', 'km').

    A bare number has unit ``None``; a word that is not a known physical unit or currency (a
    counter such as 家, 人次, 'passengers') comes back as ``""``: counters and bare numbers compare
    by the number alone, but a counter never equals a physical unit ("300 aircraft" / "300 t").
    """
    t = _APPROX.sub("", base(text)).strip()
    sign = _CURRENCY_FIRST.match(t)
    if sign:  # "$3.0 trillion" is "3.0 trillion $"
        t = t[sign.end():] + " " + sign.group(1)
    t = canon_numbers(_SPACED_THOUSANDS.sub(lambda m: m.group(0).replace(" ", ""), t))
    m = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)\s*(.*)", t)
    if not m:
        return None
    number, rest = m.group(1), m.group(2).strip().rstrip(".")
    if not rest:
        return number, None
    if rest == "s":  # "1990s" is a decade, not a number of seconds or of anything
        return None
    rest = _QUALIFIER.sub("", " " + rest).strip() or rest
    rest = re.sub(r"\s+", " ", rest)
    if rest in _UNIT_OF:
        return number, _UNIT_OF[rest]
    # "71 percent of surface", "8,849 m above sea level": a known unit, then what was measured
    head = _OF_WHAT.sub("", rest)
    if head != rest and head in _UNIT_OF:
        return number, _UNIT_OF[head]
    # a counter word or noun: at most a few characters or one or two words, no digits
    if re.search(r"\d", rest) or len(rest.split()) > 2 or (CJK.search(rest) and len(rest) > 3):
        return None
    return number, ""


# ---------------------------------------------------------------- dates
_MONTHS = {
    name: i
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}
_MONTH_RE = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_FILLER = re.compile(r"^(?:in|on|since|from|around|about|circa|ca\.?|c\.|year|the year|于|在|公元)\s*")
_DATE_PATTERNS = [
    (re.compile(r"(\d{3,4})"), ("y",)),
    (re.compile(r"(\d{3,4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})"), ("y", "m", "d")),
    (re.compile(r"(\d{3,4})\s*[-/.]\s*(\d{1,2})"), ("y", "m")),
    (re.compile(r"(\d{3,4})\s*年\s*(?:(\d{1,2})\s*月\s*(?:(\d{1,2})\s*[日号]?)?)?"), ("y", "m", "d")),
    (re.compile(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH_RE + r",?\s+(\d{3,4})"), ("d", "mn", "y")),
    (re.compile(_MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{3,4})"), ("mn", "d", "y")),
    (re.compile(_MONTH_RE + r",?\s+(\d{3,4})"), ("mn", "y")),
]

Date = tuple[int, int | None, int | None]
_NUMERIC_DMY = re.compile(r"(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})")


def _numeric_day_month(t: str) -> Date | None:
    """'14/05/1997' or '05/14/1997': only when the order is clear (one part above 12, or both equal)."""
    m = _NUMERIC_DMY.fullmatch(t)
    if not m:
        return None
    a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if a > 12 >= b >= 1 and a <= 31:
        return (y, b, a)
    if b > 12 >= a >= 1 and b <= 31:
        return (y, a, b)
    if a == b and 1 <= a <= 12:
        return (y, a, a)
    return None


@lru_cache(maxsize=65536)
def parse_date(text: str) -> Date | None:
    """(year, month, day) when the whole text is a date; month/day may be None."""
    t = _FILLER.sub("", base(text)).strip().rstrip(".")
    t = re.sub(r"\s*(?:ad|ce|a\.d\.)$", "", t)
    t = re.sub(r"^(?:ad|a\.d\.)\s*(?=\d)", "", t)
    numeric = _numeric_day_month(t)
    if numeric is not None:
        return numeric
    for pattern, parts in _DATE_PATTERNS:
        m = pattern.fullmatch(t)
        if not m:
            continue
        values: dict[str, int | None] = {"y": None, "m": None, "d": None}
        for part, raw in zip(parts, m.groups()):
            if raw is None:
                continue
            if part == "mn":
                values["m"] = _MONTHS[raw.rstrip(".")]
            else:
                values[part] = int(raw)
        y, mo, d = values["y"], values["m"], values["d"]
        if y is None or not (1 <= y <= 2999):
            return None
        if mo is not None and not 1 <= mo <= 12:
            return None
        if d is not None and not 1 <= d <= 31:
            return None
        return (y, mo, d)
    return None


def date_relation(gt: Date, pred: Date) -> str | None:
    """'equal', 'more' (the predicted date is more precise and agrees) or None."""
    if gt == pred:
        return "equal"
    for g, p in zip(gt, pred):
        if g is None:
            return "more" if p is not None else None
        if g != p:
            return None
    return None


# ---------------------------------------------------------------- the text used for matching
def _depunct(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        cat = unicodedata.category(ch)
        if ch == "." and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
            out.append(ch)
        elif ch == "%":
            out.append(" % ")
        elif cat.startswith("P") or (cat.startswith("S") and ch not in "$€¥°℃+"):
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


@lru_cache(maxsize=65536)
def norm(text: str) -> str:
    """The matching form: ``base`` + canonical numbers + punctuation as spaces."""
    t = _depunct(canon_numbers(base(text)))
    t = _SPACES.sub(" ", t).strip()
    return _SPACE_NEAR_CJK.sub("", t)


def digits(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\d+(?:\.\d+)?", text))


def contains_phrase(part: str, whole: str) -> bool:
    """Is ``part`` (normalised) inside ``whole`` as whole words (any substring for Chinese)?"""
    if not part or not whole or len(part) > len(whole):
        return False
    if CJK.search(part):
        return len(part) >= 2 and part in whole
    if part == whole:
        return True
    # word boundaries: neither side may continue a latin word or a number
    start = 0
    while True:
        i = whole.find(part, start)
        if i < 0:
            return False
        before = whole[i - 1] if i > 0 else " "
        after = whole[i + len(part)] if i + len(part) < len(whole) else " "
        if not (before.isalnum() and not CJK.match(before)) and not (after.isalnum() and not CJK.match(after)):
            return True
        start = i + 1
