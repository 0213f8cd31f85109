"""A run is driven by one process at a time: concurrent resumers, `run --resume` beside a live
batch, a dead driver's run taken over once its lease expired, and a driver that lost its lease."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import time

import pytest
from sqlmodel import select

from _procs import LEASE_LINE, cli, env, read_events_until, wait_for
from _parts import parts
from _normalised import normalised
from test_resume import copy_prefix
from vibesearch.session import run_session
from vibesearch.runner import resume_run
from vibesearch.store import LeaseLost, Store
from vibesearch.store.leases import claim, holder, new_owner, release, run_key
from vibesearch.store.tables import GraphRow

REACT = ["--agent", "react", "--model", "fake/agent", "--user", "simulator", "--simulator-model", "fake/sim"]


def kinds(store: Store, run_id: str) -> list[str]:
    return [e.kind for e in store.events(run_id)]


def graphs(store: Store, run_id: str) -> int:
    with store.session() as ses:
        return len(ses.exec(select(GraphRow.id).where(GraphRow.run_id == run_id)).all())


@pytest.mark.slow
async def test_three_resumers_at_once_one_drives_the_others_are_refused(fakes, persona_tasks, settings, tmp_path):
    task = persona_tasks[0]
    db = settings.db  # the test's database on either engine: the CLIs get its path or URL
    store = Store(db)
    s = settings.model_copy(update={"max_user_turns": 3, "simulator_model": "fake/sim"})
    full = await run_session(*parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), store, s)
    rid = copy_prefix(store, full.run_id, 5)  # interrupted in the first agent turn

    # slow models: the one that drives is still at it when the others try
    procs = [
        subprocess.Popen(cli("resume", rid, "--json", "--db", str(db)), env=env(VIBESEARCH_TEST_FAKE_DELAY="0.6"), cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 1, 1], outs
    for p, (out, err) in zip(procs, outs):
        if p.returncode == 0:
            assert json.loads(out)["status"] == "finished"
        else:  # one line, no traceback
            assert re.match(LEASE_LINE, err.strip()), err
            assert len(err.strip().splitlines()) == 1 and not out.strip()
    got = kinds(store, rid)
    assert got.count("end") == 1 and got.count("graph") == 1 and graphs(store, rid) == 1
    assert normalised(store.events(rid)) == normalised(store.events(full.run_id))
    assert holder(store, run_key(rid), live_only=False) is None  # released at the end


@pytest.mark.slow
def test_run_resume_while_the_batch_is_live_is_refused(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "batch.db"
    gate = tmp_path / "go"
    batch = subprocess.Popen(
        cli("run", "--tasks", task.id, *REACT, "--max-user-turns", "3", "--runs", "3", "-k", "1", "--json", "--db", str(db)),
        # every model call waits for the gate: the batch is live (its lease kept by the heartbeat,
        # TTL 5 s) for as long as the second CLI takes, however loaded the machine is
        env=env(VIBESEARCH_TEST_FAKE_HOLD=str(gate), VIBESEARCH_LEASE_TTL_S="5"),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        def started():
            if not db.exists():
                return None
            store = Store(db)
            runs = store.list_runs()
            return runs if runs and store.events(runs[0].id) else None

        runs = wait_for("the batch's first run", started)
        batch_id = runs[0].batch_id
        again = subprocess.run(cli("run", "--resume", "--json", "--db", str(db)), env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
        still_live = batch.poll() is None
        gate.write_text("go")
        out, err = batch.communicate(timeout=300)
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.wait()
    assert still_live, "the batch ended before --resume was tried"
    assert again.returncode == 1 and not again.stdout.strip()
    assert re.match(rf"^error: batch {batch_id} is being run by another process \(pid {batch.pid}, host \S+\); its lease expires in \d+ s$", again.stderr.strip()), again.stderr
    assert batch.returncode == 0, err
    rows = json.loads(out)
    assert [r["status"] for r in rows] == ["finished"] * 3
    store = Store(db)
    runs = store.list_runs()
    assert len(runs) == 3  # nothing started twice
    for run in runs:
        assert kinds(store, run.id).count("end") == 1 and graphs(store, run.id) == 1


@pytest.mark.slow
async def test_run_resume_skips_a_run_another_process_drives(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "skip.db"
    made = subprocess.run(cli("run", "--tasks", task.id, "--max-user-turns", "2", "--runs", "2", "--json", "--db", str(db)),
                          env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    store = Store(db)
    first, second = sorted(store.list_runs(), key=lambda r: r.run_index)
    # the second run was interrupted, and another process (here: this test) drives it now
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM graphs WHERE run_id = ?", (second.id,))
        con.execute("DELETE FROM events WHERE run_id = ? AND seq > 6", (second.id,))
    store.update_run(second.id, status="interrupted", termination=None)
    other = new_owner()
    assert claim(store, run_key(second.id), other, 120) is None

    skipped = subprocess.run(cli("run", "--resume", "--json", "--db", str(db)), env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert skipped.returncode == 1
    rows = {r["run_id"]: r for r in json.loads(skipped.stdout)}
    assert rows[first.id]["status"] == "finished" and rows[second.id]["status"] == "skipped"
    assert f"(run {second.id}): run {second.id} is being driven by another process" in skipped.stderr
    assert len(store.events(second.id)) == 6  # untouched

    release(store, run_key(second.id), other)
    done = subprocess.run(cli("run", "--resume", "--json", "--db", str(db)), env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert kinds(store, second.id).count("end") == 1 and store.get_run(second.id).status == "finished"


@pytest.mark.slow
def test_a_dead_drivers_run_is_taken_over_once_its_lease_expired(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "dead.db"
    ttl = 6.0
    proc = subprocess.Popen(
        cli("run", "--tasks", task.id, *REACT, "--max-user-turns", "3", "--events", "--db", str(db)),
        env=env(VIBESEARCH_TEST_FAKE_DELAY="0.3", VIBESEARCH_LEASE_TTL_S=str(ttl)),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        printed = read_events_until(proc, lambda lines: len(lines) >= 8)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    killed_at = time.time()
    run_id = printed[0]["run_id"]
    store = Store(db)
    lease = holder(store, run_key(run_id))
    assert lease is not None and lease.pid == proc.pid  # the dead process still holds it ...
    if lease.expires_at - time.time() > 1:  # ... and nobody can claim it before it expires
        assert claim(store, run_key(run_id), new_owner(), 30) is not None

    refusals = []

    def taken_over():
        tried = time.time()
        done = subprocess.run(cli("resume", run_id, "--json", "--db", str(db)), env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            assert re.match(LEASE_LINE, done.stderr.strip()), done.stderr
            refusals.append(tried)
            return None
        return json.loads(done.stdout)

    summary = wait_for("a resume to take the dead run over", taken_over, timeout=240, every=0.2)
    assert summary["status"] == "finished"
    assert all(t < lease.expires_at for t in refusals)  # refused only while the dead process' lease lasted
    assert lease.expires_at <= killed_at + ttl  # and that was at most one lease length after it died
    got = kinds(store, run_id)
    assert got.count("end") == 1 and got.count("graph") == 1


async def test_a_driver_that_lost_its_lease_stops_without_writing(fakes, persona_tasks, store, settings, monkeypatch):
    """The driver stalls past its lease (a viewer blocks its loop), another process takes the run
    over: the stalled driver writes nothing more, not even an end, and says why."""
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 3, "lease_ttl_s": 0.5})
    thief = new_owner()
    taken: dict[str, int] = {}

    def stalling_viewer(ev) -> None:
        if ev.seq == 4 and not taken:
            key = run_key(ev.run_id)
            wait_for("the stalled driver's lease to expire", lambda: holder(store, key) is None, timeout=30)
            assert claim(store, key, thief, 60) is None
            taken["at"] = store.last_seq(ev.run_id)

    with pytest.raises(LeaseLost, match="was taken over by another process"):
        await run_session(
            *parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), store, s,
            listeners=[stalling_viewer],
        )
    run = store.list_runs()[0]
    assert store.last_seq(run.id) == taken["at"]  # nothing written after the take-over
    assert "end" not in kinds(store, run.id) and run.status == "running"
    assert holder(store, run_key(run.id)).owner == thief  # the new driver's lease stands

    # the new driver finishes the run
    release(store, run_key(run.id), thief)
    result = await resume_run(store, run.id, s)
    assert result.status == "finished" and kinds(store, run.id).count("end") == 1


@pytest.mark.slow
async def test_a_heartbeat_keeps_a_long_run_its_own(fakes, persona_tasks, store, settings, monkeypatch):
    """A run that lasts many lease lengths keeps its lease: nobody can claim it meanwhile."""
    monkeypatch.setenv("VIBESEARCH_TEST_FAKE_DELAY", "0.5")
    task = persona_tasks[0]
    ttl = 2.0
    s = settings.model_copy(update={"max_user_turns": 3, "lease_ttl_s": ttl})
    tries: list[tuple[float, bool]] = []
    started = time.monotonic()

    def other_process(ev) -> None:
        if ev.kind == "tool_result":  # later and later into the run
            tries.append((time.monotonic() - started, claim(store, run_key(ev.run_id), new_owner(), 30) is not None))

    result = await run_session(
        *parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), store, s,
        listeners=[other_process],
    )
    assert result.status == "finished"
    assert all(refused for _, refused in tries)
    assert max(at for at, _ in tries) > 2 * ttl  # refused long after the first lease would have expired
    assert holder(store, run_key(result.run_id), live_only=False) is None
