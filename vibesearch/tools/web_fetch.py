"""Fetching a web page for ``visit``: httpx with a timeout, a size cap and at most five redirects,
then trafilatura to pull the main text out of the HTML.

Addresses that resolve to loopback, private, link-local or otherwise non-public networks are
refused unless the caller allows them (tests serve pages from 127.0.0.1); every redirect hop is
checked, not only the first URL. The connection goes to the very address that was checked (the
name is resolved once per hop, then the request is sent to that IP with the name kept as the
``Host`` header and the TLS server name), so a name that answers a public address to the check
and a private one to the connection (DNS rebinding) reaches nothing. IPv6 forms that carry an IPv4
address (NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, IPv4-compatible ``::a.b.c.d`` and -mapped
``::ffff:a.b.c.d``) are judged by the IPv4 address inside.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (compatible; vibesearch/0.1; +https://github.com/vibesearch)"
_TEXT_TYPES = ("text/plain", "application/json", "text/markdown", "text/csv", "application/xml", "text/xml")


class FetchError(Exception):
    """A page could not be fetched or read; the message is safe to show to the model. ``status``:
    the server's HTTP status when it answered one."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


@dataclass
class Page:
    url: str  # the final URL after redirects
    title: str | None
    text: str
    truncated: bool = False
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)  # as the server sent them (``run.web.kept_headers`` picks)
    raw: bytes = b""  # the body as downloaded (at most ``max_bytes``)


Resolver = Callable[[str, int], Awaitable[list[str]]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_V4_COMPATIBLE = ipaddress.ip_network("::/96")
# prefixes Python's ``is_global`` still calls global, none of them an address of the public web:
# site-local (fec0::/10, deprecated but routed inside some networks), IPv4-translated (SIIT,
# ::ffff:0:0/96) and the local-use NAT64 prefix (64:ff9b:1::/48, RFC 8215)
_NEVER_PUBLIC = tuple(ipaddress.ip_network(n) for n in ("fec0::/10", "::ffff:0:0:0/96", "64:ff9b:1::/48"))


async def system_resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally reachable address (an IPv6 form carrying an IPv4 address: that IPv4 address)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in net for net in _NEVER_PUBLIC):
            return False
        inner: ipaddress.IPv4Address | None = ip.ipv4_mapped
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is None and ip in _SIX_TO_FOUR:
            inner = ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF)
        if inner is None and ip in _V4_COMPATIBLE and int(ip) > 1:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            return inner.is_global
    return ip.is_global


async def _public_address(url: httpx.URL, resolve: Resolver) -> str:
    """The one address of ``url``'s host to connect to; every address it resolves to is public."""
    host = url.host
    if not host:
        raise FetchError(f"the URL {url} has no host")
    try:
        addresses = await resolve(host, url.port or (443 if url.scheme == "https" else 80))
    except (socket.gaierror, OSError) as exc:
        raise FetchError(f"cannot resolve the host {host!r} ({getattr(exc, 'strerror', None) or exc})") from None
    if not addresses:
        raise FetchError(f"cannot resolve the host {host!r}")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not is_public(ip):
            raise FetchError(f"refusing to fetch {host}: it resolves to a non-public address ({ip})")
    return addresses[0].split("%", 1)[0]


class _PinnedTransport(httpx.AsyncBaseTransport):
    """Checks each request's host (each redirect hop is a request) and sends it to the checked IP."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, allow_private: bool, resolve: Resolver):
        self.inner = inner
        self.allow_private = allow_private
        self.resolve = resolve

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme not in ("http", "https"):
            raise FetchError(f"only http and https URLs can be visited, not {request.url.scheme!r}")
        if self.allow_private:
            return await self.inner.handle_async_request(request)
        name = request.url.host
        address = await _public_address(request.url, self.resolve)
        try:
            ipaddress.ip_address(name)
            literal = True
        except ValueError:
            literal = False
        if literal:
            return await self.inner.handle_async_request(request)
        headers = request.headers.copy()
        headers["Host"] = request.url.netloc.decode("ascii")
        pinned = httpx.Request(
            request.method, request.url.copy_with(host=address), headers=headers, stream=request.stream,
            extensions={**request.extensions, "sni_hostname": name},
        )
        return await self.inner.handle_async_request(pinned)

    async def aclose(self) -> None:
        await self.inner.aclose()


def make_client(
    timeout_s: float, *, allow_private: bool = False, transport: httpx.AsyncBaseTransport | None = None,
    resolve: Resolver | None = None,
) -> httpx.AsyncClient:
    """An HTTP client for page fetches (redirects followed and checked, at most five; each hop
    connected to the address its check approved)."""
    pinned = _PinnedTransport(transport or httpx.AsyncHTTPTransport(), allow_private=allow_private, resolve=resolve or system_resolve)
    return httpx.AsyncClient(
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        timeout=httpx.Timeout(timeout_s),
        headers={"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"},
        transport=pinned,
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
                    raise FetchError(f"the server answered HTTP {resp.status_code} {resp.reason_phrase}".rstrip(), status=resp.status_code)
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
                status, headers = resp.status_code, dict(resp.headers)
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
        return Page(final_url, None, text.strip(), truncated, status, headers, raw)
    title, text = await asyncio.to_thread(extract_html, raw, final_url, charset)
    if not text.strip():
        raise FetchError("no readable text could be extracted from the page", status=status)
    return Page(final_url, title, text, truncated, status, headers, raw)


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
