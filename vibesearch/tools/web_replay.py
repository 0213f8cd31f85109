"""A run's tools answered from a recorded web (``search.web`` = ``replay``; docs/web.md).

``Recording`` indexes the ``WebEvent``s a replay selection holds (``run.web.WebArchive``): each
search by (op, query, topn), each visit by its requested and final URL. ``ReplayBackend`` lays
them out exactly as the live backend did (``web.WebTools``), so a request the recording holds gets
the recorded result byte for byte. What it does not hold:

* an unseen query: BM25 over the recorded pages of the selection (``offline.OfflineCorpus``, the
  offline backend's ranking), outcome ``fallback``;
* an unseen URL: "not available in this recording", outcome ``missing``.

Every replayed request is emitted as a ``WebEvent`` with its outcome (``replayed``), which the
run's statistics and ``report`` count. Nothing here opens a connection.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from typing import AsyncIterator

import httpx

from ..config import Settings
from ..run.config import SearchSpec
from ..run.events import Emit, ReplayOutcome, WebEvent, WebOp
from ..run.web import scrub_url, search_key
from ..tasks.models import CorpusDoc
from ._format import Hit
from .offline import VISIT_PAGE_CHARS, OfflineCorpus, url_key
from .web import WebTools
from .web_fetch import FetchError, Page
from .web_search import ProviderError

NOT_RECORDED = "not available in this recording"


class Recording:
    """The recorded exchanges of a replay selection, indexed for lookup (the last one wins)."""

    def __init__(self, events: list[WebEvent], language: str = "en"):
        self.searches: dict[tuple[str, str, int | None], WebEvent] = {}
        self.pages: dict[str, WebEvent] = {}
        docs: dict[str, CorpusDoc] = {}
        for ev in events:
            if ev.replayed is not None:
                continue  # a replay's own account of what it served is no recording
            if ev.op in ("search", "scholar") and ev.query is not None:
                self.searches[search_key(ev.op, ev.query, ev.topn)] = ev
            elif ev.op == "visit" and ev.url:
                for url in (ev.url, ev.final_url):
                    if url:
                        self.pages[url] = ev
                        self.pages.setdefault(url_key(url), ev)
                text = ev.text()
                if ev.error is None and text and text.strip():
                    where = ev.final_url or ev.url
                    docs[where] = CorpusDoc(url=where, title=(ev.title or where).strip() or where, text=text)
        self.docs = list(docs.values())
        self.corpus = OfflineCorpus(self.docs, language)

    def __len__(self) -> int:
        return len(self.searches) + len(self.docs)

    def search(self, op: WebOp, query: str, topn: int) -> WebEvent | None:
        return self.searches.get(search_key(op, query, topn))

    def page(self, url: str) -> WebEvent | None:
        clean = scrub_url(url.strip())
        return self.pages.get(clean) or self.pages.get(url_key(clean))

    def fallback_hits(self, query: str, topn: int) -> list[Hit]:
        found = self.corpus.search(query, topn)
        snippets = self.corpus.snippets([d for d, _ in found], query)
        return [Hit(d.title, d.url, snip) for (d, _), snip in zip(found, snippets)]


class ReplayBackend(WebTools):
    """search / visit / scholar_search answered from a ``Recording``."""

    def __init__(self, recording: Recording, settings: Settings, *, search: SearchSpec | None = None, page_chars: int = VISIT_PAGE_CHARS):
        self.recording = recording
        self.settings = settings
        self.search_spec = search or SearchSpec(web="replay")
        self.page_chars = page_chars
        self.name = "replay"

    @staticmethod
    def _told(emit: Emit | None, event: WebEvent, outcome: ReplayOutcome) -> None:
        if emit is not None:
            told = event.model_copy(update={"replayed": outcome, "fetched_at": time.time(), "call_id": None})
            told._blobs = {}  # the contents are stored already: the account refers to them
            emit(told)

    async def _hits(self, op: WebOp, query: str, topn: int, emit: Emit | None) -> list[Hit]:
        recorded = self.recording.search(op, query, topn)
        if recorded is not None:
            self._told(emit, recorded, "exact")
            if recorded.error is not None:
                raise ProviderError(recorded.error)
            return [Hit(**h) for h in recorded.hits or []]
        hits = await asyncio.to_thread(self.recording.fallback_hits, query, topn)
        self._told(emit, WebEvent(op=op, backend="replay", query=query, topn=topn, hits=[h.__dict__ for h in hits]), "fallback")
        return hits

    @asynccontextmanager
    async def _pages(self) -> AsyncIterator[httpx.AsyncClient | None]:
        yield None  # nothing to connect with

    async def _page(self, client: httpx.AsyncClient | None, url: str, emit: Emit | None) -> Page:
        recorded = self.recording.page(url)
        if recorded is None:
            self._told(emit, WebEvent(op="visit", backend="replay", url=scrub_url(url.strip()), error=NOT_RECORDED), "missing")
            raise FetchError(NOT_RECORDED)
        self._told(emit, recorded, "exact")
        text = recorded.text()
        if recorded.error is not None or text is None:
            raise FetchError(recorded.error or NOT_RECORDED, status=recorded.status)
        return Page(recorded.final_url or recorded.url or url, recorded.title, text, recorded.truncated, recorded.status or 200)
