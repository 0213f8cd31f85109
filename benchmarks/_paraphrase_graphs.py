"""Graph pairs written the way search agents write them, and a scripted judge that reads them.

A small world of companies, people, cities, countries, years and awards, each with aliases (full
and short names, other spellings, the Chinese name), and relations with aliases and inverse
(passive) wordings. Ground-truth facts are drawn from it; the predicted graph states each fact
the way an agent might: in the same words, paraphrased (other aliases for head, relation and
tail), reversed (tail and head swapped, the inverse relation), in the other language, split over
two predictions (a list of founders, one prediction per founder), composed through an alias (the
headquarters' city in one prediction, that city under another name in a second one saying which
country it is in), not at all, or as a near miss (nominated is not won; another value). Noise
fills the graph up to the size asked for: facts about entities outside the world, near misses,
and world facts that are not in the ground truth.

``semantic_judge`` is a fake model handler that recognises exactly these aliases, inverse
wordings, joint covers and compositions — what an LLM judge recognises as the same fact — and
answers in whichever format the prompt asks for: ours (``[R3] h | r | t`` lines, ``{"verdicts":
[...]}``) or the official layout's (``GT-3: "h" --[r]--> "t"`` lines, ``{"results": [...]}``).
Its evidence is every shown prediction that supports a covered triple, so two layouts that show
the same predictions get the same covered set and the same supporting predictions.

Used by ``tests/scoring/test_judge_layout_property.py`` (hypothesis draws the fact specs) and
``benchmarks/judge_throughput.py`` (seeded specs).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Literal, Sequence

from vibesearch.llm import fake

# -- the world: every alias list starts with the English name and ends with the Chinese one --

COMPANIES = [
    ["International Business Machines", "IBM", "IBM Corporation", "国际商业机器公司"],
    ["Huawei Technologies", "Huawei", "华为技术有限公司"],
    ["Tencent Holdings", "Tencent", "腾讯控股"],
    ["Alibaba Group", "Alibaba", "阿里巴巴集团"],
    ["Toyota Motor Corporation", "Toyota", "丰田汽车"],
    ["Samsung Electronics", "Samsung", "三星电子"],
    ["Microsoft Corporation", "Microsoft", "MSFT", "微软公司"],
    ["Apple Inc.", "Apple", "苹果公司"],
    ["Nvidia Corporation", "NVIDIA", "英伟达"],
    ["Sony Group", "Sony", "索尼集团"],
    ["Siemens AG", "Siemens", "西门子"],
    ["Baidu Inc.", "Baidu", "百度"],
    ["Xiaomi Corporation", "Xiaomi", "小米集团"],
    ["ByteDance Ltd.", "ByteDance", "字节跳动"],
    ["Nintendo Co., Ltd.", "Nintendo", "任天堂"],
    ["Volkswagen Group", "VW Group", "大众集团"],
]
PEOPLE = [
    ["Ren Zhengfei", "Zhengfei Ren", "任正非"],
    ["Ma Huateng", "Pony Ma", "马化腾"],
    ["Jack Ma", "Ma Yun", "马云"],
    ["Kiichiro Toyoda", "Toyoda Kiichiro", "丰田喜一郎"],
    ["Bill Gates", "William H. Gates", "比尔·盖茨"],
    ["Paul Allen", "Paul G. Allen", "保罗·艾伦"],
    ["Steve Jobs", "Steven P. Jobs", "史蒂夫·乔布斯"],
    ["Steve Wozniak", "Woz", "史蒂夫·沃兹尼亚克"],
    ["Jensen Huang", "Huang Jen-hsun", "黄仁勋"],
    ["Robin Li", "Li Yanhong", "李彦宏"],
    ["Lei Jun", "Jun Lei", "雷军"],
    ["Zhang Yiming", "Yiming Zhang", "张一鸣"],
    ["Satya Nadella", "S. Nadella", "萨提亚·纳德拉"],
    ["Tim Cook", "Timothy D. Cook", "蒂姆·库克"],
    ["Masaru Ibuka", "Ibuka Masaru", "井深大"],
    ["Akio Morita", "Morita Akio", "盛田昭夫"],
]
CITIES = [  # (aliases, country)
    (["New York City", "NYC", "纽约"], 0),
    (["Cupertino", "Cupertino, California", "库比蒂诺"], 0),
    (["Redmond", "Redmond, Washington", "雷德蒙德"], 0),
    (["Santa Clara", "Santa Clara, CA", "圣克拉拉"], 0),
    (["Beijing", "Peking", "北京"], 1),
    (["Shenzhen", "Shenzhen City", "深圳"], 1),
    (["Hangzhou", "Hangchow", "杭州"], 1),
    (["Tokyo", "Tokyo Metropolis", "东京"], 2),
    (["Kyoto", "Kyoto City", "京都"], 2),
    (["Seoul", "Seoul City", "首尔"], 3),
    (["Munich", "München", "慕尼黑"], 4),
    (["Wolfsburg", "Wolfsburg, Germany", "沃尔夫斯堡"], 4),
]
COUNTRIES = [
    ["United States", "USA", "U.S.", "美国"],
    ["China", "PRC", "People's Republic of China", "中国"],
    ["Japan", "Nippon", "日本"],
    ["South Korea", "Republic of Korea", "韩国"],
    ["Germany", "Federal Republic of Germany", "德国"],
]
AWARDS = [
    ["Turing Award", "A.M. Turing Award", "图灵奖"],
    ["Nobel Prize in Physics", "Physics Nobel", "诺贝尔物理学奖"],
    ["Japan Prize", "the Japan Prize", "日本国际奖"],
    ["IEEE Medal of Honor", "IEEE Medal", "IEEE荣誉勋章"],
    ["National Medal of Technology", "US Technology Medal", "美国国家技术奖章"],
]
YEARS = [[str(y), f"the year {y}", f"{y}年"] for y in range(1900, 2021)]
NOISE_HEADS = ["Harbor Authority", "Ferry Line", "Water Board", "Rail Office", "Museum Trust"]
NOISE_RELATIONS = ["operates route to", "maintains", "borders", "sponsors", "was visited by"]

Kind = Literal["company", "person", "city", "country", "award", "year"]
TABLES: dict[str, list[list[str]]] = {
    "company": COMPANIES,
    "person": PEOPLE,
    "city": [aliases for aliases, _ in CITIES],
    "country": COUNTRIES,
    "award": AWARDS,
    "year": YEARS,
}

# relation id -> (head kind, tail kind, aliases, inverse aliases)
RELATIONS: dict[str, tuple[Kind, Kind, list[str], list[str]]] = {
    "founded_by": ("company", "person", ["founded by", "established by", "创始人"], ["founded", "co-founded", "创立"]),
    "ceo": ("company", "person", ["chief executive officer", "CEO", "首席执行官"], ["is CEO of", "leads", "担任首席执行官"]),
    "hq": ("company", "city", ["headquartered in", "headquarters", "总部位于"], ["hosts the headquarters of", "is home to", "是总部所在地"]),
    "located_in": ("city", "country", ["located in", "is a city in", "位于"], ["contains the city", "has the city", "包含城市"]),
    "founded_year": ("company", "year", ["founded in", "year founded", "成立年份"], []),
    "award": ("person", "award", ["won", "received award", "获得"], ["awarded to", "won by", "授予"]),
    "parent": ("company", "company", ["parent company", "owned by", "母公司"], ["owns", "is the parent of", "拥有"]),
}
# never an alias of "award" or any relation: the judge must not accept it
NEAR_MISS_RELATIONS = ["nominated for", "shortlisted for", "获提名"]
FOUNDERS = ["founders", "founding team", "创始团队"]  # tail: "A and B" / "A和B"; each founder is founded_by
HQ_COUNTRY = ["country of headquarters", "headquarters country", "总部所在国家"]  # hq ∘ located_in

# -- reading names back: alias -> canonical id --

_ENTITY: dict[str, tuple[str, int]] = {}
for _kind, _table in TABLES.items():
    for _i, _aliases in enumerate(_table):
        for _a in _aliases:
            _ENTITY[_a.lower()] = (_kind, _i)
_RELATION: dict[str, tuple[str, bool]] = {}  # alias -> (relation id, inverse?)
for _rid, (_, _, _fwd, _inv) in RELATIONS.items():
    _RELATION.update({a.lower(): (_rid, False) for a in _fwd})
    _RELATION.update({a.lower(): (_rid, True) for a in _inv})
_RELATION.update({a.lower(): ("founders", False) for a in FOUNDERS})
_RELATION.update({a.lower(): ("hq_country", False) for a in HQ_COUNTRY})
_SPLIT_LIST = re.compile(r" and |和")
assert len(_ENTITY) == sum(len(a) for table in TABLES.values() for a in table), "an alias names two entities"

Entity = tuple[str, int]
Key = tuple[Entity, str, object]  # (head, relation id, tail entity or frozenset of entities)


def _entity(name: str) -> Entity | None:
    return _ENTITY.get(name.strip().lower())


def canonical(h: str, r: str, t: str) -> Key | None:
    """The fact a triple states, as (head, relation, tail) ids in the relation's own direction;
    None when the judge does not recognise it."""
    rel = _RELATION.get(r.strip().lower())
    if rel is None:
        return None
    rid, inverse = rel
    if rid == "founders":
        head = _entity(h)
        parts = [_entity(p) for p in _SPLIT_LIST.split(t)]
        if head is None or len(parts) < 2 or any(p is None for p in parts):
            return None
        return (head, rid, frozenset(parts))
    head, tail = _entity(h), _entity(t)
    if head is None or tail is None:
        return None
    return (tail, rid, head) if inverse else (head, rid, tail)


def _indexed(shown: dict[int, tuple[str, str, str]]) -> tuple[dict[Key, list[int]], dict]:
    index: dict[Key, list[int]] = {}
    by_head: dict[tuple[Entity, str], list[tuple[object, int]]] = {}
    for j, triple in shown.items():
        key = canonical(*triple)
        if key is not None:
            index.setdefault(key, []).append(j)
            by_head.setdefault((key[0], key[1]), []).append((key[2], j))
    return index, by_head


def expected_coverage(gt: Sequence[dict[str, str]], pred: Sequence[dict[str, str]]) -> dict[int, list[int]]:
    """What a judge shown the whole graph at once finds: covered ground-truth index -> every
    supporting prediction."""
    index, by_head = _indexed({j: (p["head"], p["relation"], p["tail"]) for j, p in enumerate(pred)})
    out = {}
    for i, g in enumerate(gt):
        evidence, _ = _supports((g["head"], g["relation"], g["tail"]), index, by_head)
        if evidence:
            out[i] = evidence
    return out


def _supports(gt: tuple[str, str, str], index: dict[Key, list[int]], by_head: dict) -> tuple[list[int], int | None]:
    key = canonical(*gt)
    if key is None:
        return [], None
    head, rid, tail = key
    found = set(index.get(key, []))
    rule: int | None = 1 if found else None
    if rid == "founders" and isinstance(tail, frozenset):
        parts = [index.get((head, "founded_by", p), []) for p in tail]
        if all(parts):
            found |= {j for part in parts for j in part}
            rule = rule or 3
    if rid == "hq_country":
        for city, j1 in by_head.get((head, "hq"), []):
            second = index.get((city, "located_in", tail), [])
            if second:
                found |= {j1, *second}
                rule = rule or 4
    return sorted(found), rule


# -- the two prompt formats --

OURS = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.MULTILINE)
OFFICIAL = re.compile(r'^(GT|P)-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)


def semantic_judge(req: fake.Request) -> fake.Reply:
    """A fake judge model: reads the prompt in either layout, answers in the format it asks for."""
    text = req.last_user
    official = OFFICIAL.search(text) is not None
    gts: dict[int, tuple[str, str, str]] = {}
    shown: dict[int, tuple[str, str, str]] = {}
    for kind, idx, h, r, t in (OFFICIAL if official else OURS).findall(text):
        (shown if kind == "P" else gts)[int(idx)] = (h, r, t)
    index, by_head = _indexed(shown)
    out = []
    for i, g in gts.items():
        evidence, rule = _supports(g, index, by_head)
        if official:
            out.append({"index": i, "covered": bool(evidence), "supporting_pred_indices": evidence})
        else:
            out.append({"index": i, "covered": bool(evidence), "rule": rule, "evidence": evidence, "rationale": "scripted"})
    return fake.Reply(content=json.dumps({"results" if official else "verdicts": out}, ensure_ascii=False))


# -- building graphs --

FactKind = Literal["founded_by", "ceo", "hq", "located_in", "founded_year", "award", "parent", "founders", "hq_country"]
FACT_KINDS: tuple[FactKind, ...] = ("founded_by", "ceo", "hq", "located_in", "founded_year", "award", "parent", "founders", "hq_country")
Written = Literal["same", "paraphrase", "reversed", "other_language", "split", "missing", "near_miss"]
WRITTEN: tuple[Written, ...] = ("same", "paraphrase", "reversed", "other_language", "split", "missing", "near_miss")


@dataclass(frozen=True)
class FactSpec:
    """One ground-truth fact and how the agent wrote it. ``a``, ``b``, ``c`` pick entities (taken
    modulo the table sizes); ``chinese`` writes the ground truth in Chinese; ``twice`` states it a
    second time in other words (both predictions support it)."""

    kind: FactKind
    a: int
    b: int
    c: int
    written: Written
    chinese: bool = False
    twice: bool = False


def _pick(kind: str, n: int) -> list[str]:
    table = TABLES[kind]
    return table[n % len(table)]


def _alias(aliases: Sequence[str], rng: random.Random, *, chinese: bool | None = None, avoid: str | None = None) -> str:
    """An alias: the Chinese one, an English one, or any (other than ``avoid`` where possible)."""
    english = list(aliases[:-1])
    pool = [aliases[-1]] if chinese else english if chinese is False else list(aliases)
    choices = [a for a in pool if a != avoid] or pool
    return rng.choice(choices)


def _fact(spec: FactSpec) -> tuple[list[str], str, list[str], list[list[str]]]:
    """(head aliases, relation id, tail aliases, founders' aliases for a list fact)."""
    if spec.kind == "founders":
        first = spec.b % len(PEOPLE)
        second = (first + 1 + spec.c % (len(PEOPLE) - 1)) % len(PEOPLE)
        return _pick("company", spec.a), "founders", [], [PEOPLE[first], PEOPLE[second]]
    if spec.kind == "hq_country":
        return _pick("company", spec.a), "hq_country", COUNTRIES[CITIES[spec.b % len(CITIES)][1]], []
    if spec.kind == "located_in":  # a city's own country
        city, country = CITIES[spec.a % len(CITIES)]
        return city, "located_in", COUNTRIES[country], []
    head_kind, tail_kind, _, _ = RELATIONS[spec.kind]
    tail_n = spec.b + (1 if head_kind == tail_kind and spec.b % len(TABLES[tail_kind]) == spec.a % len(TABLES[head_kind]) else 0)
    return _pick(head_kind, spec.a), spec.kind, _pick(tail_kind, tail_n), []


def _relation_aliases(rid: str) -> tuple[list[str], list[str]]:
    if rid == "founders":
        return FOUNDERS, []
    if rid == "hq_country":
        return HQ_COUNTRY, []
    return RELATIONS[rid][2], RELATIONS[rid][3]


def ground_truth_triple(spec: FactSpec) -> tuple[str, str, str]:
    head, rid, tail, founders = _fact(spec)
    fwd, _ = _relation_aliases(rid)
    pick = -1 if spec.chinese else 0
    if founders:
        joined = "和".join(p[-1] for p in founders) if spec.chinese else " and ".join(p[0] for p in founders)
        return head[pick], fwd[pick], joined
    return head[pick], fwd[pick], tail[pick]


def written_predictions(spec: FactSpec, rng: random.Random) -> list[tuple[str, str, str]]:
    """The predictions an agent wrote for one fact (none when it missed it)."""
    head, rid, tail, founders = _fact(spec)
    fwd, inv = _relation_aliases(rid)
    how = spec.written
    if how == "missing":
        return []
    gt = ground_truth_triple(spec)
    if how == "near_miss":
        if rid == "award":
            return [(_alias(head, rng), rng.choice(NEAR_MISS_RELATIONS), _alias(tail, rng))]
        if rid in ("founders", "hq_country"):  # one founder only; the city but not its country
            if founders:
                return [(_alias(head, rng), _alias(RELATIONS["founded_by"][2], rng), _alias(founders[0], rng))]
            city = CITIES[spec.b % len(CITIES)][0]
            return [(_alias(head, rng), _alias(RELATIONS["hq"][2], rng), _alias(city, rng))]
        kind = RELATIONS[rid][1]
        other = TABLES[kind][(TABLES[kind].index(tail) + 1 + spec.c % (len(TABLES[kind]) - 1)) % len(TABLES[kind])]
        return [(_alias(head, rng), _alias(fwd, rng), _alias(other, rng))]
    if rid == "founders" and how in ("split", "reversed", "paraphrase", "other_language"):
        # one prediction per founder, the list never written out
        out = []
        for person in founders:
            if how == "reversed":
                out.append((_alias(person, rng), _alias(RELATIONS["founded_by"][3], rng), _alias(head, rng)))
            else:
                chinese = (not spec.chinese) if how == "other_language" else None
                out.append((_alias(head, rng, chinese=chinese), _alias(RELATIONS["founded_by"][2], rng, chinese=chinese),
                            _alias(person, rng, chinese=chinese)))
        return out
    if rid == "hq_country" and how in ("split", "reversed", "paraphrase", "other_language"):
        # composed through an alias: the city under one name, then under another
        city = CITIES[spec.b % len(CITIES)][0]
        first = _alias(city, rng)
        second = _alias(city, rng, avoid=first)
        located = (second, _alias(RELATIONS["located_in"][2], rng), _alias(tail, rng))
        if how == "reversed":
            located = (_alias(tail, rng), _alias(RELATIONS["located_in"][3], rng), second)
        return [(_alias(head, rng), _alias(RELATIONS["hq"][2], rng), first), located]
    if how == "same":
        return [gt]
    if how == "reversed" and inv:
        return [(_alias(tail, rng), _alias(inv, rng), _alias(head, rng))]
    if how == "other_language":
        chinese = not spec.chinese
        return [(_alias(head, rng, chinese=chinese), _alias(fwd, rng, chinese=chinese), _alias(tail, rng, chinese=chinese))]
    # paraphrase (and reversed/split where the relation has no such form): other words for all three
    return [(_alias(head, rng, avoid=gt[0]), _alias(fwd, rng, avoid=gt[1]), _alias(tail, rng, avoid=gt[2]))]


def noise(rng: random.Random, m: int) -> tuple[str, str, str]:
    """A prediction that covers nothing on purpose: outside the world, or a near miss."""
    roll = rng.random()
    if roll < 0.6:
        return (f"{rng.choice(NOISE_HEADS)} {m:04d}", rng.choice(NOISE_RELATIONS), f"{rng.choice(NOISE_HEADS)} {rng.randrange(40):02d}")
    if roll < 0.8:
        return (_alias(rng.choice(PEOPLE), rng), rng.choice(NEAR_MISS_RELATIONS), _alias(rng.choice(AWARDS), rng))
    rid = rng.choice(list(RELATIONS))
    head_kind, tail_kind, fwd, _ = RELATIONS[rid]  # a world fact: covers a ground-truth triple only by chance
    return (_alias(rng.choice(TABLES[head_kind]), rng), _alias(fwd, rng), _alias(rng.choice(TABLES[tail_kind]), rng))


def build(specs: Sequence[FactSpec], n_pred: int, seed: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(ground truth, predictions): one ground-truth triple per distinct fact, the agent's
    predictions for them, noise up to ``n_pred`` predictions (the facts' own predictions are cut
    to ``n_pred`` if there are more), all in a shuffled order."""
    rng = random.Random(seed)
    gt: list[tuple[str, str, str]] = []
    seen: set[object] = set()
    written: list[tuple[str, str, str]] = []
    for spec in specs:
        triple = ground_truth_triple(spec)
        key = canonical(*triple)
        if key is None or key in seen:
            continue
        seen.add(key)
        gt.append(triple)
        written += written_predictions(spec, rng)
        if spec.twice and spec.written not in ("missing", "near_miss"):
            written += written_predictions(FactSpec(spec.kind, spec.a, spec.b, spec.c, "paraphrase", spec.chinese), rng)
    written = written[:n_pred]
    while len(written) < n_pred:
        written.append(noise(rng, len(written)))
    rng.shuffle(written)

    def as_dict(t: tuple[str, str, str]) -> dict[str, str]:
        return {"head": t[0], "relation": t[1], "tail": t[2]}

    return [as_dict(t) for t in gt], [as_dict(t) for t in written]


def random_specs(rng: random.Random, k: int) -> list[FactSpec]:
    """k fact specs drawn from a seeded generator (the benchmark's graphs)."""
    return [
        FactSpec(rng.choice(FACT_KINDS), rng.randrange(1000), rng.randrange(1000), rng.randrange(1000),
                 rng.choice(WRITTEN), chinese=rng.random() < 0.25, twice=rng.random() < 0.15)
        for _ in range(k)
    ]
