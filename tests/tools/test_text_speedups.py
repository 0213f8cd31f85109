"""The faster sentence splitter and snippet ranking give exactly what the slower ones gave."""

from __future__ import annotations

import random
import re
from collections import Counter

from vibesearch.tools import best_sentences, idf_weights, rank_texts, sentences, tokenize

# the splitter as it was before it was rewritten without a leading look-behind
_OLD_END = re.compile(r"(?<=[。！？；!?])|(?<=[.;])\s+(?=[\"'“(\[A-Z0-9\u4e00-\u9fff])|\n+")


def _old_sentences(text: str) -> list[str]:
    return [p for p in (p.strip() for p in _OLD_END.split(text)) if p]


PIECES = ["Alpha", "beta", "Gamma", "42", ".", ";", "!", "?", "。", "！", "？", "；", " ", "  ", "\n", "\n\n",
          "(x", "[y", "\"q", "'s", "“引", "中文", "句子", "Étude", "ça", ". ", "; ", ".\n", "!\n"]


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))


def test_sentences_match_the_old_splitter_on_random_text():
    rng = random.Random(15)
    for _ in range(3000):
        text = _random_text(rng)
        assert sentences(text) == _old_sentences(text), repr(text)


def test_sentences_on_prose():
    text = "Rome was founded. It grew; Slowly it fell!\nThen 中世纪开始。之后呢？ e.g. this stays whole."
    assert sentences(text) == _old_sentences(text)
    assert sentences(text)[0] == "Rome was founded."


def _old_rank(query: str, texts: list[str], weights: dict[str, float]) -> list[tuple[int, float]]:
    scored = []
    for i, toks in enumerate(tokenize(t) for t in texts):
        counts = Counter(toks)
        score = sum(w * counts[t] / (counts[t] + 1.0) for t, w in weights.items() if counts.get(t))
        if score > 0:
            scored.append((i, score / (1.0 + 0.002 * len(texts[i]))))
    scored.sort(key=lambda pair: -pair[1])
    return scored


def test_rank_texts_with_weights_skips_nothing_that_matches():
    rng = random.Random(7)
    words = ["rome", "Rome", "ROMAN", "empire", "fall", "the", "of", "中国", "历史", "x1", "romeo"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(300)]
    df: Counter = Counter()
    for t in texts:
        df.update(set(tokenize(t)))
    for query in ["rome", "Roman empire", "fall of the 历史", "romeo x1", "the of"]:
        weights = idf_weights(tokenize(query), df, len(texts))
        assert rank_texts(query, texts, weights=weights) == _old_rank(query, texts, weights)
    assert best_sentences("empire", "A city. The Empire fell. Nothing else.", weights={"empire": 1.0}) == "The Empire fell."


def test_top_n_with_ties_is_the_full_sort_cut_short():
    import numpy as np

    from vibesearch.tasks.models import CorpusDoc
    from vibesearch.tools import OfflineCorpus

    rng = np.random.default_rng(3)
    docs = [CorpusDoc(url=f"https://x.org/{i}", title="t", text="x") for i in range(400)]
    for _ in range(50):
        scores = rng.integers(0, 6, size=400).astype(np.float32)  # many ties, many zeros
        positive = np.flatnonzero(scores > 0)
        full = positive[np.lexsort((positive, -scores[positive]))]
        for topn in (0, 1, 3, 10, 399, 500):
            got = [d.url for d, _ in OfflineCorpus._top(scores, docs, topn)]
            assert got == [docs[i].url for i in full[:topn]]


def test_indexed_sentences_rank_as_rank_texts_does_on_the_bundled_corpora():
    """A snippet's sentences are ranked from each text's token postings (``SentenceIndex.rank``):
    the same pairs, to the last bit, as ranking every sentence (``rank_texts``), for queries
    of the corpora's own words and of words they do not have, in English and Chinese."""
    import json
    from pathlib import Path

    from vibesearch.tools import sentence_index

    root = Path(__file__).resolve().parents[2] / "personas" / "corpus"
    files = sorted(root.glob("*.jsonl"))
    assert len(files) >= 4 and any("-zh-" in f.name for f in files)
    rng = random.Random(11)
    checked = 0
    for path in files:
        texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        df: Counter = Counter()
        for text in texts:
            df.update(set(tokenize(text)))
        vocab = sorted(df)
        for _ in range(40):
            query = " ".join(rng.choice(vocab + ["zzunknown", "the", "历史"]) for _ in range(rng.randint(1, 5)))
            weights = idf_weights(tokenize(query), df, len(texts))
            for text in rng.sample(texts, 4):
                cut = sentence_index(text)
                expected = rank_texts(query, list(cut.sents), weights=weights)
                assert cut.rank(weights) == expected, (path.name, query)
                checked += bool(expected)
    assert checked > 100  # most queries match something
