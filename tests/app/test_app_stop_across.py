"""Two app servers on one database, in one process (two ``RunManager``s, each with its own
store and runner loop), on SQLite and on PostgreSQL: Stop pressed on the server that does not
drive a run becomes a stop request the driving server carries out; an orphaned run is still
ended on the spot; owner tokens signed with ``VIBESEARCH_SECRET_KEY`` pass on both servers."""

from __future__ import annotations

import time

import pytest
from app_harness import wait_until

from vibesearch.app import Access
from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.live import STOP_POLL_S, NotYourRun, RunManager, form_request
from vibesearch.config import Settings
from vibesearch.runner import close_orphaned
from vibesearch.store import Store
from vibesearch.store.leases import holder, run_key


def _wait(pred, timeout=30.0, what="condition"):
    wait_until(pred, what, timeout)


@pytest.fixture
def servers(db_url: str):
    settings = Settings(db=db_url, llm_backoff_s=0.01, llm_backoff_max_s=0.05, tasks="", max_user_turns=4)
    a, b = RunManager(Store(db_url), settings), RunManager(Store(db_url), settings)
    yield a, b
    a.shutdown()
    b.shutdown()


def test_stop_on_another_server_is_carried_out_by_the_driving_server(servers):
    a, b = servers
    cat = TaskCatalog.load(a.settings)
    task = cat.get(cat.default_id())
    live = a.start(form_request(a.settings, task_id=task.id, user="human"), task, "owner-ann")
    _wait(lambda: live.pending() is not None, what="the person's turn (the run waits, running)")
    assert not b.is_live(live.run_id) and holder(b.store, run_key(live.run_id)) is not None
    with pytest.raises(NotYourRun):
        b.stop_any(live.run_id, "owner-bob")
    assert b.store.stop_request(live.run_id) is None  # refused: nothing written
    asked = time.monotonic()
    message = b.stop_any(live.run_id, "user:root", admin=True)
    assert "the app server that drives it" in message
    assert b.store.stop_request(live.run_id).requested_by == "user:root"
    _wait(lambda: b.store.get_run(live.run_id).status == "cancelled", timeout=STOP_POLL_S + 10, what="the run cancelled by A")
    assert time.monotonic() - asked < 5  # seen at the next poll, not at a lease expiry
    a.wait(live.run_id, timeout=15)
    run = b.store.get_run(live.run_id)
    assert (run.status, run.termination) == ("cancelled", "cancelled")
    ends = [e.data for e in b.store.events(live.run_id, kinds=["end"])]
    assert len(ends) == 1 and ends[0].termination == "cancelled"  # recorded as a local Stop is
    assert not b.store.stop_request(live.run_id).pending
    assert b.store.scores(live.run_id) == []
    with pytest.raises(ValueError, match="already ended"):
        b.stop_any(live.run_id, "owner-ann")


def test_the_owner_stops_from_the_other_server_and_an_orphan_is_ended_there_and_then(servers):
    a, b = servers
    cat = TaskCatalog.load(a.settings)
    task = cat.get(cat.default_id())
    live = a.start(form_request(a.settings, task_id=task.id, user="human"), task, "owner-ann")
    _wait(lambda: live.pending() is not None, what="the person's turn")
    b.stop_any(live.run_id, "owner-ann")
    _wait(lambda: b.store.get_run(live.run_id).status == "cancelled", what="the run cancelled by A")
    # a run left running with no driver: B ends it itself, no request is written
    orphan = b.store.create_run(task.id, status="running", owner="owner-ann", meta={"started_from": "app"})
    assert b.stop_any(orphan.id, "owner-ann") == f"Run {orphan.id} stopped (cancelled)."
    assert b.store.get_run(orphan.id).status == "cancelled" and b.store.stop_request(orphan.id) is None
    assert close_orphaned(b.store, b.settings) == []


def test_owner_tokens_pass_on_every_server_with_the_same_secret_key(tmp_path):
    shared = Settings(secret_key="one value for the whole lab", db=tmp_path / "lab.db")
    a, b = Access(shared), Access(shared)
    token = a.issue()
    assert b.valid(token) and b.who(None, token).owner == a.who(None, token).owner
    assert not Access(Settings(secret_key="another value", db=tmp_path / "lab.db")).valid(token)
    # without a key: the secret kept beside each database (``app/_secret.py``) — the servers of one
    # SQLite file share it, another database's do not, and none takes a keyed server's tokens
    one, other = Settings(db=tmp_path / "one.db"), Settings(db=tmp_path / "other.db")
    assert not Access(one).valid(token) and Access(one).valid(Access(one).issue())
    assert not Access(other).valid(Access(one).issue())
    assert "secret_key" not in shared.snapshot() and "one value" not in repr(shared)
