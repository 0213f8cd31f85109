"""How much faster is ranking a snippet's sentences from each text's token postings
(``vibesearch.tools.sentence_index``) than scoring every sentence (``rank_texts``), at equal
results?

On each bundled task corpus (two English, two Chinese), for queries drawn from the corpus's own
tokens plus words it does not have (seeded), both rankings run over the sentences of the 10
documents each query's BM25 search returns, with the corpus's idf weights, as a ``search`` call
ranks them for its snippets. Every pair of rankings must be equal to the last bit (the script
stops with exit 1 otherwise); it prints the time of each per search and the ratio, both measured in
this one run, warm (each text's index and each sentence's tokens made once before timing, as over a
batch: the ranking before the index kept every sentence's tokens too).

    python benchmarks/snippet_ranking.py [--queries 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path

from vibesearch.tasks.models import CorpusDoc
from vibesearch.tools import OfflineCorpus, SentenceIndex, idf_weights, rank_texts, sentence_index, tokenize

CORPORA = Path(__file__).resolve().parents[1] / "personas" / "corpus"


@lru_cache(maxsize=None)
def tokens_of(sentence: str) -> tuple[str, ...]:
    """A sentence's tokens, kept: how snippets were ranked before the index (a cache per sentence)."""
    return tuple(tokenize(sentence))


def load(path: Path) -> list[CorpusDoc]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [CorpusDoc(**{k: v for k, v in row.items() if k in CorpusDoc.model_fields}) for row in rows]


Work = list[tuple[str, dict[str, float], list[SentenceIndex]]]


def plain_rank(work: Work) -> list[list[list[tuple[int, float]]]]:
    """Every sentence of every hit scored (``rank_texts``), as snippets were ranked before."""
    return [[rank_texts(q, list(cut.sents), weights=w, tokens_of=tokens_of) for cut in cuts] for q, w, cuts in work]


def indexed_rank(work: Work) -> list[list[list[tuple[int, float]]]]:
    """The same from each text's token postings (``SentenceIndex.rank``), as snippets are ranked now."""
    return [[cut.rank(w) for cut in cuts] for _q, w, cuts in work]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    total_plain = total_indexed = 0.0
    searches = 0
    print(f"{'corpus':40} {'docs':>5} {'plain ms/search':>16} {'indexed ms/search':>18} {'ratio':>6}")
    for path in sorted(CORPORA.glob("*.jsonl")):
        docs = load(path)
        corpus = OfflineCorpus(docs, "zh" if "-zh-" in path.name else "en")
        df: Counter = Counter()
        for doc in docs:
            df.update(set(tokenize(f"{doc.title}\n{doc.title}\n{doc.text}")))
        rng = random.Random(args.seed)
        vocab = sorted(df) + ["zzunknown", "heritage", "历史"]
        queries = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 6))) for _ in range(args.queries)]
        work: Work = []
        for query in queries:
            weights = idf_weights(tokenize(query), df, len(docs))
            texts = [doc.text for doc, _ in corpus.search(query, 10)]
            work.append((query, weights, [sentence_index(t) for t in texts]))  # built once, as over a batch
        plain_rank(work), indexed_rank(work)  # warm: every sentence's tokens kept, as before the index
        start = time.perf_counter()
        plain = plain_rank(work)
        t_plain = time.perf_counter() - start
        start = time.perf_counter()
        indexed = indexed_rank(work)
        t_indexed = time.perf_counter() - start
        if plain != indexed:
            print(f"error: {path.name}: the indexed ranking differs from ranking every sentence", file=sys.stderr)
            return 1
        n = len(work)
        print(f"{path.name:40} {len(docs):>5} {t_plain / n * 1000:>16.3f} {t_indexed / n * 1000:>18.3f} {t_plain / t_indexed:>5.1f}x")
        total_plain, total_indexed, searches = total_plain + t_plain, total_indexed + t_indexed, searches + n
    print(f"all {searches} searches: the same rankings; indexed {total_plain / total_indexed:.1f}x faster "
          f"({total_plain / searches * 1000:.3f} -> {total_indexed / searches * 1000:.3f} ms per search)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
