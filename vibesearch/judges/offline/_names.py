"""Name variants for the offline judge: abbreviated places, titles, class words, clipped names.

* ``expand_abbreviations``: the abbreviations people write in place names — "Mt." / "Mount",
  "St." before a name / "Saint", "Ft." / "Fort", "NYC", and a US state or country code after a
  comma ("Cambridge, MA", "Geneva, CH") — are spelled out, and dotted initials are joined
  ("D.C." / "DC"). Only these positions are read: a lone "CA" or "St." elsewhere stays as it is.
* ``strip_titles``: a title before a person's name ("Bishop", "Sir", "Dr.") is not part of it.
* ``core``: a name without the class words around it — "University of Tokyo" and "Tokyo
  University" have the core "tokyo", "Shanghai maglev train" the core "shanghai maglev", "Apple
  Inc." the core "apple". Each stripped word has a kind (see ``core_match`` in ``_matching``):
  descriptors may be dropped on either side, geographic words only by the prediction (a
  prediction's "Mississippi River" is not the state), institution words only when both sides
  have one or the prediction names a list item.
* ``is_clipped``: "Caltech" is made of the first syllables of "California Institute of
  Technology" (pieces of three letters or more taken in order, from the first word on).
"""

from __future__ import annotations

import re
from functools import lru_cache

_US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
    "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas",
    "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming", "DC": "DC",
}
# country codes people write after a city (ISO 3166 two-letter codes in common use, and a few others)
_COUNTRIES = {
    "UK": "United Kingdom", "GB": "United Kingdom", "US": "United States", "USA": "United States",
    "CH": "Switzerland", "DE": "Germany", "FR": "France", "IT": "Italy", "ES": "Spain", "NL": "Netherlands",
    "BE": "Belgium", "AT": "Austria", "SE": "Sweden", "NO": "Norway", "DK": "Denmark", "FI": "Finland",
    "JP": "Japan", "CN": "China", "PRC": "China", "KR": "South Korea", "IN": "India", "AU": "Australia",
    "NZ": "New Zealand", "BR": "Brazil", "MX": "Mexico", "RU": "Russia", "UAE": "United Arab Emirates",
    "IE": "Ireland", "PT": "Portugal", "PL": "Poland", "GR": "Greece", "IL": "Israel", "EG": "Egypt",
    "ZA": "South Africa", "AR": "Argentina", "CL": "Chile", "SG": "Singapore", "HK": "Hong Kong",
}
_CITY_CODES = {"NYC": "New York City", "LA": "Los Angeles", "SF": "San Francisco"}
# the abbreviations of US states in running text (AP style), read after a comma: "Atlanta, Ga."
_AP_STATES = {
    "Ala": "Alabama", "Ariz": "Arizona", "Ark": "Arkansas", "Calif": "California", "Cal": "California",
    "Colo": "Colorado", "Conn": "Connecticut", "Del": "Delaware", "Fla": "Florida", "Ga": "Georgia",
    "Ill": "Illinois", "Ind": "Indiana", "Kan": "Kansas", "Kans": "Kansas", "Ky": "Kentucky", "La": "Louisiana",
    "Md": "Maryland", "Mass": "Massachusetts", "Mich": "Michigan", "Minn": "Minnesota", "Miss": "Mississippi",
    "Mo": "Missouri", "Mont": "Montana", "Neb": "Nebraska", "Nebr": "Nebraska", "Nev": "Nevada",
    "Okla": "Oklahoma", "Ore": "Oregon", "Oreg": "Oregon", "Pa": "Pennsylvania", "Penn": "Pennsylvania",
    "Tenn": "Tennessee", "Tex": "Texas", "Vt": "Vermont", "Va": "Virginia", "Wash": "Washington",
    "Wis": "Wisconsin", "Wisc": "Wisconsin", "Wyo": "Wyoming",
}
_AP_AFTER_COMMA = re.compile(r",\s*(" + "|".join(sorted(_AP_STATES, key=len, reverse=True)) + r")\.(?=\s*(?:,|\)|\(|$))")
# a city code that opens a place followed by its state or country: "LA, CA", "NYC, NY"
_CITY_FIRST = re.compile(r"(^|,\s*)(" + "|".join(_CITY_CODES) + r")(?=\s*,\s*[A-Z]{2,3}\s*(?:,|\)|\(|$))")

_DOTTED = re.compile(r"\b((?:[A-Z]\.){2,})(?=\s|,|$|\))")
# "Mt. Fuji", "Mt Fuji", "St. Petersburg", "Ft. Worth": the abbreviation opens the name
_LEADING = [(re.compile(r"\bMt\.?\s+(?=[A-Z])"), "Mount "), (re.compile(r"\bMts\.?\s+(?=[A-Z])"), "Mountains "),
            (re.compile(r"\bSt\.?\s+(?=[A-Z])"), "Saint "), (re.compile(r"\bSte\.?\s+(?=[A-Z])"), "Sainte "),
            (re.compile(r"\bFt\.?\s+(?=[A-Z])"), "Fort ")]
# a code after a comma, at the end or before another comma / bracket: "Cambridge, MA", "Meyrin, near Geneva, CH"
_AFTER_COMMA = re.compile(r",\s*([A-Z]{2,3})(?=\s*(?:,|\)|\(|$))")
_WHOLE_CODE = re.compile(r"^\s*([A-Z]{2,3})\s*$")


@lru_cache(maxsize=65536)
def expand_abbreviations(raw: str) -> str:
    """The name with abbreviated place words spelled out (the text itself when there are none)."""
    text = str(raw)
    text = _DOTTED.sub(lambda m: m.group(1).replace(".", ""), text)
    for pattern, full in _LEADING:
        text = pattern.sub(full, text)

    def code(m: re.Match) -> str:
        c = m.group(1)
        full = _US_STATES.get(c) or _COUNTRIES.get(c) or _CITY_CODES.get(c)
        return ", " + full if full else m.group(0)

    text = _AP_AFTER_COMMA.sub(lambda m: ", " + _AP_STATES[m.group(1)], text)
    text = _CITY_FIRST.sub(lambda m: m.group(1) + _CITY_CODES[m.group(2)], text)
    text = _AFTER_COMMA.sub(code, text)
    whole = _WHOLE_CODE.match(text)
    if whole and whole.group(1) in _CITY_CODES:
        text = _CITY_CODES[whole.group(1)]
    elif whole and whole.group(1) in _US_STATES and whole.group(1) != "DC":  # a whole name "MN" is the state
        text = _US_STATES[whole.group(1)]
    return text


_TITLES = {
    "bishop", "archbishop", "cardinal", "pope", "sir", "dame", "lord", "dr", "doctor", "prof", "professor",
    "mr", "mrs", "ms", "madame", "mme", "monsieur", "rev", "reverend", "father", "brother", "sister",
    "president", "emperor", "empress", "king", "queen", "prince", "princess", "general", "admiral",
    "captain", "colonel", "count", "countess", "duke", "duchess", "baron",
    # honorifics that stand before a name
    "mahatma", "sri", "shri", "pandit", "sheikh", "imam", "rabbi", "ayatollah", "maestro",
}


def strip_titles(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Name parts without leading titles ("bishop berkeley" -> ("berkeley",)); never empty.

    A title followed by "of" is an office, not a title ("king of pop"), and stays."""
    out = list(tokens)
    while len(out) >= 2 and out[0] in _TITLES and out[1] != "of":
        out.pop(0)
    return tuple(out)


# class words: kind "d" descriptor (either side may drop it), "g" geographic (only the
# prediction may lack it), "i" institution (both sides have one, or a list item lacks it), "o"
# organisation words (only the prediction may add one: "Benelux Union" / "Benelux")
_CLASS_WORDS: dict[tuple[str, ...], str] = {
    ("inc",): "d", ("incorporated",): "d", ("corp",): "d", ("corporation",): "d", ("ltd",): "d",
    ("limited",): "d", ("llc",): "d", ("plc",): "d", ("ag",): "d", ("gmbh",): "d", ("co",): "d",
    ("nv",): "d", ("bv",): "d", ("sa",): "d", ("spa",): "d", ("oyj",): "d", ("asa",): "d", ("pty",): "d",
    ("speech",): "d", ("painting",): "d", ("album",): "d", ("film",): "d", ("novel",): "d", ("opera",): "d",
    ("conference",): "d", ("train",): "d", ("kernel",): "d", ("programming", "language"): "d",
    ("software",): "d", ("operating", "system"): "d", ("space", "telescope"): "d", ("telescope",): "d",
    ("race",): "d", ("spacecraft",): "d", ("space", "probe"): "d", ("probe",): "d", ("band",): "d", ("rock", "band"): "d",
    ("river",): "g", ("mount",): "g", ("lake",): "g", ("island",): "g", ("province",): "g", ("prefecture",): "g",
    ("union",): "o", ("league",): "o", ("federation",): "o", ("association",): "o",
    ("university",): "i", ("college",): "i", ("institute",): "i", ("school",): "i", ("academy",): "i",
}
_MAX_PHRASE = max(len(k) for k in _CLASS_WORDS)


@lru_cache(maxsize=65536)
def core(tokens: tuple[str, ...]) -> tuple[str, frozenset[str]]:
    """(core text, kinds of the class words removed); the core is "" when nothing is left."""
    words = list(tokens)
    kinds: set[str] = set()
    if words and words[0] == "the":
        words.pop(0)
    changed = True
    while changed and words:
        changed = False
        for size in range(_MAX_PHRASE, 0, -1):
            head = tuple(words[:size])
            if len(words) > size and head in _CLASS_WORDS:
                kinds.add(_CLASS_WORDS[head])
                words = words[size:]
                if words and words[0] == "of":  # "University of Tokyo"
                    words.pop(0)
                    if words and words[0] == "the":
                        words.pop(0)
                changed = True
                break
            tail = tuple(words[-size:])
            if len(words) > size and tail in _CLASS_WORDS:
                kinds.add(_CLASS_WORDS[tail])
                words = words[:-size]
                changed = True
                break
    if not kinds:
        return "", frozenset()
    text = " ".join(words)
    return (text if len(text.replace(" ", "")) >= 3 else ""), frozenset(kinds)


_STOP = {"of", "the", "and", "for", "de", "la", "&"}


def is_clipped(short: str, long_tokens: tuple[str, ...]) -> bool:
    """Is the one-word ``short`` made of leading pieces (>= 3 letters) of the words of a longer
    name, in order, starting with its first word and using at least two words ("caltech")?"""
    if " " in short or len(short) < 6 or not short.isalpha():
        return False
    words = [w for w in long_tokens if w not in _STOP]
    if len(words) < 2 or not words[0]:
        return False

    def walk(pos: int, first_word: int, used: int) -> bool:
        """Can short[pos:] be spelled by pieces of words[first_word:]?"""
        if pos == len(short):
            return used >= 2
        # the first piece must come from the first word
        candidates = range(first_word, len(words)) if pos > 0 else range(0, 1)
        for j in candidates:
            w = words[j]
            k = 0
            while k < len(w) and pos + k < len(short) and w[k] == short[pos + k]:
                k += 1
            for size in range(k, 2, -1):
                if walk(pos + size, j + 1, used + 1):
                    return True
        return False

    return walk(0, 0, 0)
