"""The offline backend (the default): a task's own corpus searched with a real BM25 index.

``OfflineCorpus`` holds the documents and the index (bm25s over our tokens: jieba for Chinese,
lower-cased words for Latin script). ``OfflineBackend`` turns it into the text the tools return:
``search`` lists title, URL and the best-matching sentences; ``visit`` shows the stored page, or
its passages that match the goal when the page is long, or a goal-focused summary when a
summariser model is configured; ``scholar_search`` searches the documents marked ``scholarly``.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from urllib.parse import unquote, urlsplit

import numpy as np

from ..config import Settings
from ..run.config import SearchSpec
from ..run.events import Emit
from ..tasks.models import CorpusDoc, Task
from ._format import Hit, format_hits, join_pages, page_block
from ._text import best_sentences, idf_weights, tokenize
from .base import ToolOutput
from .summarise import read_for_goal, relevant_passages

# Longest page text ``visit`` shows whole (characters); longer pages are cut to their passages.
VISIT_PAGE_CHARS = 8_000
SNIPPET_CHARS = 300


def url_key(url: str) -> str:
    """A lenient form of a URL for lookups: no scheme, no ``www.``, no trailing slash or fragment."""
    raw = url.strip().strip("<>\"'")
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    path = unquote(parts.path).rstrip("/")
    key = host + path
    if parts.query:
        key += "?" + parts.query
    return key


class OfflineCorpus:
    """A task's documents with a BM25 index over title and text."""

    def __init__(self, docs: list[CorpusDoc], language: str = "en"):
        self.docs = list(docs)
        self.language = language
        self._by_url: dict[str, CorpusDoc] = {}
        for doc in self.docs:
            self._by_url.setdefault(doc.url.strip(), doc)
            self._by_url.setdefault(url_key(doc.url), doc)
        # the title counts twice: it is the densest statement of what a page is about
        token_lists = [tokenize(f"{d.title}\n{d.title}\n{d.text}") for d in self.docs]
        self._df: Counter = Counter()
        for toks in token_lists:
            self._df.update(set(toks))
        self._scholarly = np.array([d.scholarly for d in self.docs], dtype=bool)
        self._index = None
        if self.docs:
            import bm25s

            self._index = bm25s.BM25()
            self._index.index(token_lists, show_progress=False)

    def __len__(self) -> int:
        return len(self.docs)

    def _scores(self, query: str) -> np.ndarray:
        tokens = tokenize(query)
        if self._index is None or not tokens:
            return np.zeros(len(self.docs), dtype=np.float32)
        return np.asarray(self._index.get_scores(tokens))

    @staticmethod
    def _top(scores: np.ndarray, docs: list[CorpusDoc], topn: int, mask: np.ndarray | None = None) -> list[tuple[CorpusDoc, float]]:
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return []
        if 0 < topn < positive.size:
            # only what can reach the top n is sorted: scores at least the n-th best (ties kept)
            cut = np.partition(scores[positive], positive.size - topn)[positive.size - topn]
            positive = positive[scores[positive] >= cut]
        # stable order: higher score first, then corpus order
        order = positive[np.lexsort((positive, -scores[positive]))][: max(topn, 0)]
        return [(docs[i], float(scores[i])) for i in order]

    def search(self, query: str, topn: int = 10) -> list[tuple[CorpusDoc, float]]:
        """Documents ranked by BM25 for ``query`` (only those with a positive score)."""
        return self._top(self._scores(query), self.docs, topn)

    def scholar(self, query: str, topn: int = 10) -> list[tuple[CorpusDoc, float]]:
        """Like ``search`` but over the documents marked ``scholarly`` only."""
        return self._top(self._scores(query), self.docs, topn, mask=self._scholarly)

    def get(self, url: str) -> CorpusDoc | None:
        """The document at ``url`` (http/https, ``www.`` and a trailing slash do not matter)."""
        if not url or not url.strip():
            return None
        return self._by_url.get(url.strip()) or self._by_url.get(url_key(url))

    def passages(self, doc: CorpusDoc, goal: str, k: int = 3) -> list[str]:
        """The ``k`` passages of ``doc`` that best match ``goal``, in page order."""
        return relevant_passages(doc.text, goal, k=k)

    def snippet(self, doc: CorpusDoc, query: str, max_chars: int = SNIPPET_CHARS) -> str:
        """The sentence(s) of ``doc`` that best match ``query``."""
        return self.snippets([doc], query, max_chars)[0]

    def snippets(self, docs: list[CorpusDoc], query: str, max_chars: int = SNIPPET_CHARS) -> list[str]:
        """``snippet`` for several documents (the query's weights are worked out once)."""
        weights = idf_weights(tokenize(query), self._df, max(len(self.docs), 1))
        return [best_sentences(query, doc.text, max_chars=max_chars, weights=weights) for doc in docs]


class OfflineBackend:
    """search / visit / scholar_search over an ``OfflineCorpus``."""

    name = "offline"

    def __init__(self, corpus: OfflineCorpus, settings: Settings, *, search: SearchSpec | None = None, page_chars: int = VISIT_PAGE_CHARS):
        self.corpus = corpus
        self.settings = settings
        self.search_spec = search or SearchSpec()  # the run's: results per search, the cap on a result
        self.page_chars = page_chars

    def _hits(self, query: str, topn: int, scholarly: bool) -> list[Hit]:
        found = self.corpus.scholar(query, topn) if scholarly else self.corpus.search(query, topn)
        snippets = self.corpus.snippets([d for d, _ in found], query)
        return [Hit(d.title, d.url, snip, date=d.date, source=d.source) for (d, _), snip in zip(found, snippets)]

    # ranking is CPU work (and jieba loads its dictionary on first use): keep it off the event loop
    async def search(self, query: str, topn: int, emit: Emit | None = None) -> ToolOutput:
        if not len(self.corpus):
            return ToolOutput("search: this task has no offline corpus, so there is nothing to search.", error=True)
        hits = await asyncio.to_thread(self._hits, query, topn, False)
        return ToolOutput(format_hits(query, hits))

    async def scholar(self, query: str, emit: Emit | None = None) -> ToolOutput:
        hits = await asyncio.to_thread(self._hits, query, self.search_spec.topn, True)
        return ToolOutput(format_hits(query, hits, scholarly=True))

    # the raw material of the official profile's tools (``tools.official``), which lay it out themselves
    async def hits(self, query: str, topn: int, *, scholarly: bool = False, emit: Emit | None = None) -> list[Hit]:
        """The ranked hits of ``query`` (the scholarly documents only when ``scholarly``)."""
        return await asyncio.to_thread(self._hits, query, topn, scholarly)

    async def page_texts(self, urls: list[str], emit: Emit | None = None) -> list[str | None]:
        """The stored text of each URL's document; None for a URL that is not in the corpus."""
        docs = [self.corpus.get(url) for url in urls]
        return [doc.text if doc is not None else None for doc in docs]

    async def visit(self, urls: list[str], goal: str, emit: Emit | None = None) -> ToolOutput:
        limit = max(1_000, min(self.page_chars, self.search_spec.tool_result_max_chars // len(urls) - 200))

        async def read(url: str) -> str | None:
            doc = self.corpus.get(url)
            if doc is None:
                return None
            body = await read_for_goal(doc.text, goal, url=doc.url, title=doc.title, settings=self.settings, limit=limit, emit=emit)
            return page_block(doc.url, doc.title, body)

        pages = await asyncio.gather(*(read(u) for u in urls))
        not_found = "Not found: this URL is not in the task's offline corpus. Use search to find pages that are."
        blocks = [page if page is not None else page_block(url, None, not_found) for url, page in zip(urls, pages)]
        return ToolOutput(join_pages(blocks), error=all(page is None for page in pages))


_CACHE: dict[tuple, OfflineCorpus] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 16


def corpus_for_task(task: Task) -> OfflineCorpus:
    """The task's corpus with its index, built once per task and corpus file version."""
    from ..tasks.loader import corpus_path, load_corpus

    path = corpus_path(task)
    stamp: tuple = ()
    if path is not None and path.exists():
        st = path.stat()
        stamp = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    key = (task.id, task.language, str(path), stamp)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    corpus = OfflineCorpus(load_corpus(task), task.language)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = corpus
    return corpus


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()
