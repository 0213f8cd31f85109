"""Relation roles for the offline judge: inverse pairs, symmetric relations, containment.

A relation phrase (normalised, a leading "is"/"was"/"has been" dropped) may have a *role*: a
group and a side. Two phrases of one group on opposite sides say the same fact with head and
tail swapped ("X advisor of Y" / "Y doctoral advisor X"); on opposite sides with head and tail
*not* swapped they contradict, so the judge refuses that match. Symmetric relations ("spouse",
"sibling", "borders") hold both ways. Only the phrases listed here have a role: anything else is
left to the lexicon matching in ``_matching`` (or to an LLM judge).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._normalize import norm

_ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # group: (side a: the head acts on the tail, side b: the tail acts on the head)
    "advise": (
        ("advisor of", "adviser of", "doctoral advisor of", "supervisor of", "doctoral supervisor of", "teacher of",
         "mentor of", "advised", "supervised", "taught", "mentored", "doctoral student", "doctoral students",
         "student", "students", "has student", "has doctoral student", "学生", "弟子", "博士生"),
        ("doctoral advisor", "doctoral adviser", "advisor", "adviser", "supervisor", "doctoral supervisor", "teacher",
         "mentor", "student of", "doctoral student of", "pupil of", "studied under", "advised by", "supervised by",
         "taught by", "mentored by", "has advisor", "has doctoral advisor", "has teacher", "导师", "老师", "师从"),
    ),
    "parent": (
        ("parent of", "father of", "mother of", "child", "children", "son", "sons", "daughter", "daughters",
         "has child", "儿子", "女儿", "子女"),
        ("child of", "son of", "daughter of", "father", "mother", "parent", "parents", "has father", "has mother",
         "父亲", "母亲"),
    ),
    "elder": (("younger brother", "younger sister", "弟弟", "妹妹"), ("elder brother", "older brother", "elder sister", "older sister", "哥哥", "姐姐")),
    "locate": (
        ("contains", "contain", "includes the city", "has city", "下辖", "包含"),
        ("located in", "located within", "lies in", "situated in", "in", "within", "city in", "country",
         "location", "located in the administrative territorial entity", "borough of", "district of",
         "neighbourhood of", "neighborhood of", "suburb of", "quarter of", "ward of", "province of",
         "region of", "municipality of", "department of", "state of", "canton of", "oblast of", "town in", "village in", "continent", "province", "county",
         "region", "prefecture", "位于", "地处",
         # on a point, an island or a site; in a region named by its kind ("in region: Cusco Region")
         "located on", "situated on", "located at", "situated at", "in region", "in the region", "in province",
         "in the province", "in state", "in the state", "in county", "in the county", "in country"),
    ),
    "part": (("has part", "has parts", "consists of", "comprises"), ("part of", "component of", "隶属")),
    "member": (
        ("has member", "members", "member", "member airlines", "includes member", "成员"),
        ("member of", "a member of", "joined", "one half of", "half of", "one of the members of", "加入"),
    ),
    "own": (
        ("owns", "owner of", "has subsidiary", "subsidiary", "subsidiaries", "parent company of", "parent organization of"),
        ("owned by", "owner", "subsidiary of", "parent company", "parent organization", "parent organisation"),
    ),
    "educated": (
        ("studied at", "educated at", "attended", "alumnus of", "alumna of", "alumni of", "graduate of",
         "graduated from", "alma mater", "has alma mater"),
        ("alma mater of", "alumni", "alumnus", "alumna", "notable alumni", "has alumnus", "has alumni", "attended by"),
    ),
    # a prize and who received it: "X awarded to Y" / "Y won X"
    "award": (
        ("awarded to", "given to", "presented to", "conferred on", "won by", "received by", "winner", "winners",
         "laureate", "laureates", "recipient", "recipients", "获奖者", "得主"),
        ("won", "winner of", "received", "recipient of", "laureate of", "has won", "was awarded", "awarded",
         "获得", "荣获", "获"),
    ),
    "capital": (("capital", "has capital", "首都"), ("capital of", "capital city of")),
    "orbit": (
        ("orbits", "orbit", "satellite of", "natural satellite of", "moon of", "revolves around", "环绕"),
        ("has natural satellite", "has natural satellites", "natural satellite", "natural satellites", "has satellite",
         "satellites", "has moon", "has moons", "moons", "moon", "卫星"),
    ),
    # who leads an organisation: each office is its own group ("CEO" is not "chairman")
    "ceo": (
        ("ceo of", "chief executive of", "chief executive officer of", "is ceo of"),
        ("ceo", "chief executive", "chief executive officer", "has ceo"),
    ),
    "lead": (("leader of", "head of", "leads", "led", "heads", "headed"), ("led by", "headed by", "leader", "head")),
    "chair": (("chairman of", "chair of", "chairwoman of", "chairperson of"), ("chairman", "chair", "chairwoman", "chairperson")),
    "succession": (
        ("succeeded by", "followed by", "successor", "predecessor of", "preceded"),
        ("successor of", "preceded by", "predecessor", "succeeded", "followed"),
    ),
}
_SYMMETRIC = {
    "spouse", "spouse of", "married to", "sibling", "siblings", "sibling of", "twinned with", "twin city",
    "twin town", "sister city", "sister city of", "borders", "shares border with", "shares a border with",
    "adjacent to", "neighbour of", "neighbor of", "配偶", "兄弟", "姐妹", "友好城市",
}
_LEADING = re.compile(r"^(?:is|was|are|were|has been|have been|the)\s+")


def _key(raw: str) -> str:
    text = norm(raw.replace("_", " "))
    previous = None
    while previous != text:
        previous, text = text, _LEADING.sub("", text)
    return text


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for group, (side_a, side_b) in _ROLES.items():
        for side, phrases in (("a", side_a), ("b", side_b)):
            for phrase in phrases:
                out[_key(phrase)] = (group, side)
    return out


@lru_cache(maxsize=65536)
def role(raw: str) -> tuple[str, str] | None:
    """(group, side) of a relation phrase, ("symmetric", phrase) or None."""
    key = _key(raw)
    if key in _SYMMETRIC:
        return ("symmetric", key)
    return _table().get(key)


# a word before a relation phrase that narrows it without changing it: a founding member is a member
_NARROWING = re.compile(r"^(?:founding|original|charter|permanent|full|principal|co)\s+")


@lru_cache(maxsize=65536)
def pred_role(raw: str) -> tuple[str, str] | None:
    """As ``role``, for a predicted phrase, which may also carry a narrowing word ("founding
    member of" says "member of"). Only the prediction may say more: a ground-truth "founding
    member of" is not stated by "member of"."""
    found = role(raw)
    if found is not None:
        return found
    key = _key(raw)
    narrowed = _NARROWING.sub("", key)
    if narrowed != key:
        return role(narrowed)
    return _qualified_role(key)


# what may follow a relation phrase without changing it: an object or a circumstance
# ("supervised the doctorate of", "advisor at Princeton")
_QUALIFIER = re.compile(r"^(?:the|a|an|his|her|their|its|at|during|while|from|for)\s")


def _qualified_role(key: str) -> tuple[str, str] | None:
    """The role of the longest table phrase that opens the predicted phrase, when what follows it
    is a qualifier (``_QUALIFIER``) rather than more relation."""
    words = key.split()
    for n in range(len(words) - 1, 0, -1):
        head, rest = " ".join(words[:n]), " ".join(words[n:])
        found = _table().get(head)
        if found is not None and len(head) >= 4:
            return found if _QUALIFIER.match(rest + " ") else None
    return None


_NOT_NOUN = re.compile(r"(?:ed|en|ing|s)$")
_VERBS_OF = {"made", "consist", "think", "dream", "speak", "die", "approve", "hear", "know", "smell", "out", "one", "all"}


def _of_inverse(gt_raw: str, pred_raw: str) -> bool:
    """"X alma mater of Y" / "Y alma mater X": a noun phrase with "of" and the same noun without it,
    head and tail swapped (the noun must not be a verb form: "made of" is not "made")."""
    a, b = _key(gt_raw), _key(pred_raw)
    if a.endswith(" of") and a[:-3] == b:
        noun = b
    elif b.endswith(" of") and b[:-3] == a:
        noun = a
    else:
        return False
    last = noun.split()[-1] if noun else ""
    return len(last) >= 3 and not _NOT_NOUN.search(last) and last not in _VERBS_OF


def inverse_of(gt_raw: str, pred_raw: str) -> str | None:
    """With head and tail swapped, does the predicted relation say the ground-truth one?

    'inverse relation' (one group, opposite sides), 'symmetric relation' (both symmetric and the
    same phrase family) or None.
    """
    g, p = role(gt_raw), pred_role(pred_raw)
    if g is None or p is None:
        return "inverse relation" if _of_inverse(gt_raw, pred_raw) else None
    if g[0] == "symmetric" and p[0] == "symmetric":
        return "symmetric relation" if _symmetric_family(g[1]) == _symmetric_family(p[1]) else None
    if g[0] == p[0] and g[1] != p[1]:
        return "inverse relation"
    return None


def same_role(gt_raw: str, pred_raw: str) -> bool:
    """Two phrases of one group and side say the same ("located in" / "country", "moons" / "has moon")."""
    g, p = role(gt_raw), role(pred_raw)
    return g is not None and p is not None and g[0] != "symmetric" and g == p


def contradicts(gt_raw: str, pred_raw: str) -> bool:
    """Same head and tail but the relation points the other way ("advisor of" / "doctoral advisor")."""
    g, p = role(gt_raw), role(pred_raw)
    return g is not None and p is not None and g[0] == p[0] != "symmetric" and g[1] != p[1]


def _symmetric_family(key: str) -> str:
    for family, words in (("spouse", ("spouse", "married", "配偶")), ("sibling", ("sibling", "兄弟", "姐妹")),
                          ("twin", ("twin", "sister city", "友好城市")), ("border", ("border", "adjacent", "neighbo"))):
        if any(w in key for w in words):
            return family
    return key


def containment(raw: str, *, as_step: bool = True) -> str | None:
    """'located' / 'part' when the relation puts its head inside its tail ("located in", "part
    of", "capital of"); 'located-rev' / 'part-rev' when it puts its tail inside its head
    ("contains", "has part", "capital"); else None. A capital is a step of a chain, but a
    ground-truth "capital of" is not *any* containment (``as_step=False`` leaves it out)."""
    r = role(raw)
    groups = ("locate", "part", "capital") if as_step else ("locate", "part")
    if r is None or r[0] not in groups:
        return None
    kind = "part" if r[0] == "part" else "located"  # a capital lies inside its country
    return kind if r[1] == "b" else kind + "-rev"
