"""Joint coverage and compositions beyond containment, for the offline judge (rules 3 and 4).

* **Joint coverage** (rule 3): a ground-truth tail that holds several values — a list ("Neil
  Armstrong and Buzz Aldrin", "汉莎航空和联合航空") or a phrase of prepositional parts ("by
  Christiaan Huygens in 1655") — is covered when every value is covered on its own by a
  predicted triple, and at least two predicted triples are needed. A part opened by a
  preposition joins it to the relation ("discovered" + "by X", "discovered" + "in 1655"). One
  missing value leaves the whole uncovered.
* **Composition through an alias** (rule 4): a predicted triple that says two names denote one
  entity ("Rome nicknamed the Eternal City", "The Windy City nickname for Chicago", "Mars known as
  the Red Planet") lets the judge read the ground-truth head or tail as the other name; the fact
  itself must still be stated by another predicted triple. Only the alias phrases listed here
  count ("known as", "nicknamed", "also called", "stage name", "别称" ...); "named after",
  "successor of" and the like are different entities.
* **Relation composition** (rule 4): a ground-truth relation made of two relations ("discovered
  a moon of") is covered by two predicted steps whose relations are the two parts ("Galileo
  discovered Io", "Io moon of Jupiter"): each step's concepts are part of the ground-truth
  relation, the two steps share none, and together they carry all of it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._lists import list_items
from ._relations import _carried, relation_of
from ._normalize import CJK, norm

_ALIAS_PHRASES = {
    "known as", "also known as", "aka", "a k a", "better known as", "commonly known as", "nicknamed",
    "nickname", "nickname for", "nickname of", "is nicknamed", "has nickname", "also called", "called",
    "is called", "alias", "alternative name", "other name", "byname", "sobriquet", "epithet", "stage name",
    "stage name of", "pen name", "pen name of", "birth name", "real name", "born as", "same as",
    # a former name is a name of the same entity: "Myanmar formerly known as Burma"
    "formerly known as", "previously known as", "formerly called", "previously called", "former name",
    "former name of", "old name", "historical name", "renamed from", "formerly", "earlier name",
    "又称", "别称", "旧称", "古称", "曾用名", "旧名", "原称", "别名", "昵称", "绰号", "外号", "俗称", "亦称", "也称", "艺名", "笔名", "本名", "原名",
}
_LEADING = re.compile(r"^(?:is|was|are|were|the|also)\s+")
_ADVERBS = re.compile(r"^(?:[a-z]+ly\s+)+")
_WRONGLY = re.compile(r"\b(?:wrongly|falsely|mistakenly|erroneously|incorrectly|never|rarely|formerly)\b")


@lru_cache(maxsize=65536)
def is_alias_relation(raw: str) -> bool:
    """Does the relation say that its head and tail name one entity?"""
    text = norm(raw.replace("_", " "))
    if text in _ALIAS_PHRASES:
        return True
    stripped = _LEADING.sub("", text)
    if stripped in _ALIAS_PHRASES:
        return True
    # an adverb before the phrase says how widely the name is used: "popularly called", "colloquially known as"
    plain = _ADVERBS.sub("", stripped)
    if _WRONGLY.search(stripped[: len(stripped) - len(plain)]):
        return False  # "wrongly called", "falsely known as": not a name of it
    return plain != stripped and plain in _ALIAS_PHRASES


_PREPOSITIONS = ("by", "in", "on", "at", "from", "with")
_PREP_SPLIT = re.compile(r"\s+(?=(?:" + "|".join(_PREPOSITIONS) + r")\s)", re.I)
_AND_SPLIT = re.compile(r"\s+(?:and|&)\s+|\s*(?:和|与|及|以及)\s*")


@lru_cache(maxsize=65536)
def joint_parts(relation: str, tail: str) -> tuple[tuple[str, str], ...] | None:
    """The (relation, value) parts of a tail holding several values, or None.

    "by Christiaan Huygens in 1655" -> (("discovered by", "Christiaan Huygens"), ("discovered in", "1655"));
    "Neil Armstrong and Buzz Aldrin" -> ((relation, "Neil Armstrong"), (relation, "Buzz Aldrin")).
    """
    text = str(tail).strip()
    first = text.split(" ", 1)[0].lower()
    if first in _PREPOSITIONS and " " in text:
        chunks = _PREP_SPLIT.split(text)
        parts = []
        for chunk in chunks:
            prep, _, value = chunk.partition(" ")
            if prep.lower() not in _PREPOSITIONS or not value.strip():
                return None
            parts.append((f"{relation} {prep.lower()}", value.strip()))
        return tuple(parts) if len(parts) >= 2 else None
    items = list_items(text)
    if items is None:
        pieces = [p.strip() for p in _AND_SPLIT.split(text) if p.strip()]
        if len(pieces) != 2:
            return None
        if CJK.search(text) and any(len(p) < 2 for p in pieces):
            return None
        items = tuple(pieces)
    return tuple((relation, item) for item in items)


def splits_relation(gt_relation: str, first: str, second: str) -> bool:
    """Do two predicted relations together say the ground-truth one, each saying a part of it?"""
    gt = relation_of(gt_relation)
    a, b = relation_of(first), relation_of(second)
    if len(gt.hard) < 2 or not a.hard or not b.hard:
        return False
    if any(_carried(c, b.hard) for c in a.hard) or any(_carried(c, a.hard) for c in b.hard):
        return False
    if not all(_carried(c, gt.concepts) for c in a.hard | b.hard):
        return False
    together = a.hard | b.hard
    return all(_carried(c, together) for c in gt.hard)
