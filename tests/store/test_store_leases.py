"""Run leases in the store: atomic claims across processes, renewal, release, and the event
writer's check that only the lease holder writes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from vibesearch.store import LeaseHeld, LeaseLost, Store
from vibesearch.run import MessageEvent
from vibesearch.store.leases import claim, holder, new_owner, release, renew, run_key


@pytest.fixture
def store(db_url: str) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (``db_url`` in tests/conftest.py)."""
    return Store(db_url)


def test_claim_renew_release(store: Store):
    a, b = new_owner(), new_owner()
    assert claim(store, "run:x", a, 30) is None
    assert claim(store, "run:x", a, 30) is None  # the holder may claim again
    held = claim(store, "run:x", b, 30)
    assert held is not None and held.owner == a and 25 < held.expires_in() <= 30
    assert renew(store, "run:x", a, 30) and not renew(store, "run:x", b, 30)
    release(store, "run:x", b)  # not b's: nothing happens
    assert holder(store, "run:x").owner == a
    release(store, "run:x", a)
    assert holder(store, "run:x") is None
    assert claim(store, "run:x", b, 30) is None


def test_an_expired_lease_can_be_taken_over_and_the_old_owner_cannot_renew(store: Store):
    old, new = new_owner(), new_owner()
    assert claim(store, "run:y", old, 0.2) is None
    assert claim(store, "run:y", new, 30) is not None
    deadline = time.monotonic() + 10
    while holder(store, "run:y") is not None:  # live until it expires
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert claim(store, "run:y", new, 30) is None
    assert not renew(store, "run:y", old, 30)
    assert holder(store, "run:y").owner == new


def test_appends_check_the_lease_in_the_same_statement(store: Store):
    run = store.create_run("t")
    me, other = new_owner(), new_owner()
    store.append(run.id, MessageEvent(role="user", content="no lease yet"))
    assert claim(store, run_key(run.id), me, 30) is None
    store.append(run.id, MessageEvent(role="user", content="mine"), lease=me)
    with pytest.raises(LeaseLost, match=f"run {run.id} was taken over"):
        store.append(run.id, MessageEvent(role="user", content="stale driver"), lease=other)
    with pytest.raises(LeaseHeld, match=rf"run {run.id} is being driven by another process \(pid \d+, host .+\); its lease expires in \d+ s"):
        store.append(run.id, MessageEvent(role="user", content="a writer without a lease"))
    # a group is all or nothing: the refused write leaves no part of it
    with pytest.raises(LeaseLost):
        store.append_many(run.id, [MessageEvent(role="user", content="a"), MessageEvent(role="user", content="b")], lease=other)
    assert [e.data.content for e in store.events(run.id)] == ["no lease yet", "mine"]
    stored = store.append_many(run.id, [MessageEvent(role="user", content="c"), MessageEvent(role="user", content="d")], lease=me)
    assert [e.seq for e in stored] == [3, 4]
    release(store, run_key(run.id), me)
    store.append(run.id, MessageEvent(role="user", content="free again"))
    assert len(store.events(run.id)) == 5


def test_a_driver_that_lost_the_lease_cannot_change_the_runs_row(store: Store):
    """The run's status is as guarded as its events: a stale driver cannot mark it finished."""
    run = store.create_run("t", status="running")
    me, other = new_owner(), new_owner()
    assert claim(store, run_key(run.id), me, 30) is None
    store.update_run(run.id, status="running", termination=None, lease=me)
    assert store.get_run(run.id).status == "running"
    with pytest.raises(LeaseLost, match=f"run {run.id} was taken over"):
        store.update_run(run.id, status="finished", termination="done", lease=other)
    assert (store.get_run(run.id).status, store.get_run(run.id).termination) == ("running", None)
    release(store, run_key(run.id), me)
    with pytest.raises(LeaseLost):  # released: nobody holds it, so no owner may claim to
        store.update_run(run.id, status="finished", lease=me)
    store.update_run(run.id, status="finished")  # no lease asked: as before
    assert store.get_run(run.id).status == "finished"


def test_a_database_from_before_leases_opens_and_gets_the_table(tmp_path):
    path = tmp_path / "old.db"
    run = Store(path).create_run("t")
    con = sqlite3.connect(path)
    con.execute("DROP TABLE leases")
    con.execute("DROP TABLE alembic_version")  # a file from before migrations (and before leases)
    con.commit()
    con.close()
    store = Store(path)  # a new Store object on the file: what a newer vibesearch does
    store.append(run.id, MessageEvent(role="user", content="hello"))
    assert claim(store, run_key(run.id), new_owner(), 30) is None
    assert store.schema_version() == 1


_RACER = textwrap.dedent(
    """
    import os, sys, time
    from vibesearch.store import Store
    from vibesearch.store.leases import claim, new_owner
    store = Store(sys.argv[1])
    owner = new_owner()
    print("ready", flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.001)
    print("won" if claim(store, "run:race", owner, 60) is None else "lost", flush=True)
    """
)


@pytest.mark.slow
def test_one_of_six_processes_claiming_at_once_wins(db_url, tmp_path):
    db, go = db_url, tmp_path / "go"
    Store(db)
    procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(db), str(go)], stdout=subprocess.PIPE, text=True) for _ in range(6)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        go.touch()
        answers = [p.stdout.readline().strip() for p in procs]
    finally:
        for p in procs:
            p.wait(timeout=60)
    assert sorted(answers) == ["lost"] * 5 + ["won"]


_OPENER = textwrap.dedent(
    """
    import os, sys, time
    print("ready", flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.001)
    from vibesearch.store import Store
    Store(sys.argv[1])
    print("opened", flush=True)
    """
)


@pytest.mark.slow
def test_processes_opening_one_new_database_at_once_all_succeed(tmp_path):
    db, go = tmp_path / "new.db", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(db), str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        go.touch()
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [o.strip() for o, _ in outs] == ["opened"] * 6, [e for _, e in outs if e]
