"""The web backend: real search, page fetching and scholarly search.

The run's ``SearchSpec`` picks the search provider (ddgs, serper, tavily, searxng); ``visit``
fetches pages (``web_fetch``) and reads them for the goal (LLM summary when
``settings.summariser_model`` is set, else the best passages); ``scholar_search`` asks OpenAlex
and falls back to Semantic Scholar. Keys are read from the environment at call time and never
appear in a result: every error text goes through ``vibesearch.llm.scrub``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import httpx

from ..config import Settings
from ..llm import scrub
from ..run.config import SearchSpec
from ..run.events import Emit
from . import web_search
from ._format import format_hits, join_pages, page_block
from .base import ToolOutput
from .summarise import read_for_goal
from .web_fetch import FetchError, fetch_page, make_client
from .web_search import DEFAULT_URLS, ProviderError

WEB_PROVIDERS = ("ddgs", "serper", "tavily", "searxng")
SCHOLAR_PROVIDERS = ("openalex", "semantic_scholar")
VISIT_PAGE_CHARS = 8_000


class WebBackend:
    """search / visit / scholar_search over the real web."""

    def __init__(
        self,
        settings: Settings,
        *,
        provider: str | None = None,
        search: SearchSpec | None = None,
        base_urls: dict[str, str] | None = None,
        scholar_providers: tuple[str, ...] = SCHOLAR_PROVIDERS,
        allow_private: bool = False,
        ddgs_factory: Callable[..., Any] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        page_chars: int = VISIT_PAGE_CHARS,
    ):
        self.settings = settings
        self.search_spec = search or SearchSpec(backend="ddgs")  # the run's: results per search, the cap on a result
        self.provider = provider or self.search_spec.backend
        if self.provider not in WEB_PROVIDERS:
            raise ValueError(f"search_backend: {self.provider!r} is not a web backend (one of {', '.join(WEB_PROVIDERS)})")
        unknown = set(scholar_providers) - set(SCHOLAR_PROVIDERS)
        if unknown or not scholar_providers:
            raise ValueError(f"scholar_providers: choose from {', '.join(SCHOLAR_PROVIDERS)}")
        self.base_urls = {**DEFAULT_URLS, **(base_urls or {})}
        self.searxng_url = self.base_urls.get("searxng") or settings.searxng_url
        self.scholar_providers = scholar_providers
        self.allow_private = allow_private
        self.ddgs_factory = ddgs_factory
        self.transport = transport
        self.page_chars = page_chars
        self.name = f"web:{self.provider}"

    def _api_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=httpx.Timeout(self.settings.http_timeout_s), transport=self.transport, follow_redirects=False)

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

    async def search(self, query: str, topn: int) -> ToolOutput:
        try:
            hits = await self._search_hits(query, topn)
        except ProviderError as exc:
            return ToolOutput(scrub(f"search failed: {exc}"), error=True)
        return ToolOutput(format_hits(query, hits))

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

    async def scholar(self, query: str) -> ToolOutput:
        try:
            hits = await self._scholar_hits(query, self.search_spec.topn)
        except ProviderError as exc:
            return ToolOutput(scrub(f"scholar_search failed: {exc}"), error=True)
        return ToolOutput(format_hits(query, hits, scholarly=True))

    # the raw material of the official profile's tools (``tools.official``), which lay it out themselves
    async def hits(self, query: str, topn: int, *, scholarly: bool = False) -> list[web_search.Hit]:
        """The hits of ``query`` from the run's provider (the scholarly providers when
        ``scholarly``); raises ProviderError when none answers."""
        return await (self._scholar_hits(query, topn) if scholarly else self._search_hits(query, topn))

    async def page_texts(self, urls: list[str]) -> list[str | None]:
        """The text of each page, fetched with the same guard as ``visit`` (public addresses only,
        unless ``allow_private``); None for a page that could not be read."""

        async def one(client: httpx.AsyncClient, url: str) -> str | None:
            try:
                page = await fetch_page(client, url, max_bytes=self.settings.visit_max_bytes, timeout_s=self.settings.http_timeout_s)
            except Exception:  # noqa: BLE001 - any failure reads as a page that cannot be accessed
                return None
            return page.text

        async with make_client(self.settings.http_timeout_s, allow_private=self.allow_private, transport=self.transport) as client:
            return list(await asyncio.gather(*(one(client, u) for u in urls)))

    async def _visit_one(self, client: httpx.AsyncClient, url: str, goal: str, limit: int, emit: Emit | None) -> tuple[str, bool]:
        try:
            page = await fetch_page(client, url, max_bytes=self.settings.visit_max_bytes, timeout_s=self.settings.http_timeout_s)
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
        async with make_client(self.settings.http_timeout_s, allow_private=self.allow_private, transport=self.transport) as client:
            results = await asyncio.gather(*(self._visit_one(client, u, goal, limit, emit) for u in urls))
        ok = any(good for _, good in results)
        return ToolOutput(join_pages([block for block, _ in results]), error=not ok)
