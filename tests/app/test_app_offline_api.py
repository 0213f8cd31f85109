"""``python app.py`` on a fresh machine: no key, no network, a new database — it serves the page,
and a default run (offline baseline, rule-based simulator, offline judge) completes. The API is
driven with ``gradio_client`` exactly as a script would.

Every test runs against an app on each engine (``[sqlite]``: its own database file;
``[postgresql]``: a fresh database on the tests' own cluster, ``pg_cluster`` in tests/conftest.py,
brought to the newest schema first as ``vibesearch db upgrade`` would)."""

from __future__ import annotations

import time

import httpx
import pytest
from app_harness import start_app, stop_app
from gradio_client import Client
from raw_gradio import untranslated

from vibesearch.store import upgrade_database


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def offline_app(request, tmp_path_factory):
    # any attempt to reach the internet goes to a dead proxy and would show up in the log
    dead = "http://127.0.0.1:9"
    extra_env = {"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead}
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_cluster").new_database()
        upgrade_database(url)
        extra_env["VIBESEARCH_DB"] = url
    server = start_app(tmp_path_factory.mktemp("offline"), fakes=False, extra_env=extra_env)
    if request.param == "postgresql":  # the app really is on PostgreSQL: the runs land there
        assert not server.db.exists()
    yield server
    stop_app(server)


@pytest.fixture(scope="module")
def client(offline_app):
    api = Client(offline_app.url, verbose=False)
    yield api
    api.close()


def _wait_over(client: Client, run_id: str, timeout: float = 90) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        status = client.predict(run_id, api_name="/run_status")
        if not status["live"]:
            return status
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} did not end within {timeout}s")


def test_the_page_is_served_without_network(offline_app):
    page = httpx.get(offline_app.url, timeout=10)
    assert page.status_code == 200
    config = httpx.get(offline_app.url + "config", timeout=10).json()
    assert config["title"] == "VibeSearch evaluator"
    # labels the browser translates come as Gradio's i18n markers: read them as their key
    labels = {untranslated(c.get("props", {}).get("label")) for c in config["components"]}
    assert {"Task", "User", "Agent"} <= labels
    log = offline_app.logs()
    for sign in ("ConnectError", "Failed to fetch"):  # from its start: the app never tried the network
        assert sign not in log, log[-4000:]
    start_up = offline_app.logs(until=offline_app.ready_at)
    assert "Traceback" not in start_up, start_up[-4000:]


def test_a_default_offline_run_completes_and_is_scored(client, offline_app):
    log_from = offline_app.log_size()  # another test's refused request logs its traceback
    tasks = client.predict(api_name="/list_tasks")
    task = next(t for t in tasks if t["has_corpus"] and t["kind"] == "persona")
    run_id = client.predict(task["id"], api_name="/start_run")  # every other argument left at its default
    status = _wait_over(client, run_id)
    assert status["status"] == "finished", status
    assert (status["agent"], status["user"]) == ("baseline", "rules")
    assert [s["judge"] for s in status["scores"]] == ["offline"]
    assert 0 < status["scores"][0]["f1"] <= 1
    events = client.predict(run_id, 0, api_name="/run_events")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["kind"] == "stage" and events[-1]["kind"] == "end"
    advanced = [e for e in events if e["kind"] == "stage" and e["advanced"]]
    assert len(advanced) >= 2, "the rule-based simulator should have disclosed stages"
    assert any(e["kind"] == "tool_call" and e["tool"] == "search" for e in events)
    log = offline_app.logs(since=log_from)
    assert "Traceback" not in log, log[-4000:]


def test_events_can_be_followed_incrementally(client):
    run_id = client.predict("pro-en-analysis-history", "baseline", "rules", "", "", "", "offline", 3, api_name="/start_run")
    _wait_over(client, run_id)
    everything = client.predict(run_id, 0, api_name="/run_events")
    tail = client.predict(run_id, 5, api_name="/run_events")
    assert tail == everything[5:]
    user_msgs = [e for e in everything if e["kind"] == "message" and e["role"] == "user" and e["phase"] == "dialogue"]
    assert len(user_msgs) == 3  # max_user_turns=3 was honoured
    assert client.predict(run_id, api_name="/run_status")["status"] == "finished"


def test_the_api_chooses_the_protocol_profile(client):
    run_id = client.predict(
        "pro-en-analysis-history", "baseline", "rules", "", "", "", "offline", 2, protocol="official", api_name="/start_run"
    )
    _wait_over(client, run_id)
    events = client.predict(run_id, 0, api_name="/run_events")
    notes = [e.get("text", "") for e in events if e["kind"] == "note"]
    assert any("official protocol" in n for n in notes), notes
    with pytest.raises(Exception, match="paper"):
        client.predict("pro-en-analysis-history", protocol="paper", api_name="/start_run")


def test_bad_requests_get_clear_errors(client):
    with pytest.raises(Exception, match="no-such-task"):
        client.predict("no-such-task", api_name="/start_run")
    with pytest.raises(Exception, match="needs a model"):
        client.predict("pro-en-analysis-history", "react", api_name="/start_run")
    with pytest.raises(Exception, match="no run with id"):
        client.predict("nope", 0, api_name="/run_events")


def test_only_the_owner_can_stop_or_play_a_run(client, offline_app):
    tok1 = client.predict(api_name="/new_owner_token")
    tok2 = client.predict(api_name="/new_owner_token")
    assert tok1 != tok2
    run_id = client.predict("pro-en-analysis-history", "baseline", "human", owner=tok1, api_name="/start_run")
    deadline = time.time() + 30
    while not client.predict(run_id, api_name="/run_status")["waiting_for_person"]:
        assert time.time() < deadline, "the person's turn never came"
        time.sleep(0.3)
    with pytest.raises(Exception, match="another browser session"):
        client.predict(run_id, "hello", "push", tok2, api_name="/submit_turn")
    with pytest.raises(Exception, match="another browser session"):
        client.predict(run_id, tok2, api_name="/stop_run")
    # a made-up owner string is not a token this server issued
    with pytest.raises(Exception, match="new_owner_token"):
        client.predict(run_id, "tok-1", api_name="/stop_run")
    with pytest.raises(Exception, match="needs an owner"):
        client.predict("pro-en-analysis-history", "baseline", "human", api_name="/start_run")
    assert client.predict(run_id, "", "disclose", tok1, api_name="/submit_turn") == "sent"
    # the live run is cancelled at once; whether it has ended by the time the answer is made up
    # is a race (a round trip to PostgreSQL is often long enough for it to end)
    assert client.predict(run_id, tok1, api_name="/stop_run") in ("stopping", "stopped")
    status = _wait_over(client, run_id, timeout=20)
    assert (status["status"], status["termination"]) == ("cancelled", "cancelled")
    events = client.predict(run_id, 0, api_name="/run_events")
    assert [e["kind"] for e in events].count("end") == 1  # ended once, by the server that drove it
    assert any(e["kind"] == "stage" and e["decided_by"] == "human" and e["advanced"] for e in events)
