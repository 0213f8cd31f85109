"""Entity and relation matching for the offline judge.

Entities: two names are *equal* when they share an alias (the text outside or inside
parentheses), are the same date or quantity, one is the initials of the other ("ICM"), a short
name is the unambiguous surname of the other, or they are near-identical spellings with the same
digits. The predicted name *states more* when it contains the ground-truth name as whole words,
or is a more precise date.

Relations are reduced to concept tokens (a small bilingual lexicon of common relation words,
crude English stemming, Chinese characters otherwise). A predicted relation matches when it
carries the ground-truth relation's concepts; a few marker concepts ("nominated", "former",
negation) must appear on both sides or neither, so "nominated for" never equals "won".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from ._units import quantity_equal
from ._aliases import alias_group
from ._lists import list_items
from ._normalize import CJK, Date, base, contains_phrase, date_relation, digits, norm, parse_date, parse_quantity

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


def _initials(words: list[str], keep_stop: bool = False) -> str:
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

    @property
    def is_person_like(self) -> bool:
        """Two to four name parts, no digits, no word that marks a place or an organisation."""
        return (
            2 <= len(self.tokens) <= 4
            and not any(ch.isdigit() for ch in self.norm)
            and not any(t in _NOT_PERSON for t in self.tokens)
        )


@lru_cache(maxsize=65536)
def name_of(raw: str) -> Name:
    text = base(raw)
    parts = [text]
    outside = re.sub(r"\([^()]*\)", " ", text).strip()
    inside = re.findall(r"\(([^()]*)\)", text)
    if outside and outside != text:
        parts.append(outside)
    parts.extend(p for p in inside if p.strip())
    aliases = frozenset(a for a in (norm(p) for p in parts) if a)
    main = norm(outside or text)
    # name parts: spaces, and the middle dots that separate the parts of transcribed names
    tokens = tuple(tok for part in re.split(r"[\s·•・‧]+", outside or text) for tok in norm(part).split())
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
    for alias in aliases:  # an alias that is itself an acronym: "Star Alliance (SA)"
        if acronym is None and re.fullmatch(r"[a-z]{2,8}", alias) and alias.upper() in str(raw):
            acronym = alias
    return Name(
        raw=raw,
        norm=main,
        aliases=aliases,
        tokens=tokens,
        acronym=acronym,
        initials=frozenset(initials),
        date=parse_date(raw),
        quantity=parse_quantity(raw),
        group=next((g for g in (alias_group(a) for a in sorted(aliases)) if g is not None), None),
    )


class Context:
    """What entity matching may consult about the two graphs: surnames shared by several names."""

    def __init__(self, names: list[Name]):
        owners: dict[str, set[str]] = {}
        for n in names:
            if n.is_person_like:
                owners.setdefault(n.tokens[-1], set()).add(n.norm)
        self.surname_owners = owners

    def surname_unambiguous(self, surname: str) -> bool:
        return len(self.surname_owners.get(surname, ())) == 1


def entity_relation(gt: Name, pred: Name, ctx: Context) -> str | None:
    """'equal', 'more' (the prediction says more and includes it) or None."""
    return entity_match(gt, pred, ctx)[0]


def entity_match(gt: Name, pred: Name, ctx: Context) -> tuple[str | None, str]:
    """As ``entity_relation``, plus the name of the rule that decided it."""
    if gt.aliases & pred.aliases:
        return "equal", "same name"
    if gt.group is not None and gt.group == pred.group:
        return "equal", "alias table"
    items = list_items(pred.raw) if list_items(gt.raw) is None else None
    if items is not None:
        # a list states the name only when one item is the name (not merely contains it)
        for item in items:
            level, _ = entity_match(gt, name_of(item), ctx)
            if level == "equal":
                return "more", "list member"
        return None, "not in the list"
    if gt.date is not None and pred.date is not None:
        return date_relation(gt.date, pred.date), "date"
    if gt.quantity is not None and pred.quantity is not None:
        how = quantity_equal(gt.quantity, pred.quantity)
        return ("equal", "unit conversion" if how == "converted" else "number") if how else (None, "number")
    acronym_hit = gt.acronym and gt.acronym in pred.initials or pred.acronym and pred.acronym in gt.initials
    if acronym_hit:
        # a curated name's acronym means the curated expansion only ("MIT" is not any "M. I. of T.")
        if gt.group is None and pred.group is None:
            return "equal", "acronym"
        return None, "acronym collision"
    if _same_person(gt, pred, ctx):
        return "equal", "surname"
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


def _same_person(a: Name, b: Name, ctx: Context) -> bool:
    if a.is_person_like and b.is_person_like:
        # "Johann Galle" / "Johann Gottfried Galle": same first and last name
        return a.tokens[0] == b.tokens[0] and a.tokens[-1] == b.tokens[-1]
    short, full = (a, b) if len(a.tokens) == 1 else (b, a)
    if len(short.tokens) != 1 or not full.is_person_like:
        return False
    surname = short.tokens[0]
    return full.tokens[-1] == surname and len(surname) >= 2 and ctx.surname_unambiguous(surname)


# ---------------------------------------------------------------- relations
# concept -> words that express it (English words and Chinese words)
_LEXICON: dict[str, tuple[str, ...]] = {
    "found": ("found", "founded", "founding", "founder", "founders", "establish", "established", "establishment",
              "create", "created", "creation", "inception", "formed", "formation", "创始", "创立", "成立", "建立", "创建", "创办", "组建"),
    "time": ("year", "years", "date", "time", "when", "年份", "年代", "日期", "时间", "时候", "年"),
    "birth": ("born", "birth", "birthplace", "出生", "诞生", "生于"),
    "death": ("died", "die", "dies", "death", "dead", "逝世", "去世", "死亡", "卒于", "逝于"),
    "place": ("place", "location", "located", "city", "site", "地点", "位于", "所在地", "所在", "位置", "地址"),
    "hq": ("headquarters", "headquarter", "headquartered", "hq", "总部"),
    "member": ("member", "members", "membership", "成员", "会员"),
    "count": ("number", "count", "total", "amount", "数量", "数目", "总数", "个数", "人数"),
    "win": ("won", "win", "wins", "winner", "winning", "received", "receive", "award", "awarded", "awards",
            "获得", "获奖", "荣获", "得奖", "获"),
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
    "max": ("maximum", "max", "最大", "最多", "上限", "最高"),
    "min": ("minimum", "min", "最小", "最少", "下限", "最低"),
    "symptom": ("symptom", "symptoms", "症状", "表现"),
    "crew": ("crew", "crewmember", "机组", "乘员"),
    "compose": ("composed", "compose", "composer", "wrote", "written", "author", "创作", "作曲", "作者"),
    "teacher": ("teacher", "taught", "mentor", "advisor", "supervisor", "老师", "导师"),
    "student": ("student", "pupil", "学生", "弟子"),
    "daily": ("daily", "day", "每日", "每天", "日均"),
    "visit": ("visitor", "visitors", "visits", "tourists", "游客", "参观", "接待", "访客"),
    "diameter": ("diameter", "直径"),
    "price": ("price", "cost", "fare", "fee", "价格", "票价", "费用"),
    "open": ("opened", "opening", "open", "开通", "开放", "启用", "投用", "通航"),
    "start": ("start", "started", "begin", "began", "commenced", "开始", "开工"),
    "build": ("construction", "built", "build", "建设", "修建", "兴建", "建造"),
    "classify": ("classified", "classification", "category", "type", "分类", "类别", "类型", "属于"),
    "former": ("formerly", "former", "previously", "ex", "曾经", "前任", "原为"),
    "not": ("not", "no", "never", "non", "不是", "并非", "未能", "从未", "没有", "未曾"),
    "moon": ("moon", "moons", "satellite", "卫星"),
}
_WORD_CONCEPT = {w: c for c, words in _LEXICON.items() for w in words}
_CJK_WORDS = sorted((w for w in _WORD_CONCEPT if CJK.search(w)), key=len, reverse=True)
_CJK_RE = re.compile("|".join(map(re.escape, _CJK_WORDS)))
_STOP = {"is", "was", "are", "were", "be", "been", "being", "the", "a", "an", "of", "in", "on", "at", "to",
         "for", "has", "have", "had", "its", "their", "his", "her", "with", "as", "from", "that", "which",
         "and", "or", "per", "s", "的", "是", "为", "了", "之", "于", "在", "有", "和", "及", "与", "者"}
# concepts that describe the type of the value rather than the fact: they may be left unsaid
_SOFT = {"time", "place", "count", "name"}
# concepts that change the fact: both sides carry them or neither does
_MARKERS = {"nominat", "former", "not"}
_AGENT_SUFFIX = re.compile(r"(er|or)$")


@dataclass
class Relation:
    norm: str
    concepts: frozenset[str]
    passive: bool  # "proved by", "discoverer", "证明者": the head is what was acted on
    hard: frozenset[str] = field(default_factory=frozenset)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=65536)
def relation_of(raw: str) -> Relation:
    text = norm(raw.replace("_", " "))
    passive = bool(re.search(r"\bby\b", text)) or text.endswith("者") or "被" in text
    concepts: set[str] = set()
    rest = _CJK_RE.sub(lambda m: " " + _WORD_CONCEPT[m.group(0)] + "§ ", text)
    for token in rest.split():
        if token.endswith("§"):
            concepts.add(token[:-1])
            continue
        if CJK.search(token):
            concepts.update(ch for ch in token if ch not in _STOP and CJK.match(ch))
            continue
        if token in _STOP or token == "by":
            continue
        if token in _WORD_CONCEPT:
            concept = _WORD_CONCEPT[token]
            if concept in ("discover", "prove", "propose", "found", "compose") and _AGENT_SUFFIX.search(token):
                passive = True  # "discoverer" of X = X discovered by
            concepts.add(concept)
        else:
            concepts.add(_stem(token))
    hard = frozenset(c for c in concepts if c not in _SOFT)
    return Relation(norm=text, concepts=frozenset(concepts), passive=passive, hard=hard)


def _carried(concept: str, others: frozenset[str]) -> bool:
    if concept in others:
        return True
    if len(concept) >= 4 and not CJK.search(concept):
        return any(len(o) >= 4 and fuzz.ratio(concept, o) >= TOKEN_FUZZY for o in others)
    return False


@lru_cache(maxsize=262144)
def relation_score(gt_raw: str, pred_raw: str) -> float:
    """How much of the ground-truth relation the predicted one carries (0..1)."""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if gt.norm == pred.norm:
        return 1.0
    if (gt.concepts & _MARKERS) != (pred.concepts & _MARKERS):
        return 0.0
    wanted = gt.hard or gt.concepts
    if not wanted:
        return fuzz.ratio(gt.norm, pred.norm) / 100
    carried = sum(1 for c in wanted if _carried(c, pred.concepts))
    score = carried / len(wanted)
    if score < RELATION_MATCH and fuzz.ratio(gt.norm, pred.norm) >= ENTITY_FUZZY:
        return 1.0
    return score


def relation_matches(gt_raw: str, pred_raw: str) -> bool:
    return relation_score(gt_raw, pred_raw) >= RELATION_MATCH


def passive_flipped(gt_raw: str, pred_raw: str) -> bool:
    """Do the relations say the same with head and tail swapped ("proved by" / "proved")?"""
    gt, pred = relation_of(gt_raw), relation_of(pred_raw)
    if gt.passive == pred.passive:
        return False
    return relation_matches(gt_raw, pred_raw)
