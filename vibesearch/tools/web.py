"""The web backend: real search, page fetching and scholarly search.

The run's ``SearchSpec`` picks the search provider (ddgs, serper, tavily, searxng); ``visit``
fetches pages (``web_fetch``) and reads them for the goal (LLM summary when
``settings.summariser_model`` is set, else the best passages); ``scholar_search`` asks OpenAlex
and falls back to Semantic Scholar. Keys are read from the environment at call time and never
appear in a result: every error text goes through ``vibesearch.llm.scrub``.

``WebTools`` lays out what the tools return from hits and pages; where they come from is its
subclass's: ``WebBackend`` asks the web (and, when the run records its web — ``search.web`` is
``record`` —, emits each exchange as a ``WebEvent``: ``run.web``), ``web_replay.ReplayBackend``
answers from a recording. One layout for both, so a replayed result is the recorded one.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict
from typing import Any, Callable

import httpx

from ..config import Settings
from ..llm import scrub
from ..run.config import SearchSpec
from ..run.events import Emit, WebEvent, WebOp
from ..run.web import kept_headers, scrub_url
from . import web_search
from ._format import format_hits, join_pages, page_block
from .base import ToolOutput
from .summarise import read_for_goal
from .web_fetch import FetchError, Page, fetch_page, make_client
from .web_search import DEFAULT_URLS, ProviderError

WEB_PROVIDERS = ("ddgs", "serper", "tavily", "searxng")
SCHOLAR_PROVIDERS = ("openalex", "semantic_scholar")
VISIT_PAGE_CHARS = 8_000
# the most bytes of a page's raw body a recording keeps (the extracted text is always kept whole)
RECORD_BODY_MAX_BYTES = 1_000_000


class WebTools:
    """search / visit / scholar_search laid out for the model from hits and pages; a subclass
    says where they come from (``_hits``, ``_page``, ``_pages``)."""

    settings: Settings
    search_spec: SearchSpec
    page_chars: int
    name: str

    async def _hits(self, op: WebOp, query: str, topn: int, emit: Emit | None) -> list[web_search.Hit]:
        """The hits of a search (``op`` "search") or scholar search; ProviderError when none."""
        raise NotImplementedError

    def _pages(self) -> AbstractAsyncContextManager[httpx.AsyncClient | None]:
        """What the pages of one visit are read through (a client, or None)."""
        raise NotImplementedError

    async def _page(self, client: httpx.AsyncClient | None, url: str, emit: Emit | None) -> Page:
        """One page; FetchError (a message safe to show) when it cannot be read."""
        raise NotImplementedError

    async def search(self, query: str, topn: int, emit: Emit | None = None) -> ToolOutput:
        try:
            hits = await self._hits("search", query, topn, emit)
        except ProviderError as exc:
            return ToolOutput(scrub(f"search failed: {exc}"), error=True)
        return ToolOutput(format_hits(query, hits))

    async def scholar(self, query: str, emit: Emit | None = None) -> ToolOutput:
        try:
            hits = await self._hits("scholar", query, self.search_spec.topn, emit)
        except ProviderError as exc:
            return ToolOutput(scrub(f"scholar_search failed: {exc}"), error=True)
        return ToolOutput(format_hits(query, hits, scholarly=True))

    # the raw material of the official profile's tools (``tools.official``), which lay it out themselves
    async def hits(self, query: str, topn: int, *, scholarly: bool = False, emit: Emit | None = None) -> list[web_search.Hit]:
        """The hits of ``query`` from the run's provider (the scholarly providers when
        ``scholarly``); raises ProviderError when none answers."""
        return await self._hits("scholar" if scholarly else "search", query, topn, emit)

    async def page_texts(self, urls: list[str], emit: Emit | None = None) -> list[str | None]:
        """The text of each page, fetched with the same guard as ``visit`` (public addresses only,
        unless ``allow_private``); None for a page that could not be read."""

        async def one(client: httpx.AsyncClient | None, url: str) -> str | None:
            try:
                page = await self._page(client, url, emit)
            except Exception:  # noqa: BLE001 - any failure reads as a page that cannot be accessed
                return None
            return page.text

        async with self._pages() as client:
            return list(await asyncio.gather(*(one(client, u) for u in urls)))

    async def _visit_one(self, client: httpx.AsyncClient | None, url: str, goal: str, limit: int, emit: Emit | None) -> tuple[str, bool]:
        try:
            page = await self._page(client, url, emit)
            body = await read_for_goal(page.text, goal, url=page.url, title=page.title, settings=self.settings, limit=limit, emit=emit)
        except asyncio.CancelledError:
            raise
        except FetchError as exc:
            return page_block(url, None, scrub(f"Could not read the page: {exc}")), False
        except Exception as exc:  # noqa: BLE001 - one bad URL gets its own error; the others are still read
            return page_block(url, None, scrub(f"Could not read the page: {type(exc).__name__}: {exc}"[:500])), False
        if page.truncated:
            body = f"[only the first {self.settings.visit_max_bytes} bytes of the page were downloaded]\n{body}"
        shown_url = url if page.url.rstrip("/") == url.rstrip("/") else f"{url} -> {page.url}"
        return page_block(shown_url, page.title, body), True

    async def visit(self, urls: list[str], goal: str, emit: Emit | None = None) -> ToolOutput:
        limit = max(1_000, min(self.page_chars, self.search_spec.tool_result_max_chars // len(urls) - 200))
        async with self._pages() as client:
            results = await asyncio.gather(*(self._visit_one(client, u, goal, limit, emit) for u in urls))
        ok = any(good for _, good in results)
        return ToolOutput(join_pages([block for block, _ in results]), error=not ok)


class WebBackend(WebTools):
    """search / visit / scholar_search over the real web."""

    def __init__(
        self,
        settings: Settings,
        *,
        provider: str | None = None,
        search: SearchSpec | None = None,
        base_urls: dict[str, str] | None = None,
        scholar_providers: tuple[str, ...] = SCHOLAR_PROVIDERS,
        allow_private: bool | None = None,
        ddgs_factory: Callable[..., Any] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        page_chars: int = VISIT_PAGE_CHARS,
    ):
        self.settings = settings
        self.search_spec = search or SearchSpec(backend="ddgs")  # the run's: results per search, the cap on a result, the web mode
        self.provider = provider or self.search_spec.backend
        if self.provider not in WEB_PROVIDERS:
            raise ValueError(f"search_backend: {self.provider!r} is not a web backend (one of {', '.join(WEB_PROVIDERS)})")
        unknown = set(scholar_providers) - set(SCHOLAR_PROVIDERS)
        if unknown or not scholar_providers:
            raise ValueError(f"scholar_providers: choose from {', '.join(SCHOLAR_PROVIDERS)}")
        self.base_urls = {**DEFAULT_URLS, **(base_urls or {})}
        self.searxng_url = self.base_urls.get("searxng") or settings.searxng_url
        self.scholar_providers = scholar_providers
        self.allow_private = settings.web_allow_private if allow_private is None else allow_private
        self.ddgs_factory = ddgs_factory
        self.transport = transport
        self.page_chars = page_chars
        self.records = self.search_spec.web == "record"
        self.name = f"web:{self.provider}"

    def _api_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=httpx.Timeout(self.settings.http_timeout_s), transport=self.transport, follow_redirects=False)

    def _keep(self, emit: Emit | None, event: WebEvent) -> None:
        """Record one exchange in the run (when it records its web and has an emit)."""
        if self.records and emit is not None:
            emit(event)

    async def _search_hits(self, query: str, topn: int) -> list[web_search.Hit]:
        p = self.provider
        if p == "ddgs":
            return await web_search.ddgs(query, topn, timeout_s=self.settings.http_timeout_s, factory=self.ddgs_factory)
        async with self._api_client() as client:
            if p == "serper":
                return await web_search.serper(client, query, topn, base_url=self.base_urls["serper"])
            if p == "tavily":
                return await web_search.tavily(client, query, topn, base_url=self.base_urls["tavily"])
            return await web_search.searxng(client, query, topn, base_url=self.searxng_url)

    async def _scholar_hits(self, query: str, topn: int) -> list[web_search.Hit]:
        """The first scholarly provider's hits that answers; ProviderError naming every failure."""
        problems = []
        async with self._api_client() as client:
            for name in self.scholar_providers:
                fn = web_search.openalex if name == "openalex" else web_search.semantic_scholar
                try:
                    return await fn(client, query, topn, base_url=self.base_urls[name])
                except ProviderError as exc:
                    problems.append(str(exc))
        raise ProviderError("; ".join(problems))

    async def _hits(self, op: WebOp, query: str, topn: int, emit: Emit | None) -> list[web_search.Hit]:
        backend = self.provider if op == "search" else ",".join(self.scholar_providers)
        event = WebEvent(op=op, backend=backend, query=query, topn=topn, fetched_at=time.time())
        try:
            hits = await (self._search_hits(query, topn) if op == "search" else self._scholar_hits(query, topn))
        except ProviderError as exc:
            event.error = scrub(str(exc))
            self._keep(emit, event)
            raise
        event.hits = [{**asdict(h), "url": scrub_url(h.url)} for h in hits]
        self._keep(emit, event)
        return hits

    def _pages(self) -> AbstractAsyncContextManager[httpx.AsyncClient | None]:
        return make_client(self.settings.http_timeout_s, allow_private=self.allow_private, transport=self.transport)

    async def _page(self, client: httpx.AsyncClient | None, url: str, emit: Emit | None) -> Page:
        assert client is not None  # (``_pages`` gives one)
        event = WebEvent(op="visit", backend="web", url=scrub_url(url.strip()), fetched_at=time.time())
        try:
            page = await fetch_page(client, url, max_bytes=self.settings.visit_max_bytes, timeout_s=self.settings.http_timeout_s)
        except FetchError as exc:
            event.status, event.error = exc.status, scrub(str(exc))
            self._keep(emit, event)
            raise
        except Exception as exc:  # noqa: BLE001 - said as the visit says it, and recorded so
            error = FetchError(f"{type(exc).__name__}: {exc}"[:470])
            event.error = scrub(str(error))
            self._keep(emit, event)
            raise error from None
        if self.records and emit is not None:
            event.final_url, event.status, event.title = scrub_url(page.url), page.status, page.title
            event.headers, event.truncated = kept_headers(page.headers), page.truncated
            event.body_bytes, event.body_capped = len(page.raw), len(page.raw) > RECORD_BODY_MAX_BYTES
            event.text_sha256 = event.attach(page.text.encode("utf-8"))
            event.body_sha256 = event.attach(page.raw[:RECORD_BODY_MAX_BYTES])
            emit(event)
        return page
