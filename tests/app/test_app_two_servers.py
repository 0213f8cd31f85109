"""Two real app servers (``python app.py``) on one PostgreSQL database, driven through the API as
a script would: a run started on A is followed from B, stopped from B with the owner token A
issued (both servers share ``VIBESEARCH_SECRET_KEY``), and — A killed mid-run — closed as
interrupted exactly once by the servers that start next, racing each other. Waits are on states
(run status, events, the lease), never fixed sleeps."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from app_harness import AppServer, start_app, stop_app
from gradio_client import Client

from vibesearch.runner.orphans import ORPHAN_NOTE
from vibesearch.store import Store, upgrade_database
from vibesearch.store.leases import holder, run_key

TASK = "daily-en-japan-heritage-trip"
LEASE_TTL_S = 5  # the driver renews every third of it; a dead driver's runs are orphans after it


def wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cluster_db(pg_cluster) -> str:
    url = pg_cluster.new_database()
    upgrade_database(url)
    return url


def _env(url: str) -> dict[str, str]:
    return {"VIBESEARCH_DB": url, "VIBESEARCH_SECRET_KEY": "the-lab-shares-this", "VIBESEARCH_LEASE_TTL_S": str(LEASE_TTL_S)}


@pytest.fixture(scope="module")
def two_servers(cluster_db, tmp_path_factory):
    started: list[AppServer] = []
    try:
        for name in ("a", "b"):
            started.append(start_app(tmp_path_factory.mktemp(f"server-{name}"), extra_env=_env(cluster_db)))
        yield started[0], started[1]
    finally:
        for server in started:
            stop_app(server)


def test_a_run_on_a_is_followed_and_stopped_from_b(two_servers, cluster_db):
    a, b = two_servers
    api_a, api_b = Client(a.url, verbose=False), Client(b.url, verbose=False)
    try:
        token = api_a.predict(api_name="/new_owner_token")
        rid = api_a.predict(TASK, "react", "rules", "fake/app-agent-slow", owner=token, api_name="/start_run")
        # B follows it live from the database: running, driven elsewhere, its events growing
        first = wait_for(lambda: len(api_b.predict(rid, 0, api_name="/run_events")) >= 2 and api_b.predict(rid, 0, api_name="/run_events"), 60, "events on B")
        status = api_b.predict(rid, api_name="/run_status")
        assert (status["status"], status["live"]) == ("running", False)
        wait_for(lambda: len(api_b.predict(rid, 0, api_name="/run_events")) > len(first), 60, "more events on B")
        # a token B issued to someone else may not stop it; the owner's token from A may, on B
        stranger = api_b.predict(api_name="/new_owner_token")
        with pytest.raises(Exception, match="belongs to another"):
            api_b.predict(rid, owner=stranger, api_name="/stop_run")
        assert api_b.predict(rid, owner=token, api_name="/stop_run") == "stopping"
        asked = time.monotonic()
        wait_for(lambda: api_a.predict(rid, api_name="/run_status")["status"] == "cancelled", 30, "A to cancel the run")
        assert time.monotonic() - asked < 10  # a poll away, not a lease expiry
        wait_for(lambda: not api_a.predict(rid, api_name="/run_status")["live"], 30, "A's run to be over")
        events = api_b.predict(rid, 0, api_name="/run_events")
        ends = [e for e in events if e["kind"] == "end"]
        assert len(ends) == 1 and ends[0]["termination"] == "cancelled"
        assert api_b.predict(rid, api_name="/run_status")["termination"] == "cancelled"
        assert "stopped on request from another app server" in a.logs()
    finally:
        api_a.close()
        api_b.close()


def test_a_killed_server_leaves_its_run_interrupted_once(two_servers, cluster_db, tmp_path_factory):
    a, b = two_servers
    store = Store(cluster_db)
    api_a = Client(a.url, verbose=False)
    token = api_a.predict(api_name="/new_owner_token")
    rid = api_a.predict(TASK, "baseline", "human", owner=token, api_name="/start_run")  # waits for its person: running
    wait_for(lambda: api_a.predict(rid, api_name="/run_status")["waiting_for_person"], 60, "the person's turn")
    api_a.close()
    assert holder(store, run_key(rid)) is not None
    os.killpg(a.proc.pid, signal.SIGKILL)  # A dies mid-run: no end event, no release
    a.proc.wait(timeout=30)
    assert store.get_run(rid).status == "running"
    wait_for(lambda: holder(store, run_key(rid)) is None, LEASE_TTL_S + 30, "A's lease to expire")
    # two servers start at once; each closes the runs whose driver is gone as it starts
    with ThreadPoolExecutor(2) as pool:
        jobs = [pool.submit(start_app, tmp_path_factory.mktemp(f"server-{n}"), extra_env=_env(cluster_db)) for n in ("c", "d")]
        servers = [job.result() for job in jobs]
    try:
        run = store.get_run(rid)
        assert (run.status, run.termination) == ("interrupted", None)
        notes = [e for e in store.events(rid, kinds=["note"]) if e.data.text == ORPHAN_NOTE]
        assert len(notes) == 1
        closers = [s for s in servers if f"as interrupted: {rid}" in s.logs()]
        assert len(closers) == 1, [s.logs()[-2000:] for s in servers]
        api_b = Client(b.url, verbose=False)  # and B, still up, reads it as interrupted
        assert api_b.predict(rid, api_name="/run_status")["status"] == "interrupted"
        api_b.close()
    finally:
        for server in servers:
            stop_app(server)
