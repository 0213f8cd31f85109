"""The app's front door (``app/_guard.py``), against the real app with a login on: a page of another
origin — another port of the same host, in Debian's Chromium, with the person's cookie — cannot
start a run; a name pointed at the loopback is not answered; wrong passwords are throttled per
login and per address; the login cookie is SameSite=Lax; logging out ends the plain-http cookie's
login; another login cannot use a person's page session.

The throttle tests log in from their own loopback addresses (127.0.0.2, 127.0.0.3), so the
failures they make lock nothing the other tests use."""

from __future__ import annotations

import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from app_harness import start_app, stop_app
from raw_gradio import RawSession
from sec_kit import play_start, play_upload, runs_in, runs_refresh, wait_for

from vibesearch.app._loading import _owner_dir
from vibesearch.config import BUNDLED_TASKS

USERS = {"alice": "pw-a", "bob": "pw-b", "dora": "pw-d"}
LOCK_S = 0.5  # the first lock; doubling up to LOCK_MAX_S
LOCK_MAX_S = 1.0
QUOTA_MB = 0.05  # 50 kB of uploads per person


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {
        "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()),
        "VIBESEARCH_LOGIN_LOCKOUT_S": str(LOCK_S),
        "VIBESEARCH_LOGIN_LOCKOUT_MAX_S": str(LOCK_MAX_S),
    }
    base = tmp_path_factory.mktemp("front")
    (base / "tmp").mkdir()
    env["TMPDIR"] = str(base / "tmp")  # the app's own temporary folder, looked into below
    env["VIBESEARCH_UPLOAD_DIR"] = str(base / "uploads")
    env["VIBESEARCH_UPLOAD_QUOTA_MB"] = str(QUOTA_MB)
    server = start_app(base, extra_env=env)
    server.tmp = base / "tmp"  # type: ignore[attr-defined]  # for the export test
    yield server
    stop_app(server)


def http(source: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(timeout=30, trust_env=False, transport=httpx.HTTPTransport(local_address=source))


def login(h: httpx.Client, url: str, user: str, password: str) -> int:
    return h.post(url + "login", data={"username": user, "password": password}).status_code


def start_payload(s: RawSession) -> dict:
    """The JSON body the page posts to start a run with its defaults (one user turn)."""
    captured: dict = {}
    real_post = s.http.post

    def keep(url, json=None, **kw):  # noqa: A002 - httpx's name
        if url.endswith("queue/join"):
            captured.update(json)
            return httpx.Response(599, text="kept, not sent")
        return real_post(url, json=json, **kw)

    s.http.post = keep  # type: ignore[method-assign]  # the test's own client: read what would be sent
    try:
        play_start(s, turns=1)
    finally:
        s.http.post = real_post  # type: ignore[method-assign]
    return captured


class AttackerPage:
    """A page on another port of 127.0.0.1 that, opened, posts the start request to the app with
    the visitor's cookies: once by fetch (JSON, after CORS's preflight) and once by a plain form
    (no preflight), and writes what the fetch got into ``#out``."""

    def __init__(self, app_url: str, body: dict):
        page = f"""<!doctype html><html><body><div id="out">pending</div>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="{app_url}gradio_api/queue/join" enctype="text/plain" target="sink">
<input name="{html.escape(json.dumps(body)[:-1] + ', "x": "', quote=True)}" value='"}}'></form>
<script>
fetch({json.dumps(app_url + "gradio_api/queue/join")}, {{method: "POST", credentials: "include",
  headers: {{"Content-Type": "application/json"}}, body: {json.dumps(json.dumps(body))}}})
  .then(r => {{ document.getElementById("out").textContent = "status " + r.status; }})
  .catch(e => {{ document.getElementById("out").textContent = "failed " + e; }})
  .finally(() => document.getElementById("f").submit());
</script></body></html>""".encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_page_on_another_port_cannot_start_a_run_in_chromium(app, browser):
    s = RawSession(app.url, "alice", USERS["alice"])
    body = start_payload(s)
    assert body.get("fn_index") is not None
    before = runs_in(app.db)
    attacker = AttackerPage(app.url, body)
    ctx = browser.new_context()
    try:
        got = ctx.request.post(app.url + "login", form={"username": "alice", "password": USERS["alice"]})
        assert got.status == 200
        page = ctx.new_page()
        page.goto(attacker.url)
        page.wait_for_function("document.getElementById('out').textContent !== 'pending'", timeout=30_000)
        outcome = page.locator("#out").text_content()
        assert outcome in ("status 403", "failed TypeError: Failed to fetch"), outcome
        # both posts reached the app and were refused there (it logs each refusal)
        wait_for(lambda: app.logs(app.ready_at).count("refused a request sent by a page of") >= 2, 30,
                 "the app to refuse the fetch and the form")
    finally:
        ctx.close()
        attacker.close()
    # no run was added (one started by another test may end meanwhile: its status is not compared)
    assert [x[0] for x in runs_in(app.db)] == [x[0] for x in before], "a page of another origin started a run"
    # the same request from the app's own page is accepted: the refusal was the origin's
    s.http.headers["Origin"] = app.url.rstrip("/")
    r = s.http.post(app.url + "gradio_api/queue/join", json={**body, "session_hash": s.session_hash})
    assert r.status_code == 200, r.text
    wait_for(lambda: len(runs_in(app.db)) > len(before), 60, "the app's own page to start a run")


def test_a_foreign_referer_or_null_origin_changes_nothing(app):
    s = RawSession(app.url, "alice", USERS["alice"])
    body = start_payload(s)
    before = runs_in(app.db)
    for headers in ({"Referer": "http://127.0.0.1:1/evil.html"}, {"Origin": "null"}, {"Origin": "http://evil.example"},
                    {"Origin": app.url.rstrip("/").replace("127.0.0.1", "localhost")}):
        r = s.http.post(app.url + "gradio_api/queue/join", json={**body, "session_hash": s.session_hash}, headers=headers)
        assert r.status_code == 403 and "another site" in r.json()["detail"], (headers, r.status_code, r.text)
    # a cross-origin read is refused too (nothing in the answer)
    r = s.http.get(app.url + "config", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "components" not in r.text
    assert [x[0] for x in runs_in(app.db)] == [x[0] for x in before]  # no run added (another test's may end meanwhile)


def test_a_name_pointed_at_the_loopback_is_not_answered(app):
    with http() as h:
        r = h.get(app.url, headers={"Host": "rebound.example:" + app.url.rsplit(":", 1)[1].strip("/")})
        assert r.status_code == 403 and "does not answer to that address" in r.text
        assert "gradio" not in r.text.lower()
        assert h.get(app.url.replace("127.0.0.1", "localhost")).status_code == 200


def test_wrong_passwords_are_throttled_and_the_right_one_waits(app):
    with http("127.0.0.2") as h:
        codes = [login(h, app.url, "bob", f"guess-{i}") for i in range(300)]
        assert set(codes) <= {400, 429}, set(codes)
        # 5 free failures, then each further one locks bob for 0.5 s, 1 s, 1 s ...: 300 guesses
        # in a few seconds get only a handful of answers about the password
        assert 6 <= codes.count(400) <= 6 + 20, codes.count(400)
        assert codes[:5] == [400] * 5 and codes[6] == 429
        locked = h.post(app.url + "login", data={"username": "bob", "password": USERS["bob"]})
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
        assert "Too many failed logins" in locked.json()["detail"]
        # the lock passes: the right password is accepted again, and clears bob's count
        wait_for(lambda: login(h, app.url, "bob", USERS["bob"]) == 200, 15, "bob's lock to pass")
        assert login(h, app.url, "bob", "one-more-wrong") == 400  # counting starts again from 0


def test_an_address_guessing_many_names_is_locked_out(app):
    with http("127.0.0.3") as h:
        codes = [login(h, app.url, f"nobody-{i}", "x") for i in range(60)]
        assert 429 in codes and codes[:20] == [400] * 20, codes[:25]  # 20 free per address
        assert login(h, app.url, "dora", USERS["dora"]) == 429  # the address is locked, whoever it is
    with http("127.0.0.1") as h:
        assert login(h, app.url, "dora", USERS["dora"]) == 200  # dora elsewhere is not


def test_the_login_cookie_is_same_site_lax(app):
    with http() as h:
        r = h.post(app.url + "login", data={"username": "alice", "password": USERS["alice"]})
        cookies = r.headers.get_list("set-cookie")
        assert len(cookies) == 2 and all("samesite=lax" in c.lower() for c in cookies), cookies


def test_logging_out_ends_the_plain_cookie_login(app):
    with http() as h:
        assert login(h, app.url, "alice", USERS["alice"]) == 200
        plain = next(c for c in h.cookies.jar if c.name.startswith("access-token-unsecure-"))
    with httpx.Client(timeout=30, trust_env=False, cookies={plain.name: plain.value}) as only_plain:
        assert only_plain.get(app.url + "gradio_api/user").json() == "alice"
        only_plain.post(app.url + "logout", params={"all_session": "false"}, headers={"Origin": app.url.rstrip("/")})
    with httpx.Client(timeout=30, trust_env=False, cookies={plain.name: plain.value}) as again:
        assert again.get(app.url + "gradio_api/user").json() is None


def test_another_login_cannot_use_a_persons_page_session(app):
    alice = RawSession(app.url, "alice", USERS["alice"])
    assert runs_refresh(alice).ok
    bob = RawSession(app.url, "bob", USERS["bob"])
    bob.session_hash = alice.session_hash  # bob learnt alice's page session id
    res = runs_refresh(bob)
    assert not res.ok and "HTTP 403" in (res.error or "") and "another login" in (res.error or ""), res
    r = bob.http.get(app.url + "gradio_api/queue/data", params={"session_hash": alice.session_hash})
    assert r.status_code == 403
    assert runs_refresh(alice).ok  # alice's page goes on


def test_a_label_export_is_served_to_its_login_only(app):
    alice = RawSession(app.url, "alice", USERS["alice"])
    btn = alice.component(elem_id="vs-label-export-btn")
    fn, dep = alice.dependency(btn["id"], "click")
    # inputs: format, scope, run pick, the view (state), the typed annotator name
    res = alice.call(fn, ["csv", "all", None, None, ""])
    assert res.ok, res
    line, file = res.data
    served = file["path"] if isinstance(file, dict) else file
    assert "Exported" in str(line) and served
    url = file.get("url") if isinstance(file, dict) else None
    url = url or f"{app.url}gradio_api/file={served}"
    assert alice.http.get(url).status_code == 200
    bob = RawSession(app.url, "bob", USERS["bob"])
    refused = bob.http.get(url)
    assert refused.status_code == 404 and "labels" not in refused.text
    # the folder the export was written in is gone (only Gradio's cached copy remains)
    assert not list(app.tmp.glob("vibesearch-labels-*")), list(app.tmp.iterdir())


def test_upload_folders_are_one_per_owner():
    names = [_owner_dir(o) for o in ("login:alice.b", "login:alice_b", "login:alice b", "login:anonymous", None, "token:x")]
    assert len(set(names)) == len(names), names
    assert names[4] == "anonymous" and names[3] != "anonymous"


def test_refused_uploads_leave_nothing_and_a_quota_holds(app):
    dora = RawSession(app.url, "dora", USERS["dora"])
    area = app.db.parent / "uploads"
    cache = app.tmp / "gradio"

    def gradio_copies(name: str) -> list:
        return list(cache.rglob(name)) if cache.exists() else []

    msg, _ = play_upload(dora, {"junk.json": b'{"not": "a task"}'})
    assert "Loaded 0 task(s)" in msg, msg
    assert not list(area.rglob("junk.json")) and not gradio_copies("junk.json")
    persona = json.loads((BUNDLED_TASKS / "daily-zh-traditional-festivals.json").read_text())  # ~12 kB
    persona.pop("corpus", None)  # its corpus is bundled, not uploaded
    kept = 0
    for i in range(6):
        persona["id"] = f"dora-{i}"
        msg, _ = play_upload(dora, {f"p{i}.json": json.dumps(persona).encode()})
        if msg.startswith("Loaded 1 task(s)"):
            kept += 1
        else:
            assert "VIBESEARCH_UPLOAD_QUOTA_MB" in msg and "more than the" in msg, msg
            assert not list(area.rglob(f"p{i}.json")) and not gradio_copies(f"p{i}.json")
            break
    assert 2 <= kept <= 4, kept
    held = sum(f.stat().st_size for f in area.rglob("*") if f.is_file())
    assert held <= QUOTA_MB * 1_000_000
    # the quota is per person: alice may still upload
    alice = RawSession(app.url, "alice", USERS["alice"])
    persona["id"] = "alice-0"
    msg, _ = play_upload(alice, {"a.json": json.dumps(persona).encode()})
    assert msg.startswith("Loaded 1 task(s)"), msg
