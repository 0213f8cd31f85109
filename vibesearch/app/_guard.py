"""The app's front door: one ASGI middleware in front of Gradio's routes that every request passes.

* **Where a request comes from.** A browser names the page that sent a request in ``Origin`` (and
  ``Referer``). Every request naming a page of another origin is refused (403), so a page on
  another site, or on another port of the same host, can neither change anything as the person
  logged in nor read an answer (a refused request carries nothing). The app's own origin is the
  address the request was sent to (its ``Host``, over http or https) or ``VIBESEARCH_PUBLIC_URL``
  behind a reverse proxy. A request naming no page (gradio_client, curl) is not a browser's
  cross-site request and passes. ``Origin: null`` (a sandboxed or redirected page) is refused.
* **Which name the request was sent to.** Served on a loopback address with no public URL, only
  loopback names are answered (``localhost``, ``127.0.0.1``, ``[::1]``): a site whose name is made
  to point at 127.0.0.1 (DNS rebinding) is not. With a public URL, its host and loopback names.
* **Password guessing.** ``POST /login`` is counted per login name and per client address in the
  database (``store.login_failures``, shared by every server of it): after a few failures each
  further one locks that name and that address for a time doubling per failure; a locked login is
  answered 429 with ``Retry-After`` before the password is looked at.
* **The login cookie** is sent back ``SameSite=Lax`` (Gradio asks for ``None``, which only an
  embedding in another site's page needs).
* **Logging out** is a ``POST /logout`` naming the app's own page in ``Origin`` (the page's Log
  out button); a GET is refused (405), so a link or an image on another page cannot log anyone
  out. It ends the login of both of Gradio's cookies (Gradio's own single-session logout looks
  only at the first, so a browser holding only the second stayed logged in).
* **Files for one login.** A file the app made for one login (a label export) is served to that
  login only; anyone else holding its address is answered as if it did not exist.
* **Study links.** ``/study/<id>`` is a study's door (``_study_door``): a one-time code makes a
  player login. A player may read, and call only the player view's handlers and the page's loads
  (``player_fns``); anything else a player sends is refused.
* **One page, one person.** Gradio keeps each page's state under a session id the page sends with
  every event; the first login to use an id owns it, and another login sending that id is refused
  (knowing someone's session id gives neither their state nor their event stream).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import time
from collections import OrderedDict
from http.cookies import SimpleCookie
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from ..config import Settings
from ..store import Store
from ..store.logins import LoginThrottle
from ._access import PLAYER_PREFIX
from ._study_door import STUDY_PATH, study_door

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_MAX_LOGIN_BODY = 64 * 1024
_MAX_EVENT_BODY = 8 * 1024 * 1024  # an event's JSON (uploads go through /upload, not here)
_BOUND_SESSIONS = 200_000  # session ids remembered per server (oldest forgotten first)


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, host lowercased and the default port filled in."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _host_of(host_header: str) -> tuple[str, int | None] | None:
    """(name, port or None) of a ``Host`` header."""
    try:
        parts = urlsplit("//" + host_header.strip())
        return (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None


def is_loopback_host(host: str) -> bool:
    return host in _LOOPBACK_NAMES or host.startswith("127.")


class Guard:
    """The ASGI middleware (see the module's docstring). ``settings`` and ``store`` are the app's."""

    def __init__(self, app: ASGIApp, settings: Settings, store: Store, bound_host: str | None = None,
                 private_files: dict[str, str] | None = None, player_fns: set[int] | None = None):
        self.app = app
        self.store = store
        self.private_files = private_files if private_files is not None else {}
        self.player_fns = player_fns if player_fns is not None else set()  # the handlers a study's player may call
        self.login_ttl_s = settings.login_ttl_h * 3600.0
        self.public = origin_of(settings.public_url) if settings.public_url else None
        if settings.public_url and self.public is None:
            raise ValueError(f"VIBESEARCH_PUBLIC_URL {settings.public_url!r} is not an http(s) address")
        host = (bound_host if bound_host is not None else settings.host).strip().strip("[]").lower()
        # which names the app answers to: None = any (served on every address: names unknown)
        self.answered: frozenset[str] | None
        if self.public is not None:
            self.answered = _LOOPBACK_NAMES | {self.public[1]}
        elif is_loopback_host(host) or host == "localhost":
            self.answered = _LOOPBACK_NAMES | {host}
        else:
            self.answered = None
        free = settings.login_free_failures
        self.by_login = LoginThrottle(free=free, base_s=settings.login_lockout_s, max_s=settings.login_lockout_max_s)
        # a shared address (a lab behind one NAT) gets more room than one login name
        self.by_address = LoginThrottle(free=free * 4, base_s=settings.login_lockout_s, max_s=settings.login_lockout_max_s)
        self.sessions: OrderedDict[str, str] = OrderedDict()  # session id -> the login that owns it

    # ------------------------------------------------------------------ the request
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _answer(send, 403, refusal)
            return
        path = scope.get("path", "")
        method = scope.get("method", "GET")
        if STUDY_PATH.match(path):
            body = await _read_body(receive, _MAX_LOGIN_BODY) if method == "POST" else b""
            if body is None:
                await _answer(send, 413, "The form is too large.")
                return
            await study_door(scope, send, self.store, self.by_address, body, self.login_ttl_s)
            return
        if method == "POST" and path.rstrip("/").endswith("/login"):
            await self._login(scope, receive, send)
            return
        if path.rstrip("/").endswith("/logout"):
            await self._logout(scope, receive, send, headers)
            return
        if "/gradio_api/file=" in path and self.private_files:
            real = await asyncio.to_thread(os.path.realpath, path.split("/gradio_api/file=", 1)[1])
            owner = self.private_files.get(real)
            if owner is not None and owner != self._login_of(scope, headers):
                await _answer(send, 404, "File not found.")
                return
        if "/gradio_api/" in path and self._logins_on(scope):
            await self._session_bound(scope, receive, send, headers)
            return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> str | None:
        host = _host_of(headers.get("host", ""))
        if host is None or (self.answered is not None and host[0] not in self.answered and not is_loopback_host(host[0])):
            return ("This app does not answer to that address. Open it at its own address "
                    "(behind a reverse proxy, the operator sets VIBESEARCH_PUBLIC_URL).")
        origin = headers.get("origin")
        if origin is None and scope.get("method") in _UNSAFE:
            origin = headers.get("referer")
        if origin is None:
            return None
        if not self._own(origin, host):
            log.warning("refused a request sent by a page of %s to %s", _shown(origin), _shown(scope.get("path", "")))
            return "Refused: this request was sent by a page of another site."
        return None

    def _own(self, url: str, host: tuple[str, int | None]) -> bool:
        got = origin_of(url)
        if got is None:  # "null", or not a web address
            return False
        if self.public is not None and got == self.public:
            return True
        name, port = host
        return got[1] == name and got[2] == (port or _DEFAULT_PORTS[got[0]])

    # ------------------------------------------------------------------ logins
    def _logins_on(self, scope: Scope) -> bool:
        app = scope.get("app")
        return getattr(app, "auth", None) is not None

    def _login_of(self, scope: Scope, headers: dict[str, str]) -> str | None:
        app = scope.get("app")
        tokens = getattr(app, "tokens", None)
        cookie_id = getattr(app, "cookie_id", None)
        if tokens is None or cookie_id is None:
            return None
        cookies = _cookies(headers)
        for name in (f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"):
            token = cookies.get(name)
            if token:
                user = tokens.get(token)
                if user is not None:
                    return str(user)
        return None

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _read_body(receive, _MAX_LOGIN_BODY)
        if body is None:
            await _answer(send, 413, "The login form is too large.")
            return
        username = _form_username(_headers(scope).get("content-type", ""), body)
        client = scope.get("client") or ("", 0)
        keys = [(f"addr:{client[0]}", self.by_address)]
        if username:
            keys.insert(0, (f"login:{username}", self.by_login))
        until = self.store.login_locked_until([k for k, _ in keys])
        now = time.time()
        if until > now:
            await _too_many(send, until - now)
            return
        status: list[int] = []

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
                message = {**message, "headers": [_lax(k, v) for k, v in message.get("headers", [])]}
                if status[0] == 400:  # counted (and any lock set) before the client hears of the failure
                    for key, policy in keys:
                        self.store.record_login_failure([key], policy)
            await send(message)

        await self.app(scope, _replay(body, receive), sending)
        if status and status[0] == 200 and username:
            self.store.clear_login_failures([f"login:{username}"])

    async def _logout(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        """``POST /logout`` from the app's own page (its ``Origin``; one of another origin was
        refused already) ends the login; a GET (a link, an image on any page) ends nothing."""
        if scope.get("method") != "POST":
            await _answer(send, 405, "Log out with the app's Log out button.", [(b"allow", b"POST")])
            return
        if "origin" not in headers:
            await _answer(send, 403, "Refused: log out from the app's own page.")
            return
        if await _read_body(receive, _MAX_LOGIN_BODY) is None:
            await _answer(send, 413, "The form is too large.")
            return
        # Gradio's own logout route answers GET: it is handed this request as one
        await self.app({**scope, "method": "GET"}, _replay(b"", receive), _see_other(send))
        app = scope.get("app")
        tokens = getattr(app, "tokens", None)
        cookie_id = getattr(app, "cookie_id", None)
        if tokens is None or cookie_id is None:
            return
        cookies = _cookies(headers)
        for name in (f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"):
            token = cookies.get(name)
            if token:
                try:
                    del tokens[token]
                except KeyError:
                    pass  # Gradio (or another server) ended it already

    # ------------------------------------------------------------------ sessions
    async def _session_bound(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        """Bind each session id to the first login using it; refuse another login's use of it.
        A study's player may only read, and call the player view's handlers and the page's loads."""
        session, data, receive = await self._session_id(scope, receive)
        user = self._login_of(scope, headers) or ""
        if user.startswith(PLAYER_PREFIX) and scope.get("method") not in ("GET", "HEAD"):
            path = scope.get("path", "")
            fn = data.get("fn_index") if isinstance(data, dict) else None
            if not (path.rstrip("/").endswith("/queue/join") and isinstance(fn, int) and fn in self.player_fns):
                log.warning("refused a study player's request to %s", _shown(path))
                await _answer(send, 403, "Refused: a study's player can only play.")
                return
        if session:
            owner = self.sessions.get(session)
            if owner is None:
                self.sessions[session] = user
                while len(self.sessions) > _BOUND_SESSIONS:
                    self.sessions.popitem(last=False)
            elif owner != user:
                await _answer(send, 403, "Refused: this page session belongs to another login. Reload the page.")
                return
            else:
                self.sessions.move_to_end(session)
        await self.app(scope, receive, send)

    async def _session_id(self, scope: Scope, receive: Receive) -> tuple[str, Any, Receive]:
        """The page session a request names, the event's JSON (for a posted event) and the body."""
        path: str = scope.get("path", "")
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        if "session_hash" in query:
            return query["session_hash"][0], None, receive
        marker = "/gradio_api/heartbeat/"
        if marker in path:
            return path.split(marker, 1)[1].strip("/"), None, receive
        if scope.get("method") == "POST" and any(p in path for p in ("/queue/join", "/run/", "/call/", "/cancel")):
            body = await _read_body(receive, _MAX_EVENT_BODY)
            if body is None:
                return "", None, _replay(b"", receive)  # too large for an event: Gradio refuses it
            try:
                data = json.loads(body or b"{}")
            except ValueError:
                data = {}
            session = data.get("session_hash") if isinstance(data, dict) else None
            return (session if isinstance(session, str) else ""), data, _replay(body, receive)
        return "", None, receive


# ---------------------------------------------------------------------- small parts
def _shown(text: str) -> str:
    """Text a browser sent, fit for one log line (escaped, cut)."""
    return repr(text[:200])


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers") or []:
        out.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
    return out


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header: no cookies
        return {}
    return {k: m.value for k, m in jar.items()}


def _form_username(content_type: str, body: bytes) -> str:
    if "application/x-www-form-urlencoded" in content_type or not content_type:
        values = parse_qs(body.decode("utf-8", errors="replace")).get("username") or [""]
        return values[0].strip()
    if "multipart/form-data" in content_type and "boundary=" in content_type:
        boundary = content_type.split("boundary=", 1)[1].split(";", 1)[0].strip().strip('"').encode()
        for part in body.split(b"--" + boundary):
            head, _, value = part.partition(b"\r\n\r\n")
            if b'name="username"' in head:
                return value.rstrip(b"\r\n-").decode("utf-8", errors="replace").strip()
    return ""


def _lax(key: bytes, value: bytes) -> tuple[bytes, bytes]:
    if key.lower() == b"set-cookie" and value.startswith(b"access-token"):
        value = value.replace(b"SameSite=none", b"SameSite=lax").replace(b"SameSite=None", b"SameSite=lax")
    return key, value


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _answer(send: Send, status: int, detail: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


def _see_other(send: Send) -> Send:
    """Gradio's 302 after logging out, as 303: the browser follows a POST's redirect with a GET."""
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and message.get("status") == 302:
            message = {**message, "status": 303}
        await send(message)

    return sending


async def _too_many(send: Send, wait_s: float) -> None:
    seconds = max(1, math.ceil(wait_s))
    await _answer(send, 429, f"Too many failed logins: try again in {seconds} s.", [(b"retry-after", str(seconds).encode())])
