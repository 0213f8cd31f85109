"""With a login on and ``VIBESEARCH_READ_RUNS=own``, a person reads only their own runs — in the
API (``run_events``, ``run_status``) and in the Runs and Label tabs; an admin reads every run.
Driven through the running app's HTTP/queue API, as in ``test_security``."""

from __future__ import annotations

import pytest
from app_harness import start_app, stop_app
from gradio_client import Client
from raw_gradio import RawSession
from sec_kit import runs_open, runs_refresh, wait_for

USERS = {"alice": "pw-a", "bob": "pw-b", "carol": "pw-c"}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {"VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()), "VIBESEARCH_ADMINS": "carol", "VIBESEARCH_READ_RUNS": "own"}
    server = start_app(tmp_path_factory.mktemp("readapp"), extra_env=env)
    yield server
    stop_app(server)


@pytest.fixture(scope="module")
def alices_run(app):
    api = Client(app.url, auth=("alice", USERS["alice"]), verbose=False)
    run_id = api.predict("pro-en-analysis-history", "baseline", "rules", "", "", "", "offline", 2, api_name="/start_run")
    wait_for(lambda: not api.predict(run_id, api_name="/run_status")["live"], 90, "alice's run to finish")
    return run_id


def _table_ids(result) -> set[str]:
    table = result.data[0]
    rows = table.get("data", []) if isinstance(table, dict) else table
    return {row[0] for row in rows}


def test_others_cannot_read_a_run_through_the_api(app, alices_run):
    bob = Client(app.url, auth=("bob", USERS["bob"]), verbose=False)
    carol = Client(app.url, auth=("carol", USERS["carol"]), verbose=False)
    alice = Client(app.url, auth=("alice", USERS["alice"]), verbose=False)
    for call in ((alices_run, "/run_status"), (alices_run, 0, "/run_events")):
        *args, name = call
        with pytest.raises(Exception, match="no run with id"):
            bob.predict(*args, api_name=name)
        assert alice.predict(*args, api_name=name)
        assert carol.predict(*args, api_name=name)  # an admin reads everything
    # not found and not yours look the same
    with pytest.raises(Exception, match="no run with id"):
        bob.predict("000000000000", api_name="/run_status")


def test_stop_continue_and_submit_answer_anothers_run_as_no_run(app, alices_run):
    bob = Client(app.url, auth=("bob", USERS["bob"]), verbose=False)
    calls = {"/stop_run": (), "/continue_run": (), "/submit_turn": ("hello", "push")}
    for name, rest in calls.items():
        answers = []
        for run_id in (alices_run, "000000000000"):
            with pytest.raises(Exception) as caught:
                bob.predict(run_id, *rest, api_name=name)
            answers.append(str(caught.value).replace(run_id, "<id>"))
        assert answers[0] == answers[1] and "no run with id" in answers[0], (name, answers)


def test_others_cannot_read_a_run_in_the_tabs(app, alices_run):
    bob, alice = RawSession(app.url, "bob", USERS["bob"]), RawSession(app.url, "alice", USERS["alice"])
    # the page's initial runs table (the same for everyone) lists nobody's runs
    initial = bob.component(elem_id="vs-runs-table")["props"].get("value") or {}
    assert not (initial.get("data") if isinstance(initial, dict) else initial)
    assert alices_run not in _table_ids(runs_refresh(bob))
    assert alices_run in _table_ids(runs_refresh(alice))
    header = runs_open(bob, alices_run).data[1]
    assert "No run" in str(header)
    assert "No run" not in str(runs_open(alice, alices_run).data[1])
    # the Label tab lists only your own runs, and will not load another's
    reload_btn = next(c for c in bob.config["components"] if c["type"] == "button" and c["props"].get("value") == "Refresh run list")
    fn, _ = bob.dependency(reload_btn["id"], "click")
    choices = bob.call(fn, []).data[0]["choices"]
    assert alices_run not in str(choices)
    assert alices_run in str(alice.call(fn, []).data[0]["choices"])
    load_btn = bob.component(elem_id="vs-label-load")
    fn, _ = bob.dependency(load_btn["id"], "click")
    res = bob.call(fn, [None, alices_run, "coverage", "bob", False])  # None: the tab's view (gr.State)
    assert not res.ok and ("no run with id" in res.error or "not in the list of choices" in res.error), res


def test_with_a_login_the_label_tab_labels_as_the_login(app, alices_run):
    """Showing the Label tab fills the run list (read policy applied) and locks the annotator name
    to the login; a name typed anyway is ignored — the view is loaded under the login."""
    alice, bob = RawSession(app.url, "alice", USERS["alice"]), RawSession(app.url, "bob", USERS["bob"])
    shown = []
    for s in (alice, bob):
        fn, _ = s.dependency(s.component(elem_id="vs-label-panel")["id"], "select")
        res = s.call(fn, [])
        assert res.ok, res
        shown.append(res.data)
    (a_runs, a_name, *_), (b_runs, b_name, *_) = shown  # then the campaign list and what else the tab fills
    assert alices_run in str(a_runs["choices"]) and alices_run not in str(b_runs["choices"])
    assert a_name["value"] == "alice" and a_name["interactive"] is False
    assert b_name["value"] == "bob" and b_name["interactive"] is False
    fn, _ = alice.dependency(alice.component(elem_id="vs-label-load")["id"], "click")
    res = alice.call(fn, [None, alices_run, "coverage", "mallory", False])
    assert res.ok, res
    assert "labelled by **alice**" in str(res.data) and "mallory" not in str(res.data)


def test_the_leaderboard_counts_only_runs_you_may_read(app, alices_run):
    """Aggregates and the precision/recall points (whose hover names runs) follow the read policy."""

    def leaderboard(s: RawSession) -> tuple[str, str]:
        fn, _ = s.dependency(s.component(elem_id="vs-lb-refresh")["id"], "click")
        res = s.call(fn, [None, "(judge with most scores)"])
        assert res.ok, res
        return str(res.data[1]), str(res.data)

    bob_summary, bob_all = leaderboard(RawSession(app.url, "bob", USERS["bob"]))
    alice_summary, alice_all = leaderboard(RawSession(app.url, "alice", USERS["alice"]))
    carol_summary, carol_all = leaderboard(RawSession(app.url, "carol", USERS["carol"]))
    assert "Your runs only" in bob_summary and "0 finished or scored persona runs" in bob_summary
    assert alices_run not in bob_all
    assert "Your runs only" in alice_summary and "0 finished" not in alice_summary
    assert "0 finished" not in carol_summary  # an admin reads every run


def test_the_replay_list_offers_only_runs_you_may_read(app, alices_run):
    def offered(s: RawSession) -> str:
        fn, _ = s.dependency(s.component(elem_id="vs-replay-box")["id"], "expand")
        res = s.call(fn, [None])
        assert res.ok, res
        return str(res.data)

    assert alices_run in offered(RawSession(app.url, "alice", USERS["alice"]))
    assert alices_run not in offered(RawSession(app.url, "bob", USERS["bob"]))
    assert alices_run in offered(RawSession(app.url, "carol", USERS["carol"]))  # an admin
