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

from ._numbers import spell_out

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
_MULTIPLIERS = {"万": 10_000, "亿": 100_000_000, "千": 1_000, "百万": 1_000_000, "千万": 10_000_000,
                "十亿": 1_000_000_000, "百亿": 10_000_000_000, "千亿": 100_000_000_000, "万亿": 1_000_000_000_000,
                "mn": 1_000_000, "thousand": 1_000, "million": 1_000_000,
                "billion": 1_000_000_000, "bn": 1_000_000_000, "trillion": 1_000_000_000_000}
_MULT_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(百万|千万|十亿|百亿|千亿|万亿|万|亿|千(?![米克瓦])|thousand\b|million\b|billion\b|"
                      r"trillion\b|bn\b|mn\b)")
_K_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)k\b(?![/²2])")  # "182.5k": written on the figure, not "10 K"
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
    text = _K_RE.sub(lambda m: _fmt(float(m.group(1)) * 1000), text)

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
    if t[:1].isalpha() and not any(w[:1].isupper() for w in str(text).split()[1:]):
        t = spell_out(t)  # "nine symphonies", "two million"
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


# a weekday before a date ("Wednesday, 14 May 1997") says nothing more about it
_WEEKDAY = re.compile(r"^(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+(?=\d|[a-z])")
# "the 14th of May 1997", "14-May-1997": the day, the month and the year with other separators
_DAY_OF = re.compile(r"^(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+")
_DASHED_MONTH = re.compile(r"^(\d{1,2})\s*[-/.]\s*([a-z]{3,9})\.?\s*[-/.]\s*(\d{3,4})$")
# an era after or before the year: AD / CE read as the year itself, BC / BCE as a year before 1
_ERA_AFTER = re.compile(r"^(\d{1,4})\s*(ad|ce|a\.d\.|c\.e\.|bc|bce|b\.c\.|b\.c\.e\.)$")
_ERA_BEFORE = re.compile(r"^(?:ad|a\.d\.)\s*(\d{1,4})()$")
_BC_CJK = re.compile(r"^公元前\s*(\d{1,4})\s*年$")
# Chinese numerals written in a date: "一九八九年十一月九日"
_CN_DIGIT = {"〇": 0, "零": 0, "○": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_DATE = re.compile(r"^([〇零○一二三四五六七八九]{4})年(?:([一二三四五六七八九十]{1,3})月(?:([一二三四五六七八九十]{1,3})[日号])?)?$")


def _cn_small(text: str) -> int:
    """A Chinese numeral below 100 ("十一" 11, "二十六" 26, "九" 9)."""
    if "十" not in text:
        return _CN_DIGIT[text]
    tens, _, units = text.partition("十")
    return (_CN_DIGIT[tens] if tens else 1) * 10 + (_CN_DIGIT[units] if units else 0)


def _other_date_forms(t: str) -> str | None:
    """Rewrite the rarer forms of a date into one ``_DATE_PATTERNS`` reads (None: none applies)."""
    m = _CN_DATE.match(t)
    if m:
        year = "".join(str(_CN_DIGIT[ch]) for ch in m.group(1))
        out = year + "年"
        if m.group(2):
            out += f"{_cn_small(m.group(2))}月"
            if m.group(3):
                out += f"{_cn_small(m.group(3))}日"
        return out
    m = _DASHED_MONTH.match(t)
    if m and m.group(2) in _MONTHS:
        return f"{m.group(1)} {m.group(2)} {m.group(3)}"
    if _DAY_OF.match(t):
        return _DAY_OF.sub(lambda d: d.group(1) + " ", t)
    return None


@lru_cache(maxsize=65536)
def parse_date(text: str) -> Date | None:
    """(year, month, day) when the whole text is a date; month/day may be None.

    Besides the common forms, a weekday before the date, "the 14th of May 1997", "14-May-1997",
    Chinese numerals ("一九八九年十一月九日") and an era ("79 AD"; "221 BC" and "公元前221年" are
    the year -221) are read.
    """
    b = base(text).strip().rstrip(".")
    t = _WEEKDAY.sub("", _FILLER.sub("", b).strip().rstrip("."))
    era = _ERA_AFTER.match(t) or _ERA_BEFORE.match(t) or _BC_CJK.match(b)
    if era:
        year = int(era.group(1))
        bc = era.re is _BC_CJK or (era.group(2) or "").startswith("b")
        return (-year if bc else year, None, None) if year else None
    t = re.sub(r"\s*(?:ad|ce|a\.d\.)$", "", t)
    t = re.sub(r"^(?:ad|a\.d\.)\s*(?=\d)", "", t)
    t = _other_date_forms(t) or t
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


# a date with a month inside a longer value: "20/07/1969, 20:17 UTC", "October 28, 1886 (dedication)"
_DATE_INSIDE = re.compile(
    r"(?<![\w/.-])(?:"
    r"\d{4}\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,2}"  # 1989-11-09
    r"|\d{1,2}\s*[/.-]\s*\d{1,2}\s*[/.-]\s*\d{4}"  # 09.11.1989, 20/07/1969
    r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r",?\s+\d{3,4}"  # 9 November 1989
    r"|" + _MONTH_RE + r"\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{3,4}"  # November 9, 1989
    r"|" + _MONTH_RE + r",?\s+\d{3,4}"  # November 1989
    r"|\d{3,4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?"  # 1989年11月9日
    r")(?![\w/-]|\.\d)"
)


@lru_cache(maxsize=65536)
def dates_inside(text: str) -> tuple[Date, ...]:
    """Every date with a month written inside a longer value, in order (empty when none)."""
    found = []
    for m in _DATE_INSIDE.finditer(base(text)):
        date = parse_date(m.group(0))
        if date is not None:
            found.append(date)
    return tuple(found)


_OLD_STYLE = re.compile(r"\b(?:old style|o\.\s?s\.|julian(?: calendar)?)|儒略历|旧历")


def old_style(text: str) -> bool:
    """Does the value say its date is in the Julian calendar ("25 October 1917 (Old Style)")?"""
    return bool(_OLD_STYLE.search(base(text)))


def julian_to_gregorian(date: Date) -> Date:
    """A full Julian-calendar date as the Gregorian date of the same day (others unchanged):
    "25 October 1917 (O.S.)" is 7 November 1917."""
    import datetime

    y, m, d = date
    if m is None or d is None or y < 1:
        return date
    century_year = y if m > 2 else y - 1
    shift = century_year // 100 - century_year // 400 - 2
    try:
        g = datetime.date(y, m, min(d, 28)) + datetime.timedelta(days=shift + d - min(d, 28))
    except (ValueError, OverflowError):
        return date
    return (g.year, g.month, g.day)


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
