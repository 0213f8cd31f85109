"""Web search and scholarly search providers. Each returns ``Hit``s or raises ``ProviderError``
(a message safe to show: it names a missing variable, never a key's value).

* ``ddgs`` — the ddgs metasearch package, no key;
* ``serper`` — Google results through serper.dev (``SERPER_API_KEY``);
* ``tavily`` — Tavily's search API (``TAVILY_API_KEY``);
* ``searxng`` — a SearXNG instance's JSON API (``VIBESEARCH_SEARXNG_URL``);
* scholarly: OpenAlex (no key; ``OPENALEX_MAILTO`` joins its polite pool) and Semantic Scholar
  (``SEMANTIC_SCHOLAR_API_KEY`` optional).

Every base URL can be overridden (tests point them at a local server).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Callable

import httpx

from ._format import Hit
from ._text import best_sentences

DEFAULT_URLS = {
    "serper": "https://google.serper.dev",
    "tavily": "https://api.tavily.com",
    "openalex": "https://api.openalex.org",
    "semantic_scholar": "https://api.semanticscholar.org",
}
KEY_VARIABLES = {"serper": "SERPER_API_KEY", "tavily": "TAVILY_API_KEY"}


class ProviderError(Exception):
    """A search provider failed; the message is safe to show to the model."""


def require_key(provider: str) -> str:
    var = KEY_VARIABLES[provider]
    value = os.environ.get(var, "").strip()
    if not value:
        raise ProviderError(f"the {provider} search backend needs the environment variable {var}, which is not set")
    return value


async def _json(client: httpx.AsyncClient, method: str, url: str, provider: str, **kwargs: Any) -> Any:
    try:
        resp = await client.request(method, url, **kwargs)
    except httpx.TimeoutException:
        raise ProviderError(f"{provider} did not answer in time") from None
    except httpx.HTTPError as exc:
        raise ProviderError(f"{provider} could not be reached ({type(exc).__name__})") from None
    if resp.status_code in (401, 403):
        raise ProviderError(f"{provider} refused the request (HTTP {resp.status_code}); check the API key")
    if resp.status_code == 429:
        raise ProviderError(f"{provider} is rate limiting (HTTP 429); try again later")
    if resp.status_code >= 400:
        raise ProviderError(f"{provider} answered HTTP {resp.status_code}")
    try:
        return resp.json()
    except ValueError:
        raise ProviderError(f"{provider} sent a reply that is not JSON") from None


def _clean(text: Any) -> str:
    return " ".join(str(text or "").split())


async def serper(client: httpx.AsyncClient, query: str, topn: int, *, base_url: str) -> list[Hit]:
    key = require_key("serper")
    data = await _json(client, "POST", f"{base_url.rstrip('/')}/search", "serper", json={"q": query, "num": topn}, headers={"X-API-KEY": key})
    hits = [Hit(_clean(r.get("title")), r.get("link", ""), _clean(r.get("snippet")), date=r.get("date")) for r in data.get("organic") or []]
    return [h for h in hits if h.url][:topn]


async def tavily(client: httpx.AsyncClient, query: str, topn: int, *, base_url: str) -> list[Hit]:
    key = require_key("tavily")
    data = await _json(
        client,
        "POST",
        f"{base_url.rstrip('/')}/search",
        "tavily",
        json={"query": query, "max_results": topn, "search_depth": "basic"},
        headers={"Authorization": f"Bearer {key}"},
    )
    hits = [Hit(_clean(r.get("title")), r.get("url", ""), _clean(r.get("content"))[:400], date=r.get("published_date")) for r in data.get("results") or []]
    return [h for h in hits if h.url][:topn]


async def searxng(client: httpx.AsyncClient, query: str, topn: int, *, base_url: str | None) -> list[Hit]:
    if not base_url:
        raise ProviderError("the searxng search backend needs the address of an instance in VIBESEARCH_SEARXNG_URL, which is not set")
    data = await _json(client, "GET", f"{base_url.rstrip('/')}/search", "searxng", params={"q": query, "format": "json"})
    hits = [Hit(_clean(r.get("title")), r.get("url", ""), _clean(r.get("content")), date=r.get("publishedDate")) for r in data.get("results") or []]
    return [h for h in hits if h.url][:topn]


async def ddgs(query: str, topn: int, *, timeout_s: float, factory: Callable[..., Any] | None = None) -> list[Hit]:
    """The no-key backend (the ``ddgs`` package; it does its own HTTP, so it runs in a thread)."""
    if factory is None:
        from ddgs import DDGS

        factory = DDGS
    make = factory

    def run() -> list[dict[str, Any]]:
        return list(make(timeout=max(1, int(timeout_s))).text(query, max_results=topn) or [])

    try:
        rows = await asyncio.to_thread(run)
    except Exception as exc:  # noqa: BLE001 - ddgs raises its own exception types
        text = str(exc)
        if "No results" in text:
            return []
        raise ProviderError(f"ddgs search failed ({type(exc).__name__}: {text[:200]})") from None
    hits = [Hit(_clean(r.get("title")), r.get("href") or r.get("url") or "", _clean(r.get("body"))) for r in rows]
    return [h for h in hits if h.url][:topn]


def _abstract(inverted: dict[str, list[int]] | None) -> str:
    """OpenAlex stores abstracts as word -> positions; put the words back in order."""
    if not inverted:
        return ""
    slots: dict[int, str] = {}
    for word, positions in inverted.items():
        for pos in positions:
            slots[pos] = word
    return " ".join(slots[i] for i in sorted(slots))


def _authors(names: list[str], limit: int = 3) -> str:
    names = [n for n in names if n]
    if not names:
        return ""
    shown = ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")
    return f"Authors: {shown}. "


async def openalex(client: httpx.AsyncClient, query: str, topn: int, *, base_url: str) -> list[Hit]:
    params: dict[str, Any] = {"search": query, "per_page": topn}
    mailto = os.environ.get("OPENALEX_MAILTO", "").strip()
    if mailto:
        params["mailto"] = mailto
    data = await _json(client, "GET", f"{base_url.rstrip('/')}/works", "OpenAlex", params=params)
    hits = []
    for w in data.get("results") or []:
        loc = w.get("primary_location") or {}
        source = (loc.get("source") or {}).get("display_name")
        link = w.get("doi") or loc.get("landing_page_url") or w.get("id") or ""
        abstract = _abstract(w.get("abstract_inverted_index"))
        authors = _authors([(a.get("author") or {}).get("display_name", "") for a in w.get("authorships") or []])
        snippet = authors + (best_sentences(query, abstract, max_chars=300) if abstract else "")
        date = w.get("publication_date") or (str(w["publication_year"]) if w.get("publication_year") else None)
        hits.append(Hit(_clean(w.get("display_name") or w.get("title")), link, snippet.strip(), date=date, source=source))
    return [h for h in hits if h.url][:topn]


async def semantic_scholar(client: httpx.AsyncClient, query: str, topn: int, *, base_url: str) -> list[Hit]:
    headers = {}
    key = os.environ.get("SEMANTIC_SCHOLAR_API_KEY", "").strip()
    if key:
        headers["x-api-key"] = key
    data = await _json(
        client,
        "GET",
        f"{base_url.rstrip('/')}/graph/v1/paper/search",
        "Semantic Scholar",
        params={"query": query, "limit": topn, "fields": "title,url,year,venue,abstract,publicationDate,authors,externalIds"},
        headers=headers,
    )
    hits = []
    for p in data.get("data") or []:
        doi = (p.get("externalIds") or {}).get("DOI")
        link = f"https://doi.org/{doi}" if doi else p.get("url") or ""
        abstract = p.get("abstract") or ""
        authors = _authors([a.get("name", "") for a in p.get("authors") or []])
        snippet = authors + (best_sentences(query, abstract, max_chars=300) if abstract else "")
        date = p.get("publicationDate") or (str(p["year"]) if p.get("year") else None)
        hits.append(Hit(_clean(p.get("title")), link, snippet.strip(), date=date, source=p.get("venue") or None))
    return [h for h in hits if h.url][:topn]
