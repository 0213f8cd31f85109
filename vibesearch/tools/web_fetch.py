"""Fetching a web page for ``visit``: httpx with a timeout, a size cap and at most five redirects,
then trafilatura to pull the main text out of the HTML.

Addresses that resolve to loopback, private, link-local or otherwise non-public networks are
refused unless the caller allows them (tests serve pages from 127.0.0.1); every redirect hop is
checked, not only the first URL.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (compatible; vibesearch/0.1; +https://github.com/vibesearch)"
_TEXT_TYPES = ("text/plain", "application/json", "text/markdown", "text/csv", "application/xml", "text/xml")


class FetchError(Exception):
    """A page could not be fetched or read; the message is safe to show to the model."""


@dataclass
class Page:
    url: str  # the final URL after redirects
    title: str | None
    text: str
    truncated: bool = False


async def _check_public(url: httpx.URL) -> None:
    host = url.host
    if not host:
        raise FetchError(f"the URL {url} has no host")
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, url.port or (443 if url.scheme == "https" else 80), type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise FetchError(f"cannot resolve the host {host!r} ({exc.strerror or exc})") from None
    for info in infos:
        ip = ipaddress.ip_address(info[4][0])
        if not ip.is_global:
            raise FetchError(f"refusing to fetch {host}: it resolves to a non-public address ({ip})")


def make_client(timeout_s: float, *, allow_private: bool = False, transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """An HTTP client for page fetches (redirects followed and checked, at most five)."""

    async def guard(request: httpx.Request) -> None:
        if request.url.scheme not in ("http", "https"):
            raise FetchError(f"only http and https URLs can be visited, not {request.url.scheme!r}")
        if not allow_private:
            await _check_public(request.url)

    return httpx.AsyncClient(
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        timeout=httpx.Timeout(timeout_s),
        headers={"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"},
        event_hooks={"request": [guard]},
        transport=transport,
    )


def normalise_url(url: str) -> str:
    url = url.strip().strip("<>\"'")
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be visited, not {parts.scheme!r}")
    if not parts.netloc:
        raise FetchError(f"{url!r} is not a web address")
    return url


async def fetch_page(client: httpx.AsyncClient, url: str, *, max_bytes: int, timeout_s: float) -> Page:
    """Download ``url`` (at most ``max_bytes``) and extract its main text."""
    url = normalise_url(url)
    try:
        async with asyncio.timeout(timeout_s + 5):
            async with client.stream("GET", url) as resp:
                if resp.status_code >= 400:
                    raise FetchError(f"the server answered HTTP {resp.status_code} {resp.reason_phrase}".rstrip())
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                body = bytearray()
                truncated = False
                async for chunk in resp.aiter_bytes():
                    body.extend(chunk)
                    if len(body) > max_bytes:
                        del body[max_bytes:]
                        truncated = True
                        break
                final_url = str(resp.url)
                charset = resp.charset_encoding
    except FetchError:
        raise
    except httpx.TooManyRedirects:
        raise FetchError(f"more than {MAX_REDIRECTS} redirects") from None
    except (httpx.TimeoutException, TimeoutError):
        raise FetchError(f"no answer within {timeout_s:g} s") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"{type(exc).__name__}: {exc}") from None
    if ctype == "application/pdf" or bytes(body[:5]) == b"%PDF-":
        raise FetchError("the page is a PDF document, which this backend cannot read")
    if ctype.startswith("image/") or ctype.startswith("audio/") or ctype.startswith("video/"):
        raise FetchError(f"the page is not text ({ctype})")
    raw = bytes(body)
    if ctype in _TEXT_TYPES or (ctype.startswith("text/") and ctype != "text/html"):
        text = raw.decode(charset or "utf-8", errors="replace")
        return Page(final_url, None, text.strip(), truncated)
    title, text = await asyncio.to_thread(extract_html, raw, final_url, charset)
    if not text.strip():
        raise FetchError("no readable text could be extracted from the page")
    return Page(final_url, title, text, truncated)


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def extract_html(raw: bytes, url: str, charset: str | None) -> tuple[str | None, str]:
    """(title, main text) of an HTML document, via trafilatura with a plain-text fallback."""
    import trafilatura

    content: str | bytes = raw.decode(charset, errors="replace") if charset else raw
    text = trafilatura.extract(content, url=url, include_comments=False, include_tables=True, favor_recall=True)
    if not text:
        text = trafilatura.html2txt(content) or ""
    title = None
    try:
        meta = trafilatura.extract_metadata(content)
        title = meta.title if meta is not None else None
    except Exception:  # noqa: BLE001 - metadata is a nicety
        title = None
    if not title:
        head = raw[:200_000].decode(charset or "utf-8", errors="replace")
        match = _TITLE.search(head)
        title = " ".join(match.group(1).split()) if match else None
    return title, text.strip()
