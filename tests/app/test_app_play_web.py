"""The Play tab's web choice (docs/web.md "The app"): a run recorded on a local SearXNG-style API
through the real app (``python app.py``), then a run of the same task with the web replayed —
answered from the recording, the search server asked nothing; a replay of a task with nothing
recorded is refused in one line; a web choice the form does not offer (a selection of runs, a
path) is refused by the server.

Every server is this test's own on 127.0.0.1; the agent is the app tests' scripted ``fake/app-agent``
(it searches each user message)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from app_harness import start_app, stop_app

from vibesearch.app import RunRequest, check_request, form_request
from vibesearch.config import Settings
from vibesearch.protocol import build_config
from raw_gradio import RawSession
from local_web import Server
from sec_kit import play_start, runs_in, wait_for

JAPAN = "daily-en-japan-heritage-trip"
OTHER = "pro-en-analysis-history"


HITS = json.dumps({"results": [
    {"title": "Himeji Castle", "url": "http://127.0.0.1:9/himeji", "content": "A white castle in Hyogo, a World Heritage site."},
    {"title": "Nara temples", "url": "http://127.0.0.1:9/nara", "content": "Todai-ji and its great Buddha."},
]}).encode()


def searx_server() -> Server:
    """A SearXNG-style JSON search API on 127.0.0.1 that counts what it is asked (``seen``)."""
    return Server({"/search": lambda r: (200, {"Content-Type": "application/json"}, HITS)})


def _web_events(db: Path, run_id: str) -> list[dict]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [json.loads(r[0]) for r in con.execute("SELECT data_json FROM events WHERE run_id = ? AND kind = 'web' ORDER BY id", (run_id,))]
    finally:
        con.close()


def _config(db: Path, run_id: str) -> dict:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return json.loads(con.execute("SELECT run_config_json FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
    finally:
        con.close()


def _finished(db: Path, before: int) -> str:
    rows = runs_in(db)
    assert len(rows) == before + 1, rows
    return wait_for(lambda: runs_in(db)[-1][0] if runs_in(db)[-1][2] != "running" else None, 60, "the run to end")


def _start_when_free(s: RawSession, **form):
    """Start a run once the tab has let go of the last one (its row can say "finished" a moment
    before the tab's stream ends and frees it: the app answers "still going in this tab" till then)."""
    def attempt():
        result = play_start(s, **form)
        return None if not result.ok and "still going in this tab" in (result.error or "") else result

    return wait_for(attempt, 60, "the tab to let go of its last run")


def test_play_records_then_replays_the_web_and_refuses_what_it_does_not_offer(tmp_path):
    searx = searx_server()
    server = start_app(tmp_path, extra_env={"VIBESEARCH_SEARXNG_URL": searx.base, "VIBESEARCH_WEB_ALLOW_PRIVATE": "1"})
    s = RawSession(server.url)
    form = dict(task=JAPAN, agent="react", user="rules", agent_model="fake/app-agent", backend="searxng", pace=0, turns=3)
    try:
        nothing = play_start(s, **form, web="replay")
        assert not nothing.ok and nothing.error is not None
        assert nothing.error.strip() == (f"web replay: nothing is recorded for the runs of task {JAPAN} "
                                         "(record a run with a web backend first)"), nothing.error
        assert not server.db.exists() or runs_in(server.db) == []  # refused before any run row

        assert play_start(s, **form, web="record").ok
        recorded = _finished(server.db, 0)
        asked = len(searx.seen)
        assert asked >= 1
        rec = _web_events(server.db, recorded)
        assert rec and {e["op"] for e in rec} == {"search"} and all(e.get("replayed") is None for e in rec), rec
        assert _config(server.db, recorded)["search"]["web"] == "record"

        assert _start_when_free(s, **form, web="replay").ok
        replayed = _finished(server.db, 1)
        assert len(searx.seen) == asked  # the replay asked the search server nothing
        assert _config(server.db, replayed)["search"]["web"] == "replay"
        rep = _web_events(server.db, replayed)
        assert rep and all(e["replayed"] in ("exact", "fallback", "missing") for e in rep), rep
        first = next(e for e in rep if e["replayed"] == "exact")  # the same first user message: the same query
        assert first["hits"] == rec[0]["hits"]

        other = _start_when_free(s, **{**form, "task": OTHER}, web="replay")
        assert not other.ok and "nothing is recorded for the runs of task " + OTHER in (other.error or "")
        for forged in (f"replay:{recorded}", "replay:/etc/passwd", "../app.db"):
            refused = play_start(s, **form, web=forged)
            assert not refused.ok and "not in the list of choices" in (refused.error or ""), (forged, refused.error)
        assert len(runs_in(server.db)) == 2
    finally:
        s.close()
        stop_app(server)
        searx.stop()


@pytest.mark.parametrize("web", ["replay:abc123", "replay:/etc/passwd", "../app.db", "REPLAY", 3])
def test_the_server_takes_no_web_choice_the_form_does_not_offer(web):
    """What Gradio's choice check lets through (the API, a changed page) meets the server's own."""
    with pytest.raises(ValueError, match="unknown web choice"):
        form_request(Settings(), task_id=JAPAN, web=web)
    assert form_request(Settings(), task_id=JAPAN, search_backend="searxng", web="live").config.search.web == "live"
    assert form_request(Settings(), task_id=JAPAN, search_backend="searxng").config.search.web == "record"


def test_a_replay_with_the_corpus_reading_baseline_is_refused():
    """The baseline reads the corpus whatever the web choice: a "replay" would run on the corpus."""
    with pytest.raises(ValueError, match="the baseline agent reads the task's offline corpus, never a web"):
        form_request(Settings(), task_id=JAPAN, agent="baseline", web="replay")


def test_a_request_naming_a_selection_of_runs_is_refused():
    config = build_config(Settings(), task_id=JAPAN, web="replay", web_from="someone-elses-run")
    with pytest.raises(ValueError, match="takes no selection of runs"):
        check_request(RunRequest(config), Settings())
