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


def recorded_pages(events: list[WebEvent]) -> list[CorpusDoc]:
    """The pages a recording holds as corpus documents (url: the final URL; title, or the URL when
    the page had none; the extracted text), one per URL (the last fetch wins), in the order first
    fetched; a page that a scholar search listed is marked ``scholarly``. Failed visits, a replay's
    own events and pages without text are left out. What ``Recording`` ranks for an unseen query
    and what ``vibesearch corpus freeze`` writes."""
    scholarly = {scrub_url(str(h.get("url", ""))) for ev in events if ev.op == "scholar" and ev.replayed is None for h in ev.hits or []}
    docs: dict[str, CorpusDoc] = {}
    for ev in events:
        text = ev.text() if ev.op == "visit" and ev.replayed is None and ev.error is None else None
        if not text or not text.strip():
            continue
        where = ev.final_url or ev.url or ""
        if not where:
            continue
        docs.pop(where, None)
        docs[where] = CorpusDoc(url=where, title=(ev.title or "").strip() or where, text=text,
                                scholarly=where in scholarly or (ev.url or "") in scholarly)
    return list(docs.values())


class Recording:
    """The recorded exchanges of a replay selection, indexed for lookup (the last one wins)."""

    def __init__(self, events: list[WebEvent], language: str = "en"):
        self.searches: dict[tuple[str, str, int | None], WebEvent] = {}
        self.pages: dict[str, WebEvent] = {}
        for ev in events:
            if ev.replayed is not None:
                continue  # a replay's own account of what it served is no recording
            if ev.op in ("search", "scholar") and ev.query is not None:
                self.searches[search_key(ev.op, ev.query, ev.topn)] = ev
            elif ev.op == "visit" and ev.url:
                for url in (ev.url, ev.final_url):
                    if url:
                        self.pages[url] = ev
                        self.pages[url_key(url)] = ev
        self.docs = recorded_pages(events)
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
        # not redirected: the page is at the URL as asked (the recording may hold it scrubbed)
        redirected = recorded.final_url is not None and recorded.final_url != recorded.url
        return Page(recorded.final_url if redirected and recorded.final_url else url, recorded.title, text, recorded.truncated,
                    recorded.status or 200)
