"""Entity matching for the offline judge.

Entities: two names are *equal* when they share an alias (the text outside or inside
parentheses, with abbreviated places spelled out and a leading "the" dropped), are the same date or
quantity (any bracketed form; across unit systems with rounding; an exact figure for a rounded
"1.3 million"), one is the initials of the other ("ICM", "G7" / "Group of Seven"), a short name is
the unambiguous surname of the other (titles dropped), they are one name once class words are
dropped ("University of Tokyo" / "Tokyo University"), one is clipped from the other ("Caltech"), a
Chinese name has a qualifier before the other ("北京故宫" / "故宫"), or they are near-identical
spellings with the same digits. The predicted name *states more* when it contains the ground-truth
name as whole words, is a list with it as an item, or is a more precise date.

Relations are matched in ``_relations``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from ._bounds import bound_states, parse_bound
from ._names import core, expand_abbreviations, is_clipped, strip_titles
from ._units import finer_figure, hedged_step, quantity_equal, rounding_step, within_rounding
from ._aliases import alias_group
from ._lists import list_items
from ._normalize import CJK, Date, base, contains_phrase, date_relation, dates_inside, digits, julian_to_gregorian, old_style, norm, parse_date, parse_quantity

ENTITY_FUZZY = 90  # rapidfuzz ratio for two spellings of one name

# words that make a multi-word name a place, an organisation or a thing rather than a person
_NOT_PERSON = {
    "air", "airlines", "airways", "alliance", "bank", "university", "college", "institute", "company",
    "group", "corporation", "inc", "ltd", "national", "international", "republic", "kingdom", "state",
    "states", "city", "river", "mount", "lake", "sea", "ocean", "island", "islands", "new", "north",
    "south", "east", "west", "united", "royal", "museum", "airport", "station", "theorem", "law",
    "principle", "prize", "award", "medal", "the", "of", "and", "s",
}
_STOP_LATIN = {"of", "the", "a", "an", "and", "for", "de", "la", "le", "du", "von", "van", "der", "&", "in", "on", "at"}


_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "twenty": "20"}


_SUFFIXES = {"jr", "sr", "ii", "iii", "iv"}  # "Martin Luther King Jr." is MLK


def _initials(words: list[str], keep_stop: bool = False) -> str:
    words = [w for w in words if w not in _SUFFIXES] if len(words) > 2 else words
    return "".join(w[0] for w in words if (keep_stop or w not in _STOP_LATIN) and w[0].isalpha())


@dataclass
class Name:
    raw: str
    norm: str
    aliases: frozenset[str]
    tokens: tuple[str, ...]
    acronym: str | None = None
    initials: frozenset[str] = frozenset()
    date: Date | None = None
    quantity: tuple[str, str | None] | None = None
    group: int | None = None  # curated alias group (``_aliases``)
    alt_quantities: tuple[tuple[str, str | None], ...] = ()  # "3,776 m (12,388 ft)": each part
    rounding: float | None = None  # half-step of a rounded figure ("1.3 million": 50,000)
    hedged: float | None = None  # half-step of a figure said to be rounded ("about 11,000 m": 500)
    core: tuple[str, frozenset[str]] = ("", frozenset())  # ``_names.core``
    quantities: tuple[tuple[str, str | None], ...] = ()  # the quantity and the alternatives
    is_person_like: bool = False  # two to four name parts, no digits, no place/organisation word


def _person_like(tokens: tuple[str, ...], main: str) -> bool:
    return (
        2 <= len(tokens) <= 4
        and not any(ch.isdigit() for ch in main)
        and not any(t in _NOT_PERSON for t in tokens)
    )


def _parts(text: str) -> tuple[str, list[str]]:
    """(text outside brackets, texts inside brackets); full-width brackets are NFKC-folded."""
    outside = re.sub(r"\([^()]*\)", " ", text).strip()
    return outside, [p for p in re.findall(r"\(([^()]*)\)", text) if p.strip()]


@lru_cache(maxsize=65536)
def name_of(raw: str) -> Name:
    text = base(raw)
    parts = [text]
    outside, inside = _parts(text)
    if outside and outside != text:
        parts.append(outside)
    parts.extend(inside)
    expanded = expand_abbreviations(str(raw))
    if expanded != str(raw):  # "Cambridge, MA" is also "Cambridge, Massachusetts"
        e_text = base(expanded)
        e_outside, e_inside = _parts(e_text)
        parts.extend([e_text, e_outside, *e_inside])
        outside = e_outside or outside
    # "the Moon" is also "Moon"
    parts.extend(p[4:] for p in list(parts) if p.startswith("the ") and len(p) > 6)
    aliases = frozenset(a for a in (norm(p) for p in parts) if a)
    main = norm(outside or text)
    # name parts: spaces, and the middle dots that separate the parts of transcribed names
    tokens = tuple(tok for part in re.split(r"[\s·•・‧]+", outside or text) for tok in norm(part).split())
    tokens = strip_titles(tokens)
    acronym = None
    stripped = re.sub(r"[\s.]", "", str(raw)).strip()
    if 2 <= len(stripped) <= 8 and re.fullmatch(r"[A-Z][A-Z0-9&]+", stripped):
        acronym = stripped.lower()
    initials = set()
    for alias in aliases:
        words = alias.split()
        if len(words) >= 2 and not CJK.search(alias):
            for keep_stop in (False, True):  # "Round the World" -> RW and RTW
                ini = _initials(words, keep_stop)
                if len(ini) >= 2:
                    initials.add(ini)
            if any(w in _NUMBER_WORDS for w in words):  # "Group of Seven" -> G7
                ini = "".join(_NUMBER_WORDS.get(w, w[0]) for w in words if w not in _STOP_LATIN and w[0].isalnum())
                if len(ini) >= 2:
                    initials.add(ini)
    for alias in aliases:  # an alias that is itself an acronym: "Star Alliance (SA)"
        if acronym is None and re.fullmatch(r"[a-z]{2,8}", alias) and alias.upper() in str(raw):
            acronym = alias
    quantity = parse_quantity(raw)
    alt_quantities = tuple(
        q for q in (parse_quantity(p) for p in (outside, *inside)) if q is not None and q != quantity
    ) if "(" in text else ()
    return Name(
        raw=raw,
        norm=main,
        aliases=aliases,
        tokens=tokens,
        acronym=acronym,
        initials=frozenset(initials),
        date=parse_date(raw),
        quantity=quantity if quantity is not None else (alt_quantities[0] if alt_quantities else None),
        alt_quantities=alt_quantities,
        rounding=rounding_step(raw),
        hedged=hedged_step(raw),
        core=core(tokens),
        quantities=((quantity,) if quantity is not None else ()) + tuple(q for q in alt_quantities if q != quantity),
        is_person_like=_person_like(tokens, main) and "," not in str(raw),  # "A, B" is a list or a place
        group=next((g for g in (alias_group(a) for a in sorted(aliases)) if g is not None), None),
    )


class Context:
    """What entity matching may consult about the two graphs: surnames shared by several names."""

    def __init__(self, names: list[Name]):
        owners: dict[str, set[str]] = {}
        first: dict[str, set[str]] = {}
        cores: dict[str, set[str]] = {}
        cjk: set[str] = set()
        for n in names:
            if n.is_person_like:
                owners.setdefault(n.tokens[-1], set()).add(n.norm)
                first.setdefault(n.tokens[0], set()).add(n.norm)
            if n.core[0]:
                cores.setdefault(n.core[0], set()).add(n.norm)
            if CJK.search(n.norm):
                cjk.add(n.norm)
        self.surname_owners = owners
        self.first_name_owners = first
        self.core_owners = cores
        self.cjk_names = cjk

    def surname_unambiguous(self, surname: str) -> bool:
        return len(self.surname_owners.get(surname, ())) == 1

    def first_name_unambiguous(self, first: str) -> bool:
        return len(self.first_name_owners.get(first, ())) == 1

    def core_unambiguous(self, text: str) -> bool:
        """Do all longer names with this core name one kind of thing? "University of Tokyo" and
        "Tokyo University" do; "Thames River" and "Thames Conference" would not."""
        kinds = {core(tuple(o.split()))[1] for o in self.core_owners.get(text, set())}
        return len(kinds) <= 1

    def cjk_suffix_unambiguous(self, short: str) -> bool:
        """Is exactly one longer Chinese name in the graphs ending with ``short``?"""
        return sum(1 for n in self.cjk_names if n != short and n.endswith(short)) == 1


def core_match(gt: Name, pred: Name, ctx: Context, *, in_list: bool = False) -> bool:
    """Same name once class words are dropped ("University of Tokyo" / "Tokyo University",
    "Apple Inc." / "Apple", "River Thames" / "Thames"); the kinds decide which side may lack one."""
    g_core, g_kinds = gt.core
    p_core, p_kinds = pred.core
    g_text = g_core or (gt.norm if not g_kinds else "")
    p_text = p_core or (pred.norm if not p_kinds else "")
    if not g_text or not p_text or g_text != p_text or (not g_kinds and not p_kinds):
        return False
    if len(g_text.replace(" ", "")) < 3 or any(ch.isdigit() for ch in g_text):
        return False
    if "g" in p_kinds - g_kinds:  # the prediction's "Mississippi River" is not the state
        return False
    if "o" in g_kinds - p_kinds:  # "Star" alone does not name the "Star Alliance"
        return False
    if "i" in (g_kinds ^ p_kinds) and not ("i" in g_kinds and in_list):
        return False  # "Tokyo" the city is not "University of Tokyo", except as an item of a list of members
    return ctx.core_unambiguous(g_text)


def entity_relation(gt: Name, pred: Name, ctx: Context) -> str | None:
    """'equal', 'more' (the prediction says more and includes it) or None."""
    return entity_match(gt, pred, ctx)[0]


def entity_match(gt: Name, pred: Name, ctx: Context, *, in_list: bool = False) -> tuple[str | None, str]:
    """As ``entity_relation``, plus the name of the rule that decided it."""
    if gt.aliases & pred.aliases:
        return "equal", "same name"
    if gt.group is not None and gt.group == pred.group:
        return "equal", "alias table"
    items = list_items(pred.raw) if list_items(gt.raw) is None else None
    if items is not None:
        # a list states the name only when one item is the name (not merely contains it)
        for item in items:
            item_name = name_of(item)
            level, _ = entity_match(gt, item_name, ctx, in_list=True)
            if level == "equal":
                return "more", "list member"
            if _first_name_in_list(gt, item_name, ctx):
                return "more", "list member"
        if _place_run(gt, pred):
            return "more", "contains"
        return None, "not in the list"
    if gt.date is not None and pred.date is not None:
        return date_relation(gt.date, pred.date), "date"
    if gt.date is not None and gt.date[1] is not None:
        # "20/07/1969, 20:17 UTC" states "July 20, 1969": the one date written inside says it
        inside = set(dates_inside(pred.raw))
        if len(inside) == 1:
            found = next(iter(inside))
            if date_relation(gt.date, found) is not None:
                return "more", "date inside"
            # "25 October 1917 (Old Style)" is 7 November 1917 in the calendar used today
            if old_style(pred.raw) and not old_style(gt.raw) and date_relation(gt.date, julian_to_gregorian(found)):
                return "more", "old style date"
    gt_bound = parse_bound(gt.raw)
    if gt_bound is not None:
        # "over 6 million" is stated by "6,800,000+" or "6.8 million", not by "6 million"
        pred_bound = parse_bound(pred.raw)
        if bound_states(gt_bound, pred.quantity if pred_bound is None else None, pred_bound):
            return "equal", "bound"
        if pred_bound is not None or pred.quantity is not None:
            return None, "bound"
    if gt.quantity is not None and pred.quantity is not None:
        return _quantity_match(gt, pred)
    acronym_hit = gt.acronym and gt.acronym in pred.initials or pred.acronym and pred.acronym in gt.initials
    if acronym_hit:
        # a curated name's acronym means the curated expansion only ("MIT" is not any "M. I. of T.")
        if gt.group is None and pred.group is None:
            return "equal", "acronym"
        return None, "acronym collision"
    if _same_person(gt, pred, ctx):
        return "equal", "surname"
    if _initialled(gt, pred) or _initialled(pred, gt):
        return "equal", "initials"
    if _acronym_then_name(gt, pred) or _acronym_then_name(pred, gt):
        return "equal", "acronym"
    if core_match(gt, pred, ctx, in_list=in_list):
        return "equal", "short form"
    if _year_moved(gt, pred):
        return "equal", "same name"
    if _clipped(gt, pred):
        return "equal", "clipped name"
    if _cjk_suffix(gt, pred, ctx):
        return "equal", "chinese containment"
    era = _same_era(gt, pred)
    if era is not None:
        return era, "dynasty"
    if (
        min(len(gt.norm), len(pred.norm)) >= 4
        and digits(gt.norm) == digits(pred.norm)
        and fuzz.ratio(gt.norm, pred.norm) >= ENTITY_FUZZY
    ):
        return "equal", "spelling"
    # "Lufthansa" inside "Lufthansa, United Airlines, Air China"; "1997" inside "14 May 1997 in Frankfurt"
    for g in gt.aliases:
        for p in pred.aliases:
            if contains_phrase(g, p):
                return "more", "contains"
    return None, ""


def _quantity_match(gt: Name, pred: Name) -> tuple[str | None, str]:
    """Any written form of one value against any of the other ("346 km (215 mi)")."""
    best: str | None = None
    for g in gt.quantities:
        for p in pred.quantities:
            how = quantity_equal(g, p)
            if how == "same":
                return "equal", "number"
            if how is not None and best is None:
                best = how
            if best is None and (within_rounding(g, p, gt.rounding) or (gt.rounding is None and finer_figure(g, p))
                                 or within_rounding(p, g, pred.hedged)):
                best = "rounding"
    if best == "converted":
        return "equal", "unit conversion"
    if best == "rounded":
        return "equal", "rounded conversion"
    if best == "rounding":
        return "equal", "rounded figure"
    return None, "number"


def _place_run(gt: Name, pred: Name) -> bool:
    """A place written as "City, Country" inside a longer comma-separated place
    ("London, United Kingdom" in "Bloomsbury, London, UK"): its parts are consecutive items."""
    g_parts = [name_of(p) for p in re.split(r"\s*,\s*", expand_abbreviations(gt.raw)) if p.strip()]
    items = list_items(expand_abbreviations(pred.raw))
    if len(g_parts) < 2 or items is None or len(items) <= len(g_parts):
        return False
    p_parts = [name_of(i) for i in items]
    return any(
        all(g.aliases & p_parts[k + j].aliases for j, g in enumerate(g_parts))
        for k in range(len(p_parts) - len(g_parts) + 1)
    )


def _initialled(full: Name, short: Name) -> bool:
    """"J. S. Bach" / "JS Bach" for "Johann Sebastian Bach": the given names written as their
    capital initials (with dots or run together), the surname the same."""
    if not full.is_person_like or len(short.tokens) < 2 or short.tokens[-1] != full.tokens[-1]:
        return False
    letters = "".join(short.tokens[:-1])
    if not re.fullmatch(r"(?:[A-Z]\.?\s*){1,3}\s+\S+", str(short.raw).strip()) or not letters.isalpha():
        return False
    return letters == "".join(t[0] for t in full.tokens[:-1])


def _acronym_then_name(full: Name, short: Name) -> bool:
    """"IIT Kharagpur" for "Indian Institute of Technology Kharagpur": the opening words written
    as their capital initials (stop words left out), the last words the same."""
    raw = str(short.raw).strip()
    m = re.fullmatch(r"([A-Z]{2,6})\s+(\S.*)", raw)
    if not m or len(short.tokens) < 2 or CJK.search(raw):
        return False
    rest = short.tokens[1:]
    words = full.tokens
    if len(words) <= len(rest) + 1 or tuple(words[-len(rest):]) != tuple(rest):
        return False
    return _initials(list(words[: -len(rest)])) == m.group(1).lower()


def _first_name_in_list(gt: Name, item: Name, ctx: Context) -> bool:
    """"Ringo" in "John, Paul, George and Ringo" for "Ringo Starr", when no other person in the
    graphs has that first name."""
    return (
        gt.is_person_like
        and len(item.tokens) == 1
        and item.tokens[0] == gt.tokens[0]
        and len(item.tokens[0]) >= 3
        and ctx.first_name_unambiguous(item.tokens[0])
    )


def _year_moved(gt: Name, pred: Name) -> bool:
    """"Nobel Prize in Physics 1903" / "1903 Nobel Prize in Physics": the same words with a year
    written before or after them."""
    def split(n: Name) -> tuple[tuple[str, ...], tuple[str, ...]]:
        years = tuple(sorted(t for t in n.tokens if re.fullmatch(r"\d{4}", t)))
        words = tuple(t for t in n.tokens if not re.fullmatch(r"\d{4}", t))
        return years, words
    gy, gw = split(gt)
    py, pw = split(pred)
    return bool(gy) and gy == py and len(gw) >= 2 and gw == pw and gt.tokens != pred.tokens


def _clipped(gt: Name, pred: Name) -> bool:
    short, full = (gt, pred) if len(gt.tokens) == 1 else (pred, gt)
    if len(short.tokens) != 1 or len(full.tokens) < 2 or CJK.search(full.norm):
        return False
    if short.group is not None or full.group is not None:
        return False
    return is_clipped(short.tokens[0], full.tokens)


def _cjk_suffix(gt: Name, pred: Name, ctx: Context) -> bool:
    """"北京故宫" for "故宫": a Chinese name with a place or qualifier before the ground truth's."""
    g, p = gt.norm, pred.norm
    if len(g) < 2 or not CJK.search(g) or not CJK.fullmatch(g[0]) or len(p) <= len(g):
        return False
    prefix = p[: len(p) - len(g)]
    return p.endswith(g) and len(prefix) <= 4 and all(CJK.match(ch) for ch in prefix) and ctx.cjk_suffix_unambiguous(g)


# a dynasty or era named with or without 朝 / 代 ("唐" / "唐朝" / "唐代"); its early, high, middle or late
# part (初唐, 盛唐, 中唐, 晚唐) lies inside it. 南 / 北 / 东 / 西 / 前 / 后 name other states (后唐, 南唐).
_ERA_SUFFIX = re.compile(r"^([\u4e00-\u9fff]{1,2}?)(?:王朝|朝|代)$")
_ERA_PART = re.compile(r"^[初盛中晚]([\u4e00-\u9fff]{1,2})$")


def era_keys(n: Name) -> set[str]:
    """The bare dynasty names a name may denote ("唐朝", "盛唐" -> "唐"), for indexing."""
    out = set()
    for alias in n.aliases:
        if CJK.search(alias) and len(alias) <= 4:
            m = _ERA_SUFFIX.match(alias)
            bare = m.group(1) if m else alias
            part = _ERA_PART.match(bare)
            out.add(part.group(1) if part else bare)
    return out


def _same_era(gt: Name, pred: Name) -> str | None:
    """'equal' for "唐" / "唐朝" / "唐代", 'more' for "盛唐" against "唐朝"; else None."""
    g = _ERA_SUFFIX.match(gt.norm)
    if g is None:
        return None
    for alias in sorted(pred.aliases):
        p = _ERA_SUFFIX.match(alias)
        bare = p.group(1) if p else alias
        if bare == g.group(1):
            return "equal"
        part = _ERA_PART.match(bare)
        if part and part.group(1) == g.group(1):
            return "more"
    return None


def _name_variant(a: Name, b: Name, ctx: Context) -> bool:
    """One person written in two languages or with a double surname: the same last name (one
    side may add a hyphenated first surname: "Maria Skłodowska-Curie" / "Marie Curie"), first
    names that are forms of one name (same first three letters, alike: "Maria" / "Marie"), and
    no third person in the graphs with that surname."""
    fa, fb = a.tokens[0], b.tokens[0]
    last = a.tokens[-1]
    if last != b.tokens[-1] or len(last) < 3 or fa == fb:
        return False
    if len(fa) < 4 or len(fb) < 4 or fa[:3] != fb[:3] or fuzz.ratio(fa, fb) < 75:
        return False
    if "-" not in str(a.raw) + str(b.raw) and len(a.tokens) == len(b.tokens):
        return False  # "Marie Curie" / "Mario Curie": two people unless a double surname tells
    return ctx.surname_owners.get(last, set()) <= {a.norm, b.norm}


def _same_person(a: Name, b: Name, ctx: Context) -> bool:
    if a.is_person_like and b.is_person_like:
        # "Johann Galle" / "Johann Gottfried Galle": same first and last name
        if a.tokens[0] == b.tokens[0] and a.tokens[-1] == b.tokens[-1]:
            return True
        return _name_variant(a, b, ctx)
    short, full = (a, b) if len(a.tokens) == 1 else (b, a)
    if len(short.tokens) != 1 or not full.is_person_like:
        return False
    surname = short.tokens[0]
    return full.tokens[-1] == surname and len(surname) >= 2 and ctx.surname_unambiguous(surname)
