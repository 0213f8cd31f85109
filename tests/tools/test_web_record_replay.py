"""The same web again (docs/web.md): a run on a local SearXNG-style search API and local pages is
recorded; with both servers stopped, its replay gets the same tool results byte for byte and the
same score; an unseen query is answered by the BM25 fallback and an unseen URL as not recorded,
both counted; ``corpus freeze`` of the recorded run is a task folder ``tasks validate`` accepts
and an offline run searches; no secret (a key in a URL, keys and cookies in headers) is recorded;
a replay run in a network namespace of its own (bubblewrap) while the servers are up gives the
recorded results and sends them nothing.

Every server is this test's own on 127.0.0.1; the agent is a scripted ``fake/`` model driving the
real react agent through ``vibesearch run``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from local_web import Server
from sqlalchemy import text
from typer.testing import CliRunner

from vibesearch.cli.main import app
from vibesearch.config import reset_settings
from vibesearch.llm import fake as fake_mod
from vibesearch.run import ToolResultEvent, WebEvent
from vibesearch.scoring.scorer import score_run
from vibesearch.scoring.stats import run_stats
from vibesearch.store import Store

from _web_agent import FACTS, QUERY, agent

UNSEEN_QUERY = "arches that survived the flood"
URL_KEY = "s3cr3t-url-value-0042"  # looks like no key to the generic scrubber: the URL rule must catch it
HEADER_KEY = "hdr-secret-token-777"
COOKIE = "sessionid=cookie-secret-555"

BRIDGE = """<!doctype html><html><head><title>The Bridge of Valdoria</title></head><body>
<article><h1>The Bridge of Valdoria</h1>
<p>The stone bridge of Valdoria was completed in 1742 by the mason Aldo Ferri after eleven years of work.</p>
<p>It spans the river Vald with five arches. The central arch is the widest of the region and survived
the flood of 1911 without damage.</p></article></body></html>"""
LATIN1 = """<html><head><title>Caf\u00e9 M\u00fcller</title></head><body><article><h1>Caf\u00e9 M\u00fcller</h1>
<p>The Caf\u00e9 M\u00fcller stands beside the bridge of Valdoria; its owner J\u00fcrgen M\u00fcller bakes bread for the
whole town every morning since the year 1890, a long tradition.</p></article></body></html>""".encode("latin-1")
BIG = ("<html><head><title>The valley almanac</title></head><body><article>"
       + "".join(f"<p>Paragraph {i}: the weather of the valley, the harvest and the market of Valdoria.</p>" for i in range(4000))
       + "</article></body></html>").encode()


def _pages() -> Server:
    html = {"Content-Type": "text/html; charset=utf-8", "Set-Cookie": COOKIE, "X-Api-Key": HEADER_KEY, "ETag": '"v1"'}
    return Server({
        "/bridge": lambda r: (200, html, BRIDGE.encode()),
        "/old-bridge": lambda r: (302, {"Location": "/bridge"}, b""),
        "/cafe": lambda r: (200, {"Content-Type": "text/html; charset=iso-8859-1"}, LATIN1),
        "/almanac": lambda r: (200, {"Content-Type": "text/html; charset=utf-8"}, BIG),
    })


def _searx(pages: Server) -> Server:
    def search(r: dict) -> tuple[int, dict, bytes]:
        results = [
            {"title": "The Bridge of Valdoria", "url": pages.base + "/old-bridge", "content": "Completed in 1742 by Aldo Ferri."},
            {"title": "Café Müller", "url": pages.base + "/cafe", "content": "A café beside the bridge."},
            {"title": "The valley almanac", "url": pages.base + "/almanac", "content": "Weather, harvest, market."},
            {"title": "A page that is gone", "url": pages.base + "/gone", "content": "Gone."},
        ]
        return 200, {"Content-Type": "application/json"}, json.dumps({"query": r["query"]["q"][0], "results": results}).encode()

    return Server({"/search": search})


def _task(folder: Path) -> Path:
    folder.mkdir(parents=True)
    task = {
        "id": "valdoria-web", "subset": "pro", "language": "en",
        "persona": {"background": "A visitor of Valdoria.", "initial_query": "Who built the bridge of Valdoria, and when?",
                    "stages": [{"name": "start", "trigger": {"kind": "start", "condition": "opening"},
                                "line": "Who built the bridge of Valdoria, and when?"}]},
        "graph": [{"head": h, "relation": r, "tail": t} for h, r, t in FACTS.values()],
    }
    (folder / "valdoria.json").write_text(json.dumps(task, ensure_ascii=False), encoding="utf-8")
    return folder


def _run(db: Path, tasks: Path, model: str, *more: str):
    out = CliRunner().invoke(app, ["run", "--tasks", str(tasks), "--agent", "react", "--model", model, "--user", "rules",
                                   "--max-user-turns", "1", "--json", "--db", str(db), *more])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)[0]["run_id"]


def _results(store: Store, run_id: str) -> list[tuple[str, str, bool]]:
    return [(e.data.tool, e.data.content, e.data.error) for e in store.events(run_id) if isinstance(e.data, ToolResultEvent)]


@pytest.fixture
def web_env(monkeypatch, tmp_path):
    pages = _pages()
    searx = _searx(pages)
    monkeypatch.setenv("VIBESEARCH_SEARXNG_URL", searx.base)
    monkeypatch.setenv("VIBESEARCH_WEB_ALLOW_PRIVATE", "true")
    monkeypatch.setenv("VIBESEARCH_VISIT_MAX_BYTES", "200000")
    monkeypatch.setenv("VIBESEARCH_HTTP_TIMEOUT_S", "5")
    reset_settings()
    names = []
    try:
        yield pages, searx, names
    finally:
        for name in names:
            fake_mod.unregister(name)
        for server in (pages, searx):
            try:
                server.stop()
            except OSError:
                pass
        reset_settings()


def test_record_replay_fallback_freeze_and_no_secret(web_env, tmp_path):
    pages, searx, names = web_env
    keyed = pages.base + f"/bridge?api_key={URL_KEY}&lang=en"
    names += ["webrec", "webrec-unseen"]
    model = fake_mod.register("webrec", agent(QUERY, lambda: [pages.base + "/gone", keyed]))
    tasks, db = _task(tmp_path / "tasks"), tmp_path / "web.db"

    recorded = _run(db, tasks, model, "--search", "searxng")  # record is the default of a web backend
    store = Store(db)
    live = _results(store, recorded)
    assert [t for t, _, _ in live] == ["search", "visit"]
    visit = live[1][1]
    assert "Aldo Ferri" in visit and "/old-bridge -> " in visit  # the redirect, followed
    assert "Jürgen Müller" in visit  # the ISO-8859-1 page, read as such
    assert "[only the first 200000 bytes of the page were downloaded]" in visit  # the large page
    assert "HTTP 404" in visit  # the missing page
    web = [e.data for e in store.events(recorded) if isinstance(e.data, WebEvent)]
    assert [w.op for w in web].count("search") == 1 and [w.op for w in web].count("visit") == 5
    assert all(w.call_id and w.replayed is None and w.fetched_at for w in web)
    calls = {e.data.call_id for e in store.events(recorded) if e.kind == "tool_call"}
    assert {w.call_id for w in web} <= calls  # each exchange linked to the tool call that made it
    redirect = next(w for w in web if w.url and w.url.endswith("/old-bridge"))
    assert redirect.final_url == pages.base + "/bridge" and redirect.status == 200 and redirect.headers.get("etag") == '"v1"'
    gone = next(w for w in web if w.url and w.url.endswith("/gone"))
    assert gone.status == 404 and gone.error and "404" in gone.error
    big = next(w for w in web if w.url and w.url.endswith("/almanac"))
    assert big.truncated and big.body_bytes == 200000
    assert run_stats(store, recorded).web_recorded == 6

    # no secret in the recording: the events of kind web and every stored content
    with store.engine.connect() as conn:
        rows = [r[0] for r in conn.execute(text("SELECT data_json FROM events WHERE kind = 'web'"))]
        blobs = [zlib.decompress(r[0]) for r in conn.execute(text("SELECT data FROM web_blobs"))]
    recording = "\n".join(rows) + "\n".join(b.decode("utf-8", "replace") for b in blobs)
    for secret in (URL_KEY, HEADER_KEY, "cookie-secret-555"):
        assert secret not in recording
    assert "api_key=[redacted]&lang=en" in recording

    # the bridge page was fetched twice (redirect, keyed URL): its text and body are stored once
    bodies = [b for b in blobs if b == BRIDGE.encode()]
    assert len(bodies) == 1

    first = score_run(store, recorded)
    pages.stop()
    searx.stop()

    replayed = _run(db, tasks, model, "--search", "searxng", "--web", "replay")
    assert _results(store, replayed) == live  # the same tool results, byte for byte, with no server
    again = score_run(store, replayed)
    assert (again.precision, again.recall, again.f1) == (first.precision, first.recall, first.f1) and first.f1 > 0
    stats = run_stats(store, replayed)
    assert (stats.web_recorded, stats.web_replayed, stats.web_replay_misses) == (0, 6, 0)

    # an unseen query: BM25 over the recorded pages; an unseen URL: not in the recording; both counted
    unseen = fake_mod.register("webrec-unseen", agent(UNSEEN_QUERY, lambda: [pages.base + "/never-fetched"]))
    other = _run(db, tasks, unseen, "--web", f"replay:{recorded}")
    search, visit = _results(store, other)
    assert search[0] == "search" and f"Results for {UNSEEN_QUERY!r}" in search[1] and pages.base + "/bridge" in search[1]
    assert "/never-fetched" in visit[1] and "not available in this recording" in visit[1]
    outcomes = [e.data.replayed for e in store.events(other) if isinstance(e.data, WebEvent)]
    assert outcomes.count("fallback") == 1 and outcomes.count("missing") == 1
    assert run_stats(store, other).web_replay_misses == 2
    report = CliRunner().invoke(app, ["report", "--db", str(db)])
    assert report.exit_code == 0, report.output
    section = report.stdout.split("### The web of the runs", 1)[1]
    row = next(ln for ln in section.splitlines() if ln.startswith(f"| {other} "))
    assert row.replace(" ", "") == f"|{other}|valdoria-web|0|{len(outcomes)}|2|"  # recorded, replayed, misses
    row = next(ln for ln in section.splitlines() if ln.startswith(f"| {recorded} "))
    assert row.replace(" ", "") == f"|{recorded}|valdoria-web|6|0|0|"

    # the recorded pages frozen into the task's offline corpus, validated and searched offline
    out = tmp_path / "frozen"
    frozen = CliRunner().invoke(app, ["corpus", "freeze", str(out), "--task", "valdoria-web", "--runs", recorded, "--db", str(db)])
    assert frozen.exit_code == 0, frozen.output
    lines = [json.loads(x) for x in (out / "corpus" / "valdoria-web.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {x["url"] for x in lines} == {pages.base + "/bridge", pages.base + "/cafe", pages.base + "/almanac",
                                        pages.base + "/bridge?api_key=[redacted]&lang=en"}
    assert all(x["title"] and x["text"] for x in lines)
    checked = CliRunner().invoke(app, ["tasks", "validate", str(out)])
    assert checked.exit_code == 0 and checked.stdout.startswith("OK: 1 task(s)"), checked.output
    offline = _run(tmp_path / "offline.db", out, model)
    search, visit = _results(Store(tmp_path / "offline.db"), offline)
    assert pages.base + "/bridge" in search[1] and not search[2]
    assert "Aldo Ferri" in visit[1] and "Jürgen Müller" in visit[1]


def _no_network() -> list[str]:
    """bubblewrap's command for a network namespace of its own (only a loopback of its own: no
    route to this machine's servers), or a skip where it cannot make one."""
    if shutil.which("bwrap") is None or subprocess.run(["bwrap", "--unshare-net", "--dev-bind", "/", "/", "true"], capture_output=True).returncode:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap cannot make a network namespace here")
        pytest.skip("no network namespace without bubblewrap")
    return ["bwrap", "--unshare-net", "--dev-bind", "/", "/"]


def test_a_replay_opens_no_connection_even_with_the_servers_up(web_env, tmp_path):
    """The replay runs in a network namespace with no route to the servers, which stay up: it
    gives the recorded results, and the servers see no request."""
    pages, searx, names = web_env
    extra = [pages.base + "/gone"]
    names.append("webrec")
    model = fake_mod.register("webrec", agent(QUERY, lambda: extra))
    tasks, db = _task(tmp_path / "tasks"), tmp_path / "web.db"
    recorded = _run(db, tasks, model, "--search", "searxng")
    asked = len(pages.seen) + len(searx.seen)
    assert asked == 1 + 5  # the search, then four results and the missing page

    here = Path(__file__).resolve().parent
    env = {**os.environ, "VIBESEARCH_FAKE_MODELS": "_web_agent:register", "VIBESEARCH_TEST_WEB_EXTRA": ",".join(extra),
           "PYTHONPATH": os.pathsep.join([str(here.parents[1]), str(here)])}
    command = [*_no_network(), sys.executable, "-m", "vibesearch.cli.main", "run", "--tasks", str(tasks), "--agent", "react",
               "--model", model, "--user", "rules", "--max-user-turns", "1", "--search", "searxng", "--web", "replay", "--json",
               "--db", str(db)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    replayed = json.loads(done.stdout)[0]["run_id"]
    store = Store(db)
    assert _results(store, replayed) == _results(store, recorded)
    assert len(pages.seen) + len(searx.seen) == asked
    live = CliRunner().invoke(app, ["run", "--tasks", str(tasks), "--agent", "react", "--model", model, "--user", "rules",
                                    "--max-user-turns", "1", "--search", "searxng", "--web", "live", "--json", "--db", str(db)])
    assert live.exit_code == 0 and len(pages.seen) + len(searx.seen) == 2 * asked  # the same run live does ask them
    assert not [e for e in store.events(json.loads(live.stdout)[0]["run_id"]) if isinstance(e.data, WebEvent)]
