"""A judge that fails is never a score, in the app too (issue 37): the app's judge endpoint is a
port nothing listens on. A run played through the API is scored at its end: no score is stored and
the run's ``score_error`` is the line ``vibesearch score`` prints (after its ``error:``); the Runs
tab's Score button refuses with the same line and stores nothing either."""

from __future__ import annotations

import re
import socket

import pytest
from app_harness import start_app, stop_app
from gradio_client import Client
from raw_gradio import RawSession
from sec_kit import runs_open, runs_score, wait_for

from vibesearch.store import open_db

JUDGE = "openai/judge-x"
USER, PASSWORD = "alice", "pw-a"
SECRET = "sk-app-judge-SECRET-0123456789abcdef"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    port = closed_port()
    env = {"VIBESEARCH_AUTH": f"{USER}:{PASSWORD}", "VIBESEARCH_ADMINS": USER, "VIBESEARCH_API_BASE": f"http://127.0.0.1:{port}/v1",
           "VIBESEARCH_LLM_RETRIES": "1", "VIBESEARCH_LLM_BACKOFF_S": "0.01", "VIBESEARCH_LLM_BACKOFF_MAX_S": "0.02",
           "OPENAI_API_KEY": SECRET}
    server = start_app(tmp_path_factory.mktemp("judgeapp"), extra_env=env)
    server.judge_port = port  # type: ignore[attr-defined]  # (the test reads it back)
    yield server
    stop_app(server)


def test_a_dead_judge_is_one_line_in_the_app_and_nothing_is_stored(app):
    api = Client(app.url, auth=(USER, PASSWORD), verbose=False)
    run_id = api.predict("pro-en-analysis-history", "baseline", "rules", "", "", JUDGE, "offline", 1, api_name="/start_run")
    status = wait_for(lambda: (s := api.predict(run_id, api_name="/run_status")) and not s["live"] and s, 90, "the run to end and be scored")
    line = re.compile(rf"run {run_id}: judge {re.escape(JUDGE)} failed after 2 attempts on (\d+) of \1 batches: APIConnectionError: .*"
                      rf"Cannot connect to host 127\.0\.0\.1:{app.judge_port}\b.*")
    assert status["status"] == "finished" and status["scores"] == []
    assert line.fullmatch(status["score_error"]), status["score_error"]  # the run's end: the CLI's line, nothing stored

    page = RawSession(app.url, USER, PASSWORD)
    assert runs_open(page, run_id).ok
    res = runs_score(page, JUDGE)  # the Runs tab's Score button
    assert not res.ok and res.error is not None
    assert res.error.startswith("Scoring failed: ") and line.fullmatch(res.error.removeprefix("Scoring failed: ")), res.error
    assert SECRET not in res.error + status["score_error"]
    assert open_db(app.db, writes=False).scores(run_id) == []
