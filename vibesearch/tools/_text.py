"""Text helpers shared by the search backends: tokenising, sentence and passage splitting, and
picking the parts of a page that best match a query or a goal.

Tokens are lower-cased words for Latin script and jieba's search-mode words for Chinese, with
punctuation and a small set of stopwords removed. English-only text never loads jieba (its
dictionary takes about a second to load).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Callable, Iterable, Sequence

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_HAS_CJK = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

EN_STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my not of on or our she he so than that the their them then there these they
    this those to was we were what when where which while who whom why will with would you your
    about after also any all more most other some such only own same very just over""".split()
)
ZH_STOPWORDS = frozenset(
    """的 了 和 是 在 与 及 或 也 就 都 而 被 把 对 从 由 于 之 其 这 那 一个 有 为 以 等 上 中 下 吗 呢 吧 啊
    什么 哪些 哪个 怎么 如何 我 你 他 她 它 我们 你们 他们 请 给 要 会 能 可以 还 又""".split()
)
_STOPWORDS = EN_STOPWORDS | ZH_STOPWORDS


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def _latin_tokens(text: str) -> list[str]:
    # single letters are mostly the tails of contractions and possessives ("cat's", "don't")
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 or w.isdigit()]


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Index/query tokens of ``text`` (mixed Chinese and Latin script is fine)."""
    tokens: list[str] = []
    if not _HAS_CJK.search(text):
        tokens = _latin_tokens(text)
    else:
        pos = 0
        jieba = _jieba()
        for match in _CJK_RUN.finditer(text):
            tokens.extend(_latin_tokens(text[pos : match.start()]))
            tokens.extend(t for t in jieba.cut_for_search(match.group()) if t.strip())
            pos = match.end()
        tokens.extend(_latin_tokens(text[pos:]))
    if keep_stopwords:
        return tokens
    return [t for t in tokens if t not in _STOPWORDS]


# A sentence ends after 。！？；!? (kept with it), after . or ; followed by space and something that
# can start a sentence (the space is dropped), and at line breaks (dropped). The pattern consumes
# the end mark instead of looking behind for it: a leading look-behind is tried at every position
# of the text, which made splitting the slowest part of a search snippet.
_SENTENCE_END = re.compile(r"[。！？；!?]|[.;]\s+(?=[\"'“(\[A-Z0-9\u4e00-\u9fff])|\n+")


def sentences(text: str) -> list[str]:
    """Split text into sentences (Chinese and English punctuation, and line breaks)."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        mark = text[match.start()]
        if mark == "\n":
            cut = match.start()
        elif mark in ".;":
            cut = match.start() + 1
        else:
            cut = match.end()
        part = text[start:cut].strip()
        if part:
            out.append(part)
        start = match.end()
    part = text[start:].strip()
    if part:
        out.append(part)
    return out


def passages(text: str, size: int = 700) -> list[str]:
    """Cut text into passages of about ``size`` characters along paragraph/sentence borders."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        if len(para) <= size:
            out.append(para)
            continue
        current = ""
        for sent in sentences(para):
            while len(sent) > size:  # a run-on "sentence" (tables, lists): cut it hard
                if current:
                    out.append(current)
                    current = ""
                out.append(sent[:size])
                sent = sent[size:]
            if current and len(current) + 1 + len(sent) > size:
                out.append(current)
                current = ""
            current = f"{current} {sent}".strip() if not _HAS_CJK.search(sent[:1]) else current + sent
        if current:
            out.append(current)
    return out


def idf_weights(tokens: Iterable[str], df: dict[str, int] | Counter, n_docs: int) -> dict[str, float]:
    """BM25-style idf of each distinct query token (unknown tokens get the highest weight)."""
    weights = {}
    for tok in set(tokens):
        freq = df.get(tok, 0)
        weights[tok] = math.log(1 + (n_docs - freq + 0.5) / (freq + 0.5))
    return weights


def rank_texts(
    query: str, texts: list[str], *, weights: dict[str, float] | None = None, tokens_of: Callable[[str], Sequence[str]] = tokenize
) -> list[tuple[int, float]]:
    """Score each text by the query tokens it contains (idf-weighted, saturated term frequency).
    ``tokens_of``: how a text is tokenised (``tokenize``, or a cached form of it).

    Returns ``(index, score)`` pairs, best first, only texts with a positive score.
    """
    q_tokens = tokenize(query)
    if not q_tokens or not texts:
        return []
    if weights is not None:
        # a text that cannot contain any weighted token scores 0: skip tokenising it
        # (tokens are lower-cased pieces of the text, so a substring test never drops a match)
        keys = [t for t in weights if weights[t]]
        tokenised = [tokens_of(t) if any(k in low for k in keys) else () for t in texts for low in (t.lower(),)]
    else:
        tokenised = [tokens_of(t) for t in texts]
    if weights is None:
        df: Counter = Counter()
        for toks in tokenised:
            df.update(set(toks))
        weights = idf_weights(q_tokens, df, len(texts))
    scored = []
    for i, toks in enumerate(tokenised):
        counts = Counter(toks)
        score = sum(w * counts[t] / (counts[t] + 1.0) for t, w in weights.items() if counts.get(t))
        if score > 0:
            # slight preference for focused text over long text with the same matches
            scored.append((i, score / (1.0 + 0.002 * len(texts[i]))))
    scored.sort(key=lambda pair: -pair[1])
    return scored


class SentenceIndex:
    """A text cut into sentences, with where each token occurs: ``postings[token]`` lists
    ``(sentence, count)`` in sentence order. Ranking a text's sentences against a query then
    looks up the query's few tokens instead of going through every sentence."""

    __slots__ = ("sents", "postings")

    def __init__(self, text: str):
        self.sents = tuple(sentences(text))
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, sent in enumerate(self.sents):
            for tok, count in Counter(tokenize(sent)).items():
                postings.setdefault(tok, []).append((i, count))
        self.postings = postings

    def rank(self, weights: dict[str, float]) -> list[tuple[int, float]]:
        """``rank_texts(query, self.sents, weights=weights)``, to the last bit: each sentence's
        terms are added up in the order of ``weights`` (as there), then the same length
        discount and the same stable sort."""
        sums: dict[int, float] = {}
        for tok, w in weights.items():
            for i, count in self.postings.get(tok, ()):
                sums[i] = sums.get(i, 0) + w * count / (count + 1.0)
        scored = []
        for i in sorted(sums):
            score = sums[i]
            if score > 0:
                scored.append((i, score / (1.0 + 0.002 * len(self.sents[i]))))
        scored.sort(key=lambda pair: -pair[1])
        return scored


@lru_cache(maxsize=65536)
def _tokens_of(text: str) -> tuple[str, ...]:
    """``tokenize`` of a sentence, kept (the same sentences are ranked against query after query)."""
    return tuple(tokenize(text))


@lru_cache(maxsize=4096)
def sentence_index(text: str) -> SentenceIndex:
    """A text's sentences and their tokens, kept: a task's few documents are shown again and
    again, search after search."""
    return SentenceIndex(text)


def best_sentences(query: str, text: str, *, max_chars: int = 300, weights: dict[str, float] | None = None) -> str:
    """The sentence(s) of ``text`` that best match ``query``, shown in document order.
    ``weights``: the query tokens' weights (idf over a corpus); without them they are worked
    out over the text's own sentences (``rank_texts``)."""
    cut = sentence_index(text)
    sents = cut.sents
    if not sents:
        return ""
    if weights is None:
        ranked = rank_texts(query, list(sents), tokens_of=_tokens_of)
    elif tokenize(query):
        ranked = cut.rank(weights)
    else:
        ranked = []
    if not ranked:
        return _clip(sents[0], max_chars)
    chosen: list[int] = []
    used = 0
    for idx, _ in ranked:
        length = len(sents[idx])
        if chosen and used + length > max_chars:
            continue
        chosen.append(idx)
        used += length
        if used >= max_chars * 0.6 or len(chosen) >= 3:
            break
    joined = " … ".join(sents[i] for i in sorted(chosen))
    return _clip(joined, max_chars)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
