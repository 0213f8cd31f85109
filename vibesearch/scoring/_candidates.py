"""Candidate retrieval for the LLM judge: which predicted triples a batch's prompt needs.

For a large predicted graph, putting all of it in every batch's prompt costs tokens without
helping: a ground-truth triple can only be covered by predicted triples that talk about the same
things. For each ground-truth triple we keep the ``topk`` predicted triples most similar to it by
BM25 over the triple text (Latin words plus Chinese characters and character pairs), and every
predicted triple that shares an entity with it (normalised head or tail equality, either way
round). Indices stay those of the full predicted graph, so the judge's evidence maps back.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ._normalize import CJK, norm

TripleText = tuple[str, str, str]


def text_tokens(text: str) -> list[str]:
    """Latin words and numbers; for Chinese runs, single characters and character pairs."""
    out: list[str] = []
    for part in re.findall(r"[\u3400-\u9fff]+|[^\s\u3400-\u9fff]+", norm(text)):
        if CJK.match(part):
            out.extend(part)
            out.extend(part[i : i + 2] for i in range(len(part) - 1))
        else:
            out.append(part)
    return out


def triple_text(t: TripleText) -> str:
    return f"{t[0]} {t[1]} {t[2]}"


class CandidateIndex:
    def __init__(self, pred: Sequence[TripleText]):
        import bm25s

        self.pred = list(pred)
        corpus = [text_tokens(triple_text(t)) or ["∅"] for t in self.pred]
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        self.by_entity: dict[str, set[int]] = {}
        for i, (h, _, t) in enumerate(self.pred):
            for name in (h, t):
                key = norm(name)
                if key:
                    self.by_entity.setdefault(key, set()).add(i)

    def similar(self, gt: TripleText, topk: int) -> list[int]:
        query = text_tokens(triple_text(gt))
        if not query or topk <= 0:
            return []
        scores = np.asarray(self.bm25.get_scores(query))
        if not scores.size:
            return []
        k = min(topk, scores.size)
        top = np.argpartition(-scores, k - 1)[:k]
        return [int(i) for i in top if scores[i] > 0]

    def sharing_entity(self, gt: TripleText) -> set[int]:
        found: set[int] = set()
        for name in (gt[0], gt[2]):
            found |= self.by_entity.get(norm(name), set())
        return found

    def for_triple(self, gt: TripleText, topk: int) -> set[int]:
        """The predicted triples one ground-truth triple needs shown."""
        return set(self.similar(gt, topk)) | self.sharing_entity(gt)

    def for_batch(self, gts: Sequence[TripleText], topk: int) -> list[int]:
        chosen: set[int] = set()
        for gt in gts:
            chosen |= self.for_triple(gt, topk)
        return sorted(chosen)
