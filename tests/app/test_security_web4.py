"""Round 4 of the app server's hardening (issue 40), against the real app with a login on:

* a forged ``X-Forwarded-For`` does not make a request another client: wrong study codes and
  wrong passwords sent with a new header each are throttled as one address, and cannot lock the
  address they name; behind ``VIBESEARCH_TRUSTED_PROXIES`` the header of that proxy is honoured;
* logging out is a POST from the app's own page: a GET (a link or image on any page) or a POST
  naming no page ends no login;
* where the database is and where uploads are kept reaches admins only: not a person's or a study
  player's ``/config``, not a person's refused upload.

The throttle tests start an app of their own (they lock 127.0.0.1, the address the others log in from)."""

from __future__ import annotations

import json
import secrets

import httpx
import pytest
from app_harness import start_app, stop_app
from raw_gradio import RawSession
from sec_kit import play_load, play_upload

from vibesearch.app import StudyConfig, create_study
from vibesearch.store import Store

USERS = {"root": "pw-root", "alice": "pw-a", "dora": "pw-d"}
TASK = "daily-en-japan-heritage-trip"
FREE_PER_ADDRESS = 20  # VIBESEARCH_LOGIN_FREE_FAILURES (5) × 4


def _env(base) -> dict[str, str]:
    return {
        "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()),
        "VIBESEARCH_ADMINS": "root",
        "VIBESEARCH_LOGIN_LOCKOUT_S": "30",
        "VIBESEARCH_UPLOAD_DIR": str(base / "uploads-area"),
    }


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    base = tmp_path_factory.mktemp("web4")
    server = start_app(base, extra_env=_env(base))
    server.base = base  # type: ignore[attr-defined]  # the upload area's parent, looked for in messages
    yield server
    stop_app(server)


def http(source: str = "127.0.0.1", **kw) -> httpx.Client:
    return httpx.Client(timeout=30, trust_env=False, transport=httpx.HTTPTransport(local_address=source), **kw)


def a_study(app, consent: str = "") -> tuple[str, list[str]]:
    """A study made in the app's database (as an admin's Study tab makes one): (its id, its codes)."""
    study, links = create_study(Store(app.db), f"Round four {secrets.token_hex(3)}", StudyConfig(tasks=(TASK,), plays=2, consent=consent), "user:root")
    return study.id, [link.code for link in links]


def wrong_codes(h: httpx.Client, app, sid: str, n: int, forwarded) -> list[int]:
    return [h.post(f"{app.url}study/{sid}", data={"code": f"made-up-code-{i:04d}"},
                   headers={"Origin": app.url.rstrip("/"), "X-Forwarded-For": forwarded(i)}).status_code
            for i in range(n)]


# ---------------------------------------------------------------------- item 2: X-Forwarded-For
def test_a_new_forwarded_for_each_time_is_still_one_client_and_locks_no_other(tmp_path):
    """From 127.0.0.1, the peer uvicorn believed by default: the header must change nothing."""
    server = start_app(tmp_path, extra_env=_env(tmp_path))
    try:
        sid, _ = a_study(server)
        with http("127.0.0.1") as h:
            codes = wrong_codes(h, server, sid, 30, lambda i: f"127.0.0.{i + 10}")
            assert codes[:FREE_PER_ADDRESS] == [403] * FREE_PER_ADDRESS and codes[-1] == 429, codes
            # the lock is the address's, whatever the header names next, for codes and passwords
            assert wrong_codes(h, server, sid, 1, lambda i: "198.51.100.7") == [429]
            assert h.post(server.url + "login", data={"username": "dora", "password": USERS["dora"]},
                          headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 429
        for named in ("127.0.0.10", "127.0.0.39"):  # the addresses the headers named were never locked
            with http(named) as h:
                assert h.post(server.url + "login", data={"username": "dora", "password": USERS["dora"]}).status_code == 200
    finally:
        stop_app(server)


def test_trusted_proxies_are_addresses_or_networks(tmp_path):
    from pydantic import ValidationError

    from vibesearch.config import Settings

    assert Settings(db=tmp_path / "x.db").trusted_proxy_list() == []  # the default: no one
    assert Settings(db=tmp_path / "x.db", trusted_proxies=" 10.0.0.0/8, ::1 ,").trusted_proxy_list() == ["10.0.0.0/8", "::1"]
    for bad in ("proxy.local", "*", "10.0.0.300"):
        with pytest.raises(ValidationError, match="not an IP address or network"):
            Settings(db=tmp_path / "x.db", trusted_proxies=bad)


def test_behind_a_trusted_proxy_its_forwarded_for_is_the_client(tmp_path):
    base = tmp_path
    server = start_app(base, extra_env={**_env(base), "VIBESEARCH_TRUSTED_PROXIES": "127.0.0.1"})
    try:
        sid, _ = a_study(server)
        with http("127.0.0.1") as h:  # the proxy: each client its own count
            assert 429 not in wrong_codes(h, server, sid, 30, lambda i: f"203.0.113.{i}")
            one = wrong_codes(h, server, sid, 30, lambda i: "198.51.100.9")  # one client behind it
            assert one[:FREE_PER_ADDRESS] == [403] * FREE_PER_ADDRESS and one[-1] == 429, one
            # that client is locked; another behind the same proxy is not
            assert h.post(server.url + "login", data={"username": "dora", "password": USERS["dora"]},
                          headers={"X-Forwarded-For": "198.51.100.9"}).status_code == 429
            assert h.post(server.url + "login", data={"username": "dora", "password": USERS["dora"]},
                          headers={"X-Forwarded-For": "198.51.100.10"}).status_code == 200
        with http("127.0.0.8") as h:  # a peer that is not the proxy: its header is not believed
            codes = wrong_codes(h, server, sid, 25, lambda i: f"192.0.2.{i}")
            assert codes[-1] == 429, codes
    finally:
        stop_app(server)


# ---------------------------------------------------------------------- item 6: logout
def _logged_in(app, user: str) -> httpx.Client:
    h = http()
    assert h.post(app.url + "login", data={"username": user, "password": USERS[user]}).status_code == 200
    return h


def test_logging_out_takes_a_post_from_the_apps_own_page(app):
    h = _logged_in(app, "alice")
    try:
        origin = app.url.rstrip("/")
        other = origin.rsplit(":", 1)[0] + ":1"  # another port of the same host
        assert h.get(app.url + "logout", follow_redirects=False).status_code == 405  # a link, an <img>
        assert h.post(app.url + "logout", follow_redirects=False).status_code == 403  # no page named
        assert h.post(app.url + "logout", headers={"Origin": other}, follow_redirects=False).status_code == 403
        assert h.get(app.url + "gradio_api/user").json() == "alice"  # none of these logged her out
        out = h.post(app.url + "logout", headers={"Origin": origin}, follow_redirects=False)
        assert out.status_code == 303 and out.headers["location"].rstrip("/") == origin, out.headers
        assert h.get(app.url + "gradio_api/user").json() is None
    finally:
        h.close()


def test_the_page_has_a_log_out_form_that_posts(app):
    s = RawSession(app.url, "alice", USERS["alice"])
    try:
        form = s.component(elem_id="vs-logout")["props"]["value"]
        assert 'method="post"' in form and 'action="logout"' in form
    finally:
        s.close()


# ---------------------------------------------------------------------- item 10: server places
def _db_line(s: RawSession) -> str:
    """What the page's first load puts in the database line, for this login."""
    db_id = s.component(elem_id="vs-db-path")["id"]
    for i, dep in enumerate(s.config["dependencies"]):
        if db_id in dep["outputs"] and any(t[1] == "load" for t in dep.get("targets", [])):
            res = s.call(dep.get("id", i), [])
            assert res.ok, res
            value = res.data[dep["outputs"].index(db_id)]
            return value if isinstance(value, str) else json.dumps(value)
    raise AssertionError("no load fills the database line")


def test_the_database_is_shown_to_admins_only(app):
    where = str(app.db.parent)
    alice = RawSession(app.url, "alice", USERS["alice"])
    root = RawSession(app.url, "root", USERS["root"])
    try:
        for s in (alice, root):
            config = s.http.get(app.url + "config").text
            assert where not in config and "app.db" not in config
        assert where not in _db_line(alice) and "app.db" not in _db_line(alice)
        assert str(app.db) in _db_line(root)
    finally:
        alice.close()
        root.close()


def test_a_study_players_config_names_no_database(app):
    sid, codes = a_study(app)
    with http() as h:
        r = h.post(f"{app.url}study/{sid}", data={"code": codes[0]}, headers={"Origin": app.url.rstrip("/")})
        assert r.status_code == 303, r.text[:200]
        assert str(h.get(app.url + "gradio_api/user").json()).startswith("study:")
        config = h.get(app.url + "config")
        assert config.status_code == 200
        assert str(app.db.parent) not in config.text and "app.db" not in config.text


def test_a_refused_upload_names_no_server_place(app):
    area = str(app.base / "uploads-area")  # type: ignore[attr-defined]
    alice = RawSession(app.url, "alice", USERS["alice"])
    try:
        msg, _ = play_upload(alice, {"broken.json": b'{"id": "x", "persona": 3}'})
        assert "broken.json" in msg and "Loaded 0 task(s)" in msg, msg
        assert area not in msg and "uploads-area" not in msg, msg
        msg, _ = play_load(alice, "/no/such/folder")
        assert "is not inside a folder" in msg and "your uploads" in msg, msg
        assert "uploads-area" not in msg, msg
    finally:
        alice.close()
