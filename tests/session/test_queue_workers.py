"""Queued batches driven by real ``vibesearch worker`` subprocesses on a real PostgreSQL
(``runner.queued``; docs/deploy.md). Models are fakes (``_session_fakes``) or none (the offline
baseline agent with the rules user), so nothing here needs the network.

Each test has a database of its own (made by the one module fixture ``queue_env``) and its own
workers, so the tests pass alone and in any order. Nothing waits on a fixed sleep: the tests poll
the database with a deadline (``_procs.wait_for``).
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime
from pathlib import Path

import pytest
from _normalised import normalised
from _procs import cli, env, wait_for

from vibesearch.config import Settings
from vibesearch.store import Store

pytestmark = pytest.mark.slow

BENCH_SERVER = Path(__file__).resolve().parents[2] / "benchmarks" / "_fake_openai_server.py"
TASKS = ["daily-en-japan-heritage-trip", "daily-zh-traditional-festivals", "pro-en-analysis-history"]
SLOW = ["--agent", "react", "--model", "fake/agent", "--user", "simulator", "--simulator-model", "fake/sim"]
# a dead worker is found within ~2 s and its run's lease expires within 2 s
OUTAGE_S = 10  # how long PostgreSQL stays away in the restart test
FAST_WORKER = ["--heartbeat", "0.3", "--stalled-after", "2", "--poll", "0.2", "--retry-wait", "0"]


class QueueEnv:
    def __init__(self, cluster):
        self.cluster = cluster
        self.procs: list[subprocess.Popen] = []
        self.stores: dict[str, Store] = {}

    def new_db(self) -> str:
        url = self.cluster.new_database()
        done = subprocess.run(cli("db", "upgrade", "--db", url), env=env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "job queue tables (procrastinate) upgraded from nothing" in done.stdout
        return url

    def cmd(self, *args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(cli(*args), env=env(**extra), capture_output=True, text=True, timeout=120)

    def queue(self, db: str, *args: str, **extra: str) -> str:
        done = self.cmd("run", "--queue", "--db", db, "--json", *args, **extra)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["batch_id"]

    def worker(self, db: str, *args: str, delay: str = "0", **more: str) -> subprocess.Popen:
        extra = {"VIBESEARCH_LEASE_TTL_S": "2", "VIBESEARCH_TEST_FAKE_DELAY": delay, **more}
        proc = subprocess.Popen(cli("worker", "--db", db, *FAST_WORKER, *args), env=env(**extra),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def status(self, db: str, batch: str, *, cli: bool = False) -> dict:
        """What ``vibesearch batch status --json`` says; read in this process (the same function)
        unless ``cli``: polling through a new process twice a second cost more CPU than the runs."""
        if cli:
            done = self.cmd("batch", "status", batch, "--db", db, "--json")
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)
        from vibesearch.runner.queued_batches import batch_rows, counts

        if db not in self.stores:
            self.stores[db] = Store(db)
        rows = batch_rows(self.stores[db], batch)
        return {"batch_id": batch, "counts": counts(rows), "runs": [r.to_dict() for r in rows]}

    def stop_workers(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()


@pytest.fixture(scope="module")
def queue_env(pg_cluster):
    qe = QueueEnv(pg_cluster)
    yield qe
    qe.stop_workers()


@pytest.fixture
def qenv(queue_env):
    yield queue_env
    queue_env.stop_workers()


def _store(db: str) -> Store:
    return Store(db)


def _all_done(qe: QueueEnv, db: str, batch: str, total: int, states=("finished",)):
    def check():
        got = qe.status(db, batch)
        return got if sum(got["counts"][s] for s in states) == total else None

    return check


def _check_exactly_once(store: Store, run_ids: list[str]) -> None:
    for run_id in run_ids:
        events = store.events(run_id)
        seqs = [e.seq for e in events]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"run {run_id}: gaps in {seqs}"
        assert [e.kind for e in events].count("end") == 1, run_id
        assert events[-1].kind == "end"


def test_queue_on_sqlite_is_one_clear_line(tmp_path, queue_env):
    done = queue_env.cmd("run", "--queue", "--tasks", TASKS[0], "--db", str(tmp_path / "x.db"))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --queue:") and "PostgreSQL" in lines[0]
    assert not (tmp_path / "x.db").exists()


def test_three_workers_drain_thirty_runs(qenv):
    db = qenv.new_db()
    batch = qenv.queue(db, "--tasks", *TASKS, "--runs", "10")
    first = qenv.status(db, batch, cli=True)
    assert first["counts"]["planned"] == 30 and len(first["runs"]) == 30
    for _ in range(3):  # nobody is killed here: a generous --stalled-after on a busy 2-core machine
        qenv.worker(db, "--slots", "4", "--stalled-after", "20")
    got = wait_for("30 finished runs", _all_done(qenv, db, batch, 30), timeout=120, every=0.5)
    run_ids = [r["run_id"] for r in got["runs"]]
    assert len(set(run_ids)) == 30
    store = _store(db)
    runs = store.list_runs(batch_id=batch)
    assert sorted(r.id for r in runs) == sorted(run_ids)  # no run opened twice
    assert sorted((r.task_id, r.run_index) for r in runs) == sorted((t, i) for t in TASKS for i in range(10))
    assert {r.status for r in runs} == {"finished"}
    _check_exactly_once(store, run_ids)
    assert all(r["attempts"] == 1 for r in got["runs"])  # one try each (procrastinate counts tries ended)


def test_a_worker_settles_before_its_first_run(qenv, tmp_path):
    """``vibesearch worker`` freezes what it made while starting (``vibesearch._gc.settle``)
    before it drives a run: at the run's first model call its start-up is out of the cycle
    collector's sight."""
    db = qenv.new_db()
    note = tmp_path / "frozen.txt"
    batch = qenv.queue(db, "--tasks", TASKS[0], "--runs", "1", "--agent", "react", "--model", "fake/agent-freeze-note", "--max-user-turns", "1")
    qenv.worker(db, "--slots", "1", "--stalled-after", "20", VIBESEARCH_TEST_FREEZE_NOTE=str(note))
    wait_for("the run finished", _all_done(qenv, db, batch, 1), timeout=120, every=0.2)
    counts = [int(line) for line in note.read_text().split()]
    assert counts and counts[0] > 10_000, counts  # without the worker's settle() nothing is frozen


def _registered_workers(db: str) -> int:
    import psycopg

    from vibesearch.runner.queued import conninfo

    with psycopg.connect(conninfo(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()[0])


def test_a_worker_with_many_slots_claims_in_lanes_and_stops_whole(qenv):
    """--slots 30 is two lanes of 15 (two procrastinate workers in one process, claiming side by
    side): the batch is drained once, and SIGTERM stops both lanes (exit 0, nobody registered)."""
    from vibesearch.runner.queued import LANE_SLOTS, lane_slots

    assert lane_slots(30) == [15, 15] and lane_slots(LANE_SLOTS) == [LANE_SLOTS] and lane_slots(51) == [17, 17, 17]
    db = qenv.new_db()
    batch = qenv.queue(db, "--tasks", *TASKS, "--runs", "10")
    proc = qenv.worker(db, "--slots", "30", "--stalled-after", "20")
    wait_for("two lanes registered", lambda: _registered_workers(db) == 2 or None, timeout=60, every=0.2)
    got = wait_for("30 finished runs", _all_done(qenv, db, batch, 30), timeout=120, every=0.5)
    _check_exactly_once(_store(db), [r["run_id"] for r in got["runs"]])
    assert all(r["attempts"] == 1 for r in got["runs"])
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    assert _registered_workers(db) == 0


def test_killed_worker_run_resumes_elsewhere(qenv):
    db = qenv.new_db()
    batch = qenv.queue(db, "--tasks", TASKS[0], "--runs", "2", *SLOW)
    doomed = qenv.worker(db, "--slots", "2", delay="0.05")
    store = _store(db)

    def driving():
        runs = [r for r in store.list_runs(batch_id=batch) if r.status == "running"]
        return runs if len(runs) == 2 and all(len(store.events(r.id)) >= 6 for r in runs) else None

    started = wait_for("both runs under way", driving, timeout=60)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    assert all(store.get_run(r.id).status == "running" for r in started)  # cut off mid-run
    qenv.worker(db, "--slots", "2", delay="0.01")
    got = wait_for("both runs finished", _all_done(qenv, db, batch, 2), timeout=90, every=0.3)
    assert all(r["attempts"] >= 2 for r in got["runs"])  # the stalled jobs were handed back, then finished
    _check_exactly_once(store, [r["run_id"] for r in got["runs"]])
    for r in started:
        kinds = [e.kind for e in store.events(r.id)]
        assert kinds.count("end") == 1 and store.get_run(r.id).status == "finished"
    # the resumed runs hold the events of a run nobody interrupted (ids and times aside)
    again = qenv.queue(db, "--tasks", TASKS[0], "--runs", "1", *SLOW)
    whole = wait_for("the uninterrupted run", _all_done(qenv, db, again, 1), timeout=60, every=0.3)
    want = normalised(store.events(whole["runs"][0]["run_id"]))
    for r in started:
        assert normalised(store.events(r.id)) == want, r.id


def test_workers_outlive_a_database_restart(private_pg_cluster):
    """PostgreSQL goes away for a while in the middle of a batch and comes back: the same workers
    finish every run, each exactly once."""
    qe = QueueEnv(private_pg_cluster)
    try:
        db = qe.new_db()
        batch = qe.queue(db, "--tasks", *TASKS, "--runs", "2", *SLOW)
        workers = [qe.worker(db, "--slots", "2", delay="0.05") for _ in range(2)]
        store = _store(db)
        # both workers serving (a worker still starting when the server goes has its own test below)
        wait_for("both workers registered", lambda: _registered_workers(db) == 2 or None, timeout=60, every=0.2)
        wait_for("runs under way", lambda: len([r for r in store.list_runs(batch_id=batch) if r.status == "running"]) >= 2, timeout=60)
        for opened in (store, *qe.stores.values()):  # no connection of this test outlives the server
            opened.engine.dispose()
        private_pg_cluster.halt()
        time.sleep(OUTAGE_S)  # the outage itself (not a wait for some state)
        dead = [w.communicate()[1] for w in workers if w.poll() is not None]
        assert not dead, f"a worker died with the database:\n{dead[0][-3000:]}"
        private_pg_cluster.restart()
        got = wait_for("6 finished runs", _all_done(qe, db, batch, 6), timeout=180, every=0.5)
        dead = [w.communicate()[1] for w in workers if w.poll() is not None]
        assert not dead, f"a worker died after the database came back:\n{dead[0][-3000:]}"
        _check_exactly_once(_store(db), [r["run_id"] for r in got["runs"]])
    finally:
        qe.stop_workers()


def _stderr_lines(proc: subprocess.Popen) -> queue.Queue[str]:
    """The lines a process writes to stderr, as they come (read on a thread of their own)."""
    lines: queue.Queue[str] = queue.Queue()
    stream = proc.stderr
    assert stream is not None
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    return lines


def test_a_worker_started_while_the_database_is_down_waits_for_it(private_pg_cluster):
    """A worker started during an outage (PostgreSQL restarting, not up yet) says so and keeps
    trying; once the server is back it drives the batch. With ``--wait-db 0`` it gives up at once:
    exit 1 and one line naming the database, never a traceback."""
    qe = QueueEnv(private_pg_cluster)
    try:
        db = qe.new_db()
        batch = qe.queue(db, "--tasks", TASKS[0], "--runs", "2")
        private_pg_cluster.halt()
        gave_up = qe.cmd("worker", "--db", db, "--wait-db", "0")
        assert gave_up.returncode == 1
        lines = gave_up.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: cannot reach the database postgresql"), gave_up.stderr
        assert "Traceback" not in gave_up.stderr and "unexpected" not in gave_up.stderr
        waiting = qe.worker(db, "--slots", "2", "--wait-db", "120")
        said = _stderr_lines(waiting)
        first = said.get(timeout=60)  # the worker's own word that it is waiting (a state it exposes)
        assert "cannot reach the database" in first and "trying again in" in first, first
        assert waiting.poll() is None
        private_pg_cluster.restart()
        got = wait_for("2 finished runs", _all_done(qe, db, batch, 2), timeout=120, every=0.5)
        assert waiting.poll() is None
        _check_exactly_once(_store(db), [r["run_id"] for r in got["runs"]])
    finally:
        qe.stop_workers()


def test_provider_cap_is_never_exceeded(qenv):
    db = qenv.new_db()
    batch = qenv.queue(db, "--tasks", *TASKS[:2], "--runs", "3", *SLOW, "--provider-limit", "fake=2")
    for _ in range(3):
        qenv.worker(db, "--slots", "3", delay="0.01")
    got = wait_for("6 finished runs", _all_done(qenv, db, batch, 6), timeout=120, every=0.3)
    store = _store(db)
    spans: list[tuple[datetime, int]] = []
    for r in got["runs"]:
        events = store.events(r["run_id"])
        spans += [(events[0].ts, 1), (events[-1].ts, -1)]  # a run's events lie inside its slot
    spans.sort(key=lambda s: (s[0], s[1]))  # an end at the same instant as a start counts first
    level = peak = 0
    for _ts, step in spans:
        level += step
        peak = max(peak, level)
    assert 1 <= peak <= 2
    assert store.list_runs(batch_id=batch)[0].meta()["batch"]["provider_limits"] == {"fake": 2}


def test_provider_cap_holds_at_the_model_server(qenv, tmp_path):
    """The cap seen from the provider's side: a local OpenAI-compatible server (the throughput
    benchmark's, 0.3 s a call) counts the calls in flight; three workers of three slots each drive
    six runs under ``openai=2``, and the server never has more than two calls at once (a run
    makes one call at a time, so two runs at most)."""
    server = subprocess.Popen([sys.executable, str(BENCH_SERVER), "--port", "0", "--latency", "0.3", "--tool-steps", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        assert line.startswith("PORT "), line
        base = f"http://127.0.0.1:{int(line.split()[1])}"
        to_server = {"VIBESEARCH_API_BASE": base + "/v1"}
        db = qenv.new_db()
        batch = qenv.queue(db, "--tasks", *TASKS[:2], "--runs", "3", "--agent", "react", "--model", "openai/bench", "--user", "rules",
                           "--max-user-turns", "1", "--provider-limit", "openai=2", **to_server)
        for _ in range(3):
            # the ordinary lease (30 s), not the kill tests' 2 s one: on a busy machine a 2 s lease can
            # lapse mid-call, and the job handed back then starts a call while the lapsed one is still
            # at the server (a third call in flight that no slot counts)
            qenv.worker(db, "--slots", "3", VIBESEARCH_LEASE_TTL_S="30", **to_server)
        got = wait_for("6 finished runs", _all_done(qenv, db, batch, 6), timeout=180, every=0.3)
        with urllib.request.urlopen(base + "/stats", timeout=10) as resp:
            stats = json.loads(resp.read())
        assert stats["requests"] >= 6 * 3  # every run called the server (a search, an answer, the extraction)
        attempts = {r["run_id"]: r["attempts"] for r in got["runs"]}
        assert 1 <= stats["peak_in_flight"] <= 2, (stats, attempts)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_batch_cancel_stops_every_run(qenv, tmp_path):
    db = qenv.new_db()
    batch = qenv.queue(db, "--tasks", *TASKS, "--runs", "3", *SLOW)
    # every model reply is held (the gate file is never made): no run can end before the cancel,
    # however slowly the second worker starts or however fast a run goes, so the three runs under
    # way are the only ones that ever begin
    gate = str(tmp_path / "never-released")
    qenv.worker(db, "--slots", "2", delay="0.05", VIBESEARCH_TEST_FAKE_HOLD=gate)
    qenv.worker(db, "--slots", "1", delay="0.05", VIBESEARCH_TEST_FAKE_HOLD=gate)
    store = _store(db)
    wait_for("three runs under way", lambda: len([r for r in store.list_runs(batch_id=batch) if r.status == "running"]) == 3,
             timeout=120, every=0.2)
    running = qenv.status(db, batch, cli=True)
    assert {r["worker"] for r in running["runs"] if r["state"] == "running"} - {None}  # host:pid shown
    done = qenv.cmd("batch", "cancel", batch, "--db", db)
    assert done.returncode == 0, done.stderr
    m = re.search(r"(\d+) waiting run\(s\) cancelled, (\d+) running run\(s\) asked to stop", done.stdout)
    assert m and int(m.group(2)) >= 1 and int(m.group(1)) >= 3, done.stdout

    def settled():
        got = qenv.status(db, batch)
        return got if got["counts"]["planned"] == got["counts"]["running"] == 0 else None

    got = wait_for("every run stopped", settled, timeout=30, every=0.2)
    assert got["counts"]["failed"] == 0 and got["counts"]["finished"] + got["counts"]["cancelled"] == 9
    runs = store.list_runs(batch_id=batch)
    assert len(runs) == 3  # the waiting ones never began
    for r in runs:
        assert store.stop_request(r.id) is not None  # each was asked to stop while it ran
    assert [r.status for r in runs] == ["cancelled"] * 3  # held mid-call: none could finish first
    _check_exactly_once(store, [r.id for r in runs])


def test_a_job_that_cannot_succeed_fails_after_bounded_retries(qenv):
    from vibesearch.protocol import build_config
    from vibesearch.runner.batch import BatchSpec
    from vibesearch.runner.queued import RETRIES, queue_batch
    from vibesearch.tasks import load_tasks
    from vibesearch.config import BUNDLED_TASKS

    db = qenv.new_db()
    task = [t for t in load_tasks([BUNDLED_TASKS]) if t.id == TASKS[0]][0]
    # a model whose key the worker does not have: the failure will not go away by itself
    config = build_config(Settings(db=db, tasks=""), agent="react", agent_model="openai/gpt-4o-mini")
    spec = BatchSpec(tasks=[task], config=config, runs=1)
    asyncio.run(queue_batch(db, spec, {}))
    qenv.worker(db, "--slots", "1")
    got = wait_for("the job failed", _all_done(qenv, db, spec.batch_id, 1, states=("failed",)), timeout=60, every=0.3)
    assert got["runs"][0]["attempts"] == RETRIES + 1 and got["runs"][0]["job_status"] == "failed"
    assert _store(db).list_runs(batch_id=spec.batch_id) == []  # never opened
