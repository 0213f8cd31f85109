"""Whether a text, or a predicted graph, names an entity — the offline judge's entity rules used
outside a verdict (the error analysis' funnel: was a ground-truth fact in what the agent saw, did a
prediction name it).

* ``PhraseText``: a text normalised once (``norm``). ``names(name)`` is true when one of the
  name's written forms (``name_of(name).aliases``: the name, without brackets, what the brackets
  hold, abbreviations spelled out, without a leading "the") stands in the text as whole words
  (any substring for Chinese, at least two characters). Conservative on purpose: a paraphrase, a
  translation or a date written another way is not found.
* ``PredictionNames(ground_truth, predicted).naming(head, tail)``: the first predicted triple whose
  head and tail are the ground truth's head and tail (either way round) by ``entity_match``, the
  judge's own equality of names ("equal" or "says more").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from ._matching import Context, name_of
from ._normalize import contains_phrase, norm
from .offline_judge import _EntityIndex

class PhraseText:
    """A text normalised once for ``names`` lookups (each written form looked up once)."""

    def __init__(self, text: str):
        self.norm = norm(text or "")
        self._found: dict[str, bool] = {}

    def has_phrase(self, phrase: str) -> bool:
        """Is the normalised ``phrase`` in the text, as whole words (any substring for Chinese)?"""
        found = self._found.get(phrase)
        if found is None:
            found = self._found[phrase] = bool(phrase) and contains_phrase(phrase, self.norm)
        return found

    def names(self, name: str) -> bool:
        return any(self.has_phrase(a) for a in written_forms(name))


@lru_cache(maxsize=4096)
def phrase_text(text: str) -> PhraseText:
    """``PhraseText(text)``, kept for texts that come back (a page, a search result shown in many runs)."""
    return PhraseText(text)


@lru_cache(maxsize=65536)
def written_forms(name: str) -> frozenset[str]:
    """The normalised forms a name may be written in (``name_of(...).aliases``), short ones left out:
    one Latin character or one Chinese character names nothing on its own."""
    return frozenset(a for a in name_of(str(name)).aliases if len(a) >= 2)


class PredictionNames:
    """A predicted graph indexed once for ``naming``: which predicted triple names a ground-truth
    triple's head and tail (either order), by the offline judge's entity match and its candidate
    index (the judge's own, so the two agree on what "the same name" is)."""

    def __init__(self, ground_truth: Sequence[tuple[str, str, str]], predicted: Sequence[tuple[str, str, str]]):
        self.predicted = [(str(h), str(r), str(t)) for h, r, t in predicted]
        names = [name_of(str(x)) for tr in (*ground_truth, *self.predicted) for x in (tr[0], tr[2])]
        self._index = _EntityIndex([x for tr in self.predicted for x in (tr[0], tr[2])], Context(names))

    def naming(self, head: str, tail: str) -> int | None:
        """Index of the first predicted triple naming ``head`` and ``tail`` (None: none does)."""
        if not self.predicted:
            return None
        heads, tails = self._index.matches(str(head)), self._index.matches(str(tail))
        if not heads or not tails:
            return None
        for i, (p_head, _, p_tail) in enumerate(self.predicted):
            if (p_head in heads and p_tail in tails) or (p_tail in heads and p_head in tails):
                return i
        return None
