"""Entity and relation matching for the offline judge.

Entities: two names are *equal* when they share an alias (the text outside or inside
parentheses, with abbreviated places spelled out and a leading "the" dropped), are the same date or
quantity (any bracketed form; across unit systems with rounding; an exact figure for a rounded
"1.3 million"), one is the initials of the other ("ICM", "G7" / "Group of Seven"), a short name is
the unambiguous surname of the other (titles dropped), they are one name once class words are
dropped ("University of Tokyo" / "Tokyo University"), one is clipped from the other ("Caltech"), a
Chinese name has a qualifier before the other ("北京故宫" / "故宫"), or they are near-identical
spellings with the same digits. The predicted name *states more* when it contains the ground-truth
name as whole words, is a list with it as an item, or is a more precise date.

Relations are reduced to concept tokens (a small bilingual lexicon of common relation words,
crude English stemming, Chinese characters otherwise). A predicted relation matches when it
carries the ground-truth relation's concepts; a few marker concepts ("nominated", "former",
negation) must appear on both sides or neither, so "nominated for" never equals "won"; opposite
concepts never match; capitalised words and numbers of the ground-truth relation must be carried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from ._bounds import bound_states, parse_bound
from ._names import core, expand_abbreviations, is_clipped, strip_titles
from ._units import finer_figure, hedged_step, quantity_equal, rounding_step, within_rounding
from ._aliases import alias_group
from ._lists import list_items
from ._normalize import CJK, Date, base, contains_phrase, date_relation, dates_inside, digits, julian_to_gregorian, old_style, norm, parse_date, parse_quantity

ENTITY_FUZZY = 90  # rapidfuzz ratio for two spellings of one name
TOKEN_FUZZY = 85  # ratio for two forms of one relation word not in the lexicon
RELATION_MATCH = 0.75  # share of the ground-truth relation's concepts the prediction must carry

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


# ---------------------------------------------------------------- relations
# concept -> words that express it (English words and Chinese words)
_LEXICON: dict[str, tuple[str, ...]] = {
    "found": ("found", "founded", "founding", "founder", "founders", "establish", "established", "establishment",
              "inception", "formed", "formation", "cofounded", "cofounder", "创始", "创立", "成立", "建立", "创建", "创办", "组建"),
    "make": ("create", "created", "creates", "creation", "creator", "designed", "design", "designer", "develop",
             "developed", "developer", "development", "invented", "invent", "inventor", "invention", "发明", "设计", "开发"),
    "office": ("served", "serve", "serves", "serving", "office", "offices", "position", "post", "held", "担任", "任职", "职位", "职务"),
    "lead": ("ceo", "chief executive", "chief executive officer", "led", "leader", "head", "headed", "首席执行官", "总裁", "领导"),
    "venue": ("ground", "stadium", "arena", "venue", "field", "park", "球场", "主场", "体育场"),
    "mouth": ("mouth", "empties", "empty", "drains", "outflow", "outlet", "flows into", "discharges", "河口", "注入", "汇入"),
    "voyage": ("sailed", "sail", "sails", "voyage", "aboard", "ship", "vessel", "航行", "搭乘"),
    "critic": ("criticized", "criticised", "criticism", "critique", "critic", "critiqued", "批评", "批判"),
    "release": ("released", "release", "releases", "album", "albums", "record", "recorded", "发行", "专辑"),
    "orbit": ("orbit", "orbits", "orbiting", "revolves", "环绕", "绕"),
    "time": ("year", "years", "date", "time", "when", "年份", "年代", "日期", "时间", "时候", "年"),
    "birth": ("born", "birth", "birthplace", "出生", "诞生", "生于"),
    "death": ("died", "die", "dies", "death", "dead", "逝世", "去世", "死亡", "卒于", "逝于"),
    "place": ("place", "location", "located", "city", "site", "campus", "based", "situated", "地点", "位于", "所在地", "所在", "位置", "地址"),
    "hq": ("headquarters", "headquarter", "headquartered", "hq", "总部"),
    "member": ("member", "members", "membership", "成员", "会员"),
    "count": ("number", "count", "total", "amount", "数量", "数目", "总数", "个数", "人数"),
    "win": ("won", "win", "wins", "winner", "winning", "received", "receive", "award", "awarded", "awards",
            "laureate", "laureates", "recipient", "recipients", "获得", "获奖", "荣获", "得奖", "获"),
    "nominat": ("nominated", "nomination", "nominations", "nominee", "nominate", "提名", "入围"),
    "discover": ("discovered", "discover", "discovery", "discoverer", "发现", "发现者"),
    "prove": ("proved", "proven", "prove", "proof", "prover", "证明"),
    "propose": ("proposed", "propose", "proposer", "proposal", "提出"),
    "english": ("english", "英文", "英语"),
    "name": ("name", "named", "called", "title", "名称", "名字", "称号", "名"),
    "abbr": ("abbreviation", "abbreviated", "abbr", "acronym", "缩写", "简称"),
    "country": ("country", "nation", "nationality", "国家", "国籍"),
    "height": ("height", "tall", "elevation", "高度", "海拔", "身高"),
    "length": ("length", "long", "长度", "全长"),
    "distance": ("distance", "距离"),
    "capacity": ("capacity", "seating", "seats", "seat", "passengers", "座位", "载客量", "容量", "座位数"),
    "max": ("maximum", "max", "top", "peak", "highest", "最大", "最多", "上限", "最高"),
    "min": ("minimum", "min", "最小", "最少", "下限", "最低"),
    "symptom": ("symptom", "symptoms", "症状", "表现"),
    "crew": ("crew", "crewmember", "机组", "乘员"),
    "compose": ("composed", "compose", "composer", "wrote", "written", "author", "创作", "作曲", "作者"),
    "teacher": ("teacher", "taught", "mentor", "advisor", "supervisor", "老师", "导师"),
    "student": ("student", "pupil", "学生", "弟子"),
    "doctor": ("doctoral", "doctorate", "phd", "ph d", "dphil", "博士"),
    "team": ("plays for", "played for", "playing for", "club", "team", "效力", "球队", "俱乐部"),
    "daily": ("daily", "day", "每日", "每天", "日均"),
    "visit": ("visitor", "visitors", "visits", "tourists", "游客", "参观", "接待", "访客"),
    "diameter": ("diameter", "直径"),
    "price": ("price", "cost", "fare", "fee", "价格", "票价", "费用"),
    "open": ("opened", "opening", "open", "开通", "开放", "启用", "投用", "通航"),
    "start": ("start", "started", "begin", "began", "commenced", "开始", "开工"),
    "build": ("construction", "built", "build", "建设", "修建", "兴建", "建造"),
    "classify": ("classified", "classification", "category", "type", "分类", "类别", "类型", "属于"),
    "former": ("formerly", "former", "previously", "ex", "曾经", "前任", "原为"),
    "not": ("not", "no", "never", "non", "refuted", "refute", "rejected", "reject", "disproved", "disprove",
            "denied", "deny", "opposed", "oppose", "against", "不是", "并非", "未能", "从未", "没有", "未曾"),
    "moon": ("moon", "moons", "satellite", "卫星"),
    # words that make another office or kinship: "vice president" is not "president"
    "deputy": ("vice", "deputy", "assistant", "associate", "acting", "interim", "honorary", "backup", "reserve",
               "alternate", "substitute", "副"),
    "step": ("half", "step", "stepfather", "stepmother", "stepson", "stepdaughter", "in law"),
    # words that only say what kind of thing the value is ("member state"): may be left unsaid
    "kind": ("state", "states", "value", "figure", "topic", "subject"),
}
_WORD_CONCEPT = {w: c for c, words in _LEXICON.items() for w in words}
_CJK_WORDS = sorted((w for w in _WORD_CONCEPT if CJK.search(w)), key=len, reverse=True)
_CJK_RE = re.compile("|".join(map(re.escape, _CJK_WORDS)))
_STOP = {"is", "was", "are", "were", "be", "been", "being", "the", "a", "an", "of", "in", "on", "at", "to",
         "for", "into", "onto", "has", "have", "had", "its", "their", "his", "her", "with", "as", "from", "that", "which",
         "and", "or", "per", "s", "originally", "initially", "also", "officially",
         "的", "是", "为", "了", "之", "于", "在", "有", "和", "及", "与", "者"}
# concepts that describe the type of the value rather than the fact: they may be left unsaid
_SOFT = {"time", "place", "count", "name", "kind"}
# concepts that change the fact: both sides carry them or neither does
_MARKERS = {"nominat", "former", "not", "deputy", "step"}
_AGENT_SUFFIX = re.compile(r"(er|or)$")


@dataclass
class Relation:
    norm: str
    concepts: frozenset[str]
    passive: bool  # "proved by", "discoverer", "证明者": the head is what was acted on
    hard: frozenset[str] = field(default_factory=frozenset)
    order: tuple[str, ...] = ()  # the hard concepts in the order they are written
    named: frozenset[str] = frozenset()  # concepts of capitalised words and numbers ("Physics", "2020")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# concepts whose agent noun is passive ("discoverer" of X = X discovered by), unless followed by "of"
_AGENT_CONCEPTS = {"discover", "prove", "propose", "found", "compose", "make", "lead"}
_AGENT_NOUNS = {"ceo", "leader", "head", "chief executive", "chief executive officer", "author"}
_PHRASES = sorted((w for w in _WORD_CONCEPT if " " in w and not CJK.search(w)), key=len, reverse=True)
_PHRASE_RE = re.compile(r"\b(" + "|".join(map(re.escape, _PHRASES)) + r")\b") if _PHRASES else None
_OPPOSITE = [frozenset(p) for p in (("birth", "death"), ("max", "min"), ("teacher", "student"), ("open", "start"))]


# irregular past forms of common verbs, read as the verb ("fell" / "fall", "sank" / "sinking")
_IRREGULAR = {
    "fell": "fall", "fallen": "fall", "took": "take", "taken": "take", "gave": "give", "given": "give",
    "rose": "rise", "risen": "rise", "sank": "sink", "sunk": "sink", "flew": "fly", "flown": "fly",
    "grew": "grow", "grown": "grow", "became": "become", "ran": "run", "sold": "sell", "bought": "buy",
    "spoke": "speak", "spoken": "speak", "drew": "draw", "drawn": "draw", "sang": "sing", "sung": "sing",
    "struck": "strike", "lost": "lose", "met": "meet", "brought": "bring", "thought": "think",
    "chose": "choose", "chosen": "choose", "froze": "freeze", "frozen": "freeze", "shot": "shoot",
    "wore": "wear", "worn": "wear", "sent": "send", "spent": "spend", "stood": "stand", "told": "tell",
    "went": "go", "gone": "go", "came": "come", "saw": "see", "seen": "see", "knew": "know",
    "fought": "fight", "beaten": "beat", "swam": "swim", "threw": "throw", "thrown": "throw",
    "drove": "drive", "driven": "drive", "rode": "ride", "ridden": "ride", "kept": "keep", "fled": "flee",
    "sought": "seek", "caught": "catch", "dug": "dig", "hung": "hang", "shook": "shake", "woke": "wake",
}


def _token_concept(token: str) -> str:
    if token in _WORD_CONCEPT:
        return _WORD_CONCEPT[token]
    return _stem(_IRREGULAR.get(token, token))


@lru_cache(maxsize=65536)
def relation_of(raw: str) -> Relation:
    text = norm(raw.replace("_", " "))
    passive = bool(re.search(r"\bby\b", text)) or text.endswith("者") or "被" in text
    concepts: set[str] = set()
    order: list[str] = []
    rest = _CJK_RE.sub(lambda m: " " + _WORD_CONCEPT[m.group(0)] + "§ ", text)
    if _PHRASE_RE is not None:
        rest = _PHRASE_RE.sub(lambda m: " " + m.group(0).replace(" ", "_") + " ", rest)
    tokens = rest.split()
    for n, token in enumerate(tokens):
        token = token.replace("_", " ")
        if token.endswith("§"):
            concept = token[:-1]
        elif CJK.search(token):
            chars = [ch for ch in token if ch not in _STOP and CJK.match(ch)]
            concepts.update(chars)
            order.extend(chars)
            continue
        elif token in _STOP or token == "by":
            continue
        elif token in _WORD_CONCEPT:
            concept = _WORD_CONCEPT[token]
            agent = (concept in _AGENT_CONCEPTS and _AGENT_SUFFIX.search(token)) or token in _AGENT_NOUNS
            if agent and concept in _AGENT_CONCEPTS | {"compose"}:
                followed_by_of = n + 1 < len(tokens) and tokens[n + 1] == "of"
                if followed_by_of:  # "founder of X" = founded X; "author of X" = wrote X
                    passive = passive and bool(re.search(r"\bby\b", text))
                else:
                    passive = True  # "discoverer" of X = X discovered by
        else:
            concept = _stem(_IRREGULAR.get(token, token))
        concepts.add(concept)
        order.append(concept)
    named: set[str] = set()
    words = re.findall(r"[^\W_]+", str(raw))
    for i, word in enumerate(words):
        if word.isdigit() or (i > 0 and word[:1].isupper() and not CJK.search(word)):
            named.add(_token_concept(norm(word)))
    hard = frozenset(c for c in concepts if c not in _SOFT)
    return Relation(norm=text, concepts=frozenset(concepts), passive=passive, hard=hard,
                    order=tuple(c for c in order if c in hard), named=frozenset(named) & hard)


def _same_stem(a: str, b: str) -> bool:
    """Two forms of one word: one a prefix of the other, or a common stem of 5+ letters with
    short endings ("generat" / "generation", "criticiz" / "critiqu", "habilitation" / "habilitationsvortrag")."""
    if CJK.search(a) or CJK.search(b) or min(len(a), len(b)) < 5:
        return False
    if a.startswith(b) or b.startswith(a):
        return True
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k >= 5 and len(a) - k <= 3 and len(b) - k <= 3


def _carried(concept: str, others: frozenset[str]) -> bool:
    if concept in others:
        return True
    if len(concept) >= 4 and not CJK.search(concept):
        return any(len(o) >= 4 and (fuzz.ratio(concept, o) >= TOKEN_FUZZY or _same_stem(concept, o)) for o in others)
    return False


def relations_differ(gt_raw: str, pred_raw: str) -> bool:
    """Words that make two relations different facts whatever else they share: a marker on one
    side only ("nominated", "former", "vice"), opposites ("born" / "died", "maximum" / "minimum"),
    or a capitalised word or number of the ground truth the prediction lacks ("Nobel Prize in
    Physics" / "… in Chemistry")."""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if (gt.concepts & _MARKERS) != (pred.concepts & _MARKERS):
        return True
    if any(len(pair & gt.concepts) == 1 and len(pair & pred.concepts) == 1 and pair & gt.concepts != pair & pred.concepts
           for pair in _OPPOSITE):
        return True
    return any(not _carried(c, pred.concepts) for c in gt.named)


@lru_cache(maxsize=262144)
def relation_score(gt_raw: str, pred_raw: str) -> float:
    """How much of the ground-truth relation the predicted one carries (0..1)."""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if gt.norm == pred.norm:
        return 1.0
    if relations_differ(gt_raw, pred_raw):
        return 0.0
    wanted = gt.hard or gt.concepts
    if not wanted:
        return fuzz.ratio(gt.norm, pred.norm) / 100
    carried = sum(1 for c in wanted if _carried(c, pred.concepts))
    score = carried / len(wanted)
    if score < RELATION_MATCH and fuzz.ratio(gt.norm, pred.norm) >= ENTITY_FUZZY:
        return 1.0
    return score


PARAPHRASE_MATCH = 0.5  # share of concepts a paraphrased relation must carry when both names agree


@lru_cache(maxsize=262144)
def relation_paraphrase(gt_raw: str, pred_raw: str) -> bool:
    """A looser reading for a predicted triple whose head and tail already agree with the ground
    truth: half of a relation of two or more concepts is carried, every capitalised word and
    number of the ground truth is among them, what is left out is a modifier or an object
    rather than a relation word of the lexicon, and the rest is not a different fact — either the
    prediction adds no concept of its own ("mirror diameter" for "primary mirror diameter") or
    both open with the same word ("critique of infinitesimals" / "criticized calculus in")."""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    wanted = gt.hard
    if len(wanted) < 2 or relation_score(gt_raw, pred_raw) < PARAPHRASE_MATCH:
        return False
    if any(c in _LEXICON for c in wanted if not _carried(c, pred.concepts)):
        return False  # a relation word left out changes the fact ("founding member" / "member")
    extra = [c for c in pred.hard if not _carried(c, gt.concepts)]
    if not extra:
        return True
    if sum(1 for c in wanted if _carried(c, pred.concepts)) >= 2 and not any(c in _LEXICON for c in extra):
        return True  # two words of the ground truth said together ("laws of motion"), no other relation word
    return bool(gt.order and pred.order and _carried(gt.order[0], frozenset({pred.order[0]})))


# concepts that only say "is one of": a list tail says it by itself ("crew member" / "crew: A, B, C")
_MEMBERSHIP = {"member", "includ", "include", "compris", "comprise", "consist", "contain", "part"}


@lru_cache(maxsize=65536)
def list_relation(gt_raw: str, pred_raw: str) -> bool:
    """For a ground-truth tail found as an item of a predicted list: the relations match once
    the membership words are left out of the ground truth's ("crew member" / "crew", "comprises"
    / "member countries"). When nothing else is left, the prediction must say membership too."""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if not gt.concepts & _MEMBERSHIP or (gt.concepts & _MARKERS) != (pred.concepts & _MARKERS):
        return False
    rest = gt.hard - _MEMBERSHIP
    if not rest:
        return bool(pred.concepts & _MEMBERSHIP)
    return sum(1 for c in rest if _carried(c, pred.concepts)) / len(rest) >= RELATION_MATCH


def relation_matches(gt_raw: str, pred_raw: str) -> bool:
    return relation_score(gt_raw, pred_raw) >= RELATION_MATCH


def passive_flipped(gt_raw: str, pred_raw: str) -> bool:
    """Do the relations say the same with head and tail swapped ("proved by" / "proved")?"""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if gt.passive == pred.passive:
        return False
    return relation_matches(gt_raw, pred_raw)
