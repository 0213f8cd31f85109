"""Logins across app servers: two real app servers (``python app.py``) on one PostgreSQL database,
with the same ``VIBESEARCH_AUTH`` and ``VIBESEARCH_SECRET_KEY``. A login made on A over HTTP (the
form Gradio's login page posts) is known to B — its user endpoint, its page config and an API call
made with A's cookie, which starts a run owned by the login; a logout on either server ends it on
both; a made-up cookie is refused; the database holds the token's sha256, never the token; wrong
passwords sent to A lock the login on B as well. And,
without a server: the mapping Gradio's routes use behaves as they need it to."""

from __future__ import annotations

import hashlib
import secrets

import httpx
import pytest
from app_harness import AppServer, start_app, stop_app
from gradio_client import Client
from pydantic import SecretStr
from sqlalchemy import text

from vibesearch.app import ListedLogin, SharedLogins, cookie_id, shared_logins
from vibesearch.config import Settings
from vibesearch.store import Store, login_digest, upgrade_database

USERS = {"ann": "pw-ann", "bob": "pw-bob", "eve": "pw-eve"}  # eve is only guessed at (locked)
SECRET = "the-lab-shares-this"
TASK = "daily-en-japan-heritage-trip"
COOKIE = f"access-token-unsecure-{cookie_id(SECRET)}"  # the cookie a plain-http client sends back


@pytest.fixture(scope="module")
def lab(pg_cluster, tmp_path_factory):
    url = pg_cluster.new_database()
    upgrade_database(url)
    env = {"VIBESEARCH_DB": url, "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()), "VIBESEARCH_SECRET_KEY": SECRET}
    started: list[AppServer] = []
    try:
        for name in ("a", "b"):
            started.append(start_app(tmp_path_factory.mktemp(f"logins-{name}"), extra_env=env))
        yield url, started[0], started[1]
    finally:
        for server in started:
            stop_app(server)


def http() -> httpx.Client:
    return httpx.Client(timeout=30, trust_env=False)


def log_in(server: AppServer, user: str) -> str:
    """POST /login as Gradio's login page does; the login token from the cookie it sets."""
    with http() as h:
        got = h.post(server.url + "login", data={"username": user, "password": USERS[user]})
        assert got.status_code == 200 and got.json() == {"success": True}, got.text
        names = {c.name for c in h.cookies.jar}
        assert names == {COOKIE, f"access-token-{cookie_id(SECRET)}"}, names  # the same name on every server
        return h.cookies[COOKIE]


def user_on(server: AppServer, token: str | None) -> str | None:
    with http() as h:
        cookies = {COOKIE: token} if token is not None else {}
        return h.get(server.url + "gradio_api/user", cookies=cookies).json()


def login_rows(url: str) -> list[tuple]:
    store = Store(url)
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT token_sha256, username, created_at, expires_at FROM logins"))]


def test_a_login_on_a_is_known_to_b_until_a_logout_on_either(lab):
    url, a, b = lab
    token = log_in(a, "ann")
    assert user_on(a, token) == "ann" and user_on(b, token) == "ann"
    with http() as h:  # B serves its page config to A's cookie, and not without it
        assert h.get(b.url + "config", cookies={COOKIE: token}).status_code == 200
        assert h.get(b.url + "config").status_code == 401
        assert h.get(b.url + "gradio_api/login_check", cookies={COOKIE: token}).status_code == 200
    # an API call on B with A's cookie runs as ann: the run she starts there is hers
    api = Client(b.url, headers={"Cookie": f"{COOKIE}={token}"}, verbose=False)
    try:
        rid = api.predict(TASK, "baseline", "human", api_name="/start_run")
        assert Store(url).get_run(rid).owner == "user:ann"
        assert api.predict(rid, api_name="/stop_run") in ("stopping", "stopped")
    finally:
        api.close()
    # the database holds the token's sha256, never the token
    rows = login_rows(url)
    assert (login_digest(token), "ann") in [(d, u) for d, u, _, _ in rows]
    assert login_digest(token) == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(rows)

    # ann logged in on B too; a logout on B ends both of her logins, on both servers; bob's stays
    second, bobs = log_in(b, "ann"), log_in(b, "bob")
    assert user_on(a, second) == "ann"
    with http() as h:
        out = h.post(b.url + "logout", cookies={COOKIE: second}, headers={"Origin": b.url.rstrip("/")}, follow_redirects=False)
        assert out.status_code == 303
    for server in (a, b):
        assert user_on(server, token) is None and user_on(server, second) is None
        assert user_on(server, bobs) == "bob"
    assert [u for _, u, _, _ in login_rows(url)] == ["bob"]
    with http() as h:  # and the logged-out cookie no longer opens B
        assert h.get(b.url + "config", cookies={COOKIE: token}).status_code == 401


def test_wrong_passwords_on_a_lock_the_login_on_b(lab):
    _, a, b = lab
    with http() as h:
        codes = [h.post(a.url + "login", data={"username": "eve", "password": f"guess-{i}"}).status_code for i in range(8)]
        assert codes[:5] == [400] * 5 and 429 in codes, codes
        on_b = h.post(b.url + "login", data={"username": "eve", "password": USERS["eve"]})
        assert on_b.status_code == 429 and "Too many failed logins" in on_b.json()["detail"]


def test_a_made_up_or_digest_cookie_is_refused(lab):
    url, a, b = lab
    token = log_in(a, "bob")
    for server in (a, b):
        assert user_on(server, None) is None
        assert user_on(server, secrets.token_urlsafe(16)) is None
        assert user_on(server, login_digest(token)) is None  # what the database holds logs no one in
        assert user_on(server, f"sha256:{login_digest(token)}") is None
    with http() as h:  # a token under another name (another deployment's cookie) is not read
        got = h.get(b.url + "gradio_api/user", cookies={"access-token-unsecure-" + cookie_id("another-secret"): token})
        assert got.json() is None


def test_the_mapping_gradio_uses(tmp_path):
    store = Store(tmp_path / "m.db")
    tokens = SharedLogins(store, 3600, cookie_id(SECRET), ["ann", "bob"])
    t1, t2, t3 = (secrets.token_urlsafe(16) for _ in range(3))
    tokens[t1], tokens[t2], tokens[t3] = "ann", "ann", "bob"
    assert tokens.get(t1) == "ann" and tokens.get(None) is None and tokens.get("nope") is None  # type: ignore[call-overload]  # Gradio passes None: no cookie
    assert t1 in tokens and None not in tokens and len(tokens) == 3
    keys = list(tokens.keys())
    assert all(isinstance(k, ListedLogin) for k in keys) and not any(t in "".join(keys) for t in (t1, t2, t3))
    # Gradio's logout of every session of a person: iterate, compare, delete
    for key in keys:
        if tokens[key] == "ann":
            del tokens[key]
    assert tokens.get(t1) is None and tokens.get(t2) is None and tokens.get(t3) == "bob"
    assert tokens.get(str(keys[0])) is None  # a digest key as a plain string is a token, and no login
    del tokens[t3]
    del tokens[t3]  # already gone (another server ended it): no error
    assert len(tokens) == 0 and t1 not in repr(tokens)
    # a login of a name no longer among VIBESEARCH_AUTH's (still in the database) counts for nothing
    tokens[t1] = "cy"
    assert store.login_user(t1) == "cy" and tokens.get(t1) is None
    # only with a login and a shared secret
    keyed, unkeyed = Settings(secret_key=SecretStr(SECRET)), Settings(secret_key=None)
    shared = shared_logins(keyed, store, ["ann"])
    assert shared is not None and shared.users == {"ann"} and shared.cookie_id == cookie_id(SECRET)
    assert shared_logins(unkeyed, store, ["ann"]) is None and shared_logins(keyed, store, []) is None
    assert cookie_id(SECRET) == cookie_id(SECRET) != cookie_id("another-secret") and SECRET not in cookie_id(SECRET)


def test_a_study_players_login_counts_while_its_play_is_stored(tmp_path):
    from vibesearch.store.tables import StudyRow

    store = Store(tmp_path / "p.db")
    tokens = SharedLogins(store, 3600, cookie_id(SECRET), ["ann"])
    store.add_study(StudyRow(id="0a0b0c0d", name="s", config_json='{"tasks": ["t"]}', created_at=1.0), [("code-abcdefgh", 0, "t")])
    play = store.claim_study_code("0a0b0c0d", "code-abcdefgh", "study:0a0b0c0d:")
    assert play is not None and play.player == "study:0a0b0c0d:0"
    assert store.claim_study_code("0a0b0c0d", "code-abcdefgh", "study:0a0b0c0d:") is None  # a code works once
    t1, t2 = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    tokens[t1], tokens[t2] = "study:0a0b0c0d:0", "study:0a0b0c0d:1"  # the second names no stored play
    assert tokens.get(t1) == "study:0a0b0c0d:0" and tokens.get(t2) is None
