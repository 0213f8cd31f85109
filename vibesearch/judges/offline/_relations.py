"""Relation matching for the offline judge.

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

from ._normalize import CJK, norm

from ._matching import ENTITY_FUZZY

TOKEN_FUZZY = 85  # ratio for two forms of one relation word not in the lexicon
RELATION_MATCH = 0.75  # share of the ground-truth relation's concepts the prediction must carry


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
