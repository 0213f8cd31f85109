"""How fast is the offline search backend?

Builds a synthetic English corpus (10,000 generated documents by default), indexes it with
``OfflineCorpus`` and runs ~200 queries, printing the index build time and the p50/p95 latency
of a BM25 query (``OfflineCorpus.search``) and of the whole ``search`` tool (ranking plus
snippets and formatting, through ``AgentToolbox.call``).

    python benchmarks/search_latency.py [--docs 10000] [--queries 200] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from vibesearch.config import Settings
from vibesearch.tasks.models import CorpusDoc
from vibesearch.tools import AgentToolbox, OfflineBackend, OfflineCorpus, PythonSandbox

SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "vor", "sul", "ae", "dun", "pri", "os", "bel", "cha", "nor", "qui", "zem"]
COMMON = "the of and in to a is was for on with as by at from that it its which this".split()


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_cumulative(n: int) -> list[float]:
    """Cumulative Zipf weights (computed once: ``random.choices`` is slow with plain weights)."""
    total, out = 0.0, []
    for rank in range(n):
        total += 1.0 / (rank + 1) ** 1.05
        out.append(total)
    return out


def make_corpus(n_docs: int, rng: random.Random) -> list[CorpusDoc]:
    vocab = make_vocabulary(rng, 20_000)
    cum = zipf_cumulative(len(vocab))
    docs = []
    for i in range(n_docs):
        n_sent = rng.randint(6, 14)
        sentences = []
        for _ in range(n_sent):
            words = rng.choices(vocab, cum_weights=cum, k=rng.randint(8, 20))
            # sprinkle function words so that sentences look like prose
            words = [w if rng.random() > 0.25 else rng.choice(COMMON) for w in words]
            sentences.append(" ".join(words).capitalize() + ".")
        title = " ".join(rng.choices(vocab, cum_weights=cum, k=5)).title()
        text = " ".join(sentences[: n_sent // 2]) + "\n\n" + " ".join(sentences[n_sent // 2 :])
        docs.append(CorpusDoc(url=f"https://bench.example.org/doc/{i}", title=title, text=text))
    return docs


def make_queries(docs: list[CorpusDoc], n: int, rng: random.Random) -> list[str]:
    queries = []
    for _ in range(n):
        words = [w.strip(".").lower() for w in rng.choice(docs).text.split() if w.lower() not in COMMON]
        queries.append(" ".join(rng.sample(words, k=min(len(words), rng.randint(2, 5)))))
    return queries


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def tool_latencies(corpus: OfflineCorpus, queries: list[str]) -> list[float]:
    settings = Settings(tasks="")
    toolbox = AgentToolbox(OfflineBackend(corpus, settings), PythonSandbox(settings), settings)
    out = []
    for q in queries:
        start = time.perf_counter()
        result = await toolbox.call("search", {"query": q, "topn": 10})
        out.append(time.perf_counter() - start)
        assert not result.error, result.content
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    start = time.perf_counter()
    docs = make_corpus(args.docs, rng)
    gen_s = time.perf_counter() - start
    chars = sum(len(d.text) for d in docs)

    start = time.perf_counter()
    corpus = OfflineCorpus(docs, "en")
    build_s = time.perf_counter() - start

    queries = make_queries(docs, args.queries, rng)
    corpus.search(queries[0])  # warm-up
    ranking = []
    empty = 0
    for q in queries:
        t0 = time.perf_counter()
        hits = corpus.search(q, topn=10)
        ranking.append(time.perf_counter() - t0)
        empty += not hits
    tool = asyncio.run(tool_latencies(corpus, queries))

    ms = 1000.0
    print(f"corpus: {len(docs)} synthetic English documents, {chars / 1e6:.1f} M characters (generated in {gen_s:.1f} s)")
    print(f"index build (OfflineCorpus): {build_s:.2f} s")
    print(f"queries: {len(queries)} ({empty} without results)")
    print(f"BM25 ranking (OfflineCorpus.search, top 10): p50 {percentile(ranking, 50) * ms:.2f} ms, p95 {percentile(ranking, 95) * ms:.2f} ms")
    print(f"search tool (ranking + snippets + formatting): p50 {percentile(tool, 50) * ms:.2f} ms, p95 {percentile(tool, 95) * ms:.2f} ms (goal: p50 <= 2 ms)")


if __name__ == "__main__":
    main()
