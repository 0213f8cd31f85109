"""The door of a study: where a player's link lands, before any login.

``GET /study/<id>?code=…`` answers a small page naming the study with the code filled in and one
button (opening a link never uses its code: a link preview or a mail scanner fetching it spends
nothing). ``POST /study/<id>`` with the code uses it (once, for that study only): a player login
is made for its play (``study:<id>:<slot>``), given to the browser as Gradio's login cookies,
and the browser is sent to the app, which shows that player only their play. A wrong or used
code is answered with the same line, and counts as a failed login of the address (the
throttle of ``_guard``).
"""

from __future__ import annotations

import html
import re
import secrets
import time
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs

from ..store import Store
from ..store.logins import LoginThrottle
from ._studies import player_prefix

Scope = dict[str, Any]
Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]

STUDY_PATH = re.compile(r"^(?P<root>.*?)/study/(?P<sid>[0-9a-f]{8})/?$")
_CODE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1f2937}}
input{{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}} button{{font-size:1rem;padding:.6rem 1.2rem;margin-top:1rem}}
.note{{color:#b91c1c}}</style></head><body>
<h1 id="vs-study-door-title">{title}</h1>
<p>{line}</p>
<form method="POST" action="{action}"><label for="code">Your code</label>
<input id="code" name="code" value="{code}" autocomplete="off" required>
<button id="vs-study-door-go" type="submit">Start</button></form></body></html>"""


def page(study_name: str, action: str, code: str, line: str) -> bytes:
    return _PAGE.format(title=html.escape(study_name), action=html.escape(action, quote=True),
                        code=html.escape(code, quote=True), line=line).encode()


async def answer_page(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"), (b"referrer-policy", b"same-origin"), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


def form_code(body: bytes) -> str:
    values = parse_qs(body.decode("utf-8", errors="replace")).get("code") or [""]
    return values[0].strip()


async def study_door(scope: Scope, send: Send, store: Store, throttle: LoginThrottle, body: bytes | None, login_ttl_s: float) -> None:
    """Answer ``/study/<id>`` (the caller matched ``STUDY_PATH``)."""
    found = STUDY_PATH.match(scope.get("path", ""))
    assert found is not None
    root, sid = found.group("root"), found.group("sid")
    study = store.study(sid)
    if study is None:
        await answer_page(send, 404, b"<!doctype html><p>No such study.</p>")
        return
    action = f"{root}/study/{sid}"
    if scope.get("method") != "POST":
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        code = (query.get("code") or [""])[0]
        line = "You are invited to play a person searching for something, with a search assistant. Press Start to begin."
        await answer_page(send, 200, page(study.name, action, code if _CODE.match(code) else "", line))
        return
    client = (scope.get("client") or ("", 0))[0]
    key = f"addr:{client}"
    code = form_code(body or b"")
    if store.login_locked_until([key]) > time.time():
        await answer_page(send, 429, page(study.name, action, "", "<span class='note'>Too many wrong codes from here: wait a minute and try again.</span>"))
        return
    play = store.claim_study_code(sid, code, player_prefix=player_prefix(sid)) if _CODE.match(code) else None
    if play is None:
        store.record_login_failure([key], throttle)
        await answer_page(send, 403, page(study.name, action, "", "<span class='note'>This code is not one of this study's, or it was used already.</span>"))
        return
    app = scope.get("app")
    token = secrets.token_urlsafe(16)
    app.tokens[token] = play.player  # type: ignore[union-attr]  # Gradio's login mapping (or the shared one)
    cookie_id = app.cookie_id  # type: ignore[union-attr]
    max_age = int(login_ttl_s)
    cookies = [
        (b"set-cookie", f"access-token-{cookie_id}={token}; HttpOnly; Path=/; SameSite=lax; Secure; Max-Age={max_age}".encode()),
        (b"set-cookie", f"access-token-unsecure-{cookie_id}={token}; HttpOnly; Path=/; SameSite=lax; Max-Age={max_age}".encode()),
    ]
    await send({"type": "http.response.start", "status": 303, "headers": [
        (b"location", f"{root}/?study={sid}".encode()), (b"content-length", b"0"), (b"cache-control", b"no-store"), *cookies]})
    await send({"type": "http.response.body", "body": b""})
