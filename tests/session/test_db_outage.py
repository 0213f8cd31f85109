"""PostgreSQL going away in the middle of a batch (``vibesearch run``, the real CLI in a subprocess).

Three tasks, one run each, one at a time. The first run finishes; the second is held inside its
first model call (``_outage_fakes``' gate) once its row and opening events are stored; the server
is then shut down (``pg_ctl stop -m fast``), the gate opened, and the batch left to meet the
outage; the third run has not begun. Every step waits on something observable (a stored row, the
process' exit, the leases' expiry), never on a fixed sleep.

The batch must stop with exit code 1 and one line per run it could not finish (the run's id, or
"not started"), no traceback and none of SQLAlchemy's statement text, and a last line with the
command that continues the batch; with the server back, that very command finishes every run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path


from _procs import cli, env, wait_for
from vibesearch.store import Store, upgrade_database
from vibesearch.store.leases import batch_key, holder, run_key

TASKS = ["daily-en-japan-heritage-trip", "daily-zh-traditional-festivals", "pro-en-analysis-history"]
FIRST, HELD, LAST = TASKS
TTL_S = "3"  # the leases the stopped batch leaves behind expire this soon after its last renewal
SQL_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\b")


def _run_of(store: Store, task_id: str):
    return next((r for r in store.list_runs() if r.task_id == task_id), None)


def _clean(text: str, where: str) -> None:
    assert "Traceback" not in text, f"{where}:\n{text}"
    assert "SQL:" not in text and "sqlalche.me" not in text and "Background on this error" not in text, f"{where}:\n{text}"
    assert not SQL_WORDS.search(text), f"{where}:\n{text}"


def test_a_database_outage_stops_the_batch_in_one_line_per_run_and_its_resume_finishes_it(private_pg_cluster, tmp_path: Path):
    cluster = private_pg_cluster
    url = cluster.new_database()
    upgrade_database(url)
    gate = tmp_path / "hold"
    gate.touch()
    run_env = env(
        VIBESEARCH_FAKE_MODELS="_outage_fakes:register",
        VIBESEARCH_TEST_GATE=str(gate),
        VIBESEARCH_TEST_GATE_TASK=HELD,
        VIBESEARCH_LEASE_TTL_S=TTL_S,
    )
    out_path, err_path = tmp_path / "out", tmp_path / "err"
    args = ["run", "--tasks", ",".join(TASKS), "--agent", "react", "--model", "fake/agent", "--max-user-turns", "2",
            "--concurrency", "1", "--db", url]
    with out_path.open("w") as out, err_path.open("w") as err:
        batch = subprocess.Popen(cli(*args), env=run_env, stdout=out, stderr=err, text=True)
    try:
        store = Store(url)

        def held_run_started():
            assert batch.poll() is None, f"the batch ended early:\n{out_path.read_text()}\n{err_path.read_text()}"
            run = _run_of(store, HELD)
            return run if run is not None and store.events(run.id) else None

        # the first run has ended (one run at a time) and the second has stored its opening
        held = wait_for("the held run's first events", held_run_started, timeout=60)
        first = _run_of(store, FIRST)
        assert first is not None and first.status == "finished"
        store.engine.dispose()  # no connection of this test outlives the server
        cluster.halt()
        gate.unlink()  # the held run goes on and meets the outage
        rc = batch.wait(timeout=60)
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.wait()
    cluster.restart()
    stdout, stderr = out_path.read_text(), err_path.read_text()
    both = f"--- stdout\n{stdout}\n--- stderr\n{stderr}"

    assert rc == 1, both
    _clean(stdout, "the batch's stdout")
    _clean(stderr, "the batch's stderr")
    lines = stderr.splitlines()
    cut = [line for line in lines if line.startswith(("interrupted ", "not started "))]
    assert len(cut) == 2, both  # the held run and the one never begun; the finished one is not named
    assert cut[0].startswith(f"interrupted {HELD} #0 (run {held.id}): "), both
    assert cut[1].startswith(f"not started {LAST} #0: "), both
    assert sum(held.id in line for line in lines) == 1, both
    assert all("the database could not be reached" in line for line in cut), both
    assert held.id in stdout, both  # the summary names the run too
    assert first.id in stdout and "finished" in stdout, both  # the run that finished is counted as such
    [hint] = [line for line in lines if "resume with: " in line]
    assert hint == lines[-1], both
    command = hint.split("resume with: ", 1)[1]
    words = shlex.split(command)
    assert words[:3] == ["vibesearch", "run", "--resume"] and "--batch" in words and "--db" in words, hint

    store = Store(url)
    [batch_id] = {r.batch_id for r in store.list_runs()}
    assert words[words.index("--batch") + 1] == batch_id, hint
    runs = {r.task_id: r for r in store.list_runs(batch_id=batch_id)}
    assert set(runs) == {FIRST, HELD}  # the third never began
    assert runs[FIRST].status == "finished" and runs[HELD].status == "running"  # cut off, not failed
    assert not [e for e in store.events(held.id, kinds=["error"]) if e.data.fatal]  # the outage is not the run's error

    # the stopped process could not release its leases: they expire TTL_S after its last renewal
    keys = [batch_key(batch_id), run_key(held.id)]
    wait_for("the stopped batch's leases to expire", lambda: all(holder(store, k) is None for k in keys), timeout=30)
    again = subprocess.run(cli(*words[1:]), env=run_env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, f"{command}\n--- stdout\n{again.stdout}\n--- stderr\n{again.stderr}"
    _clean(again.stdout + again.stderr, "the resume's output")
    final = {r.task_id: r for r in store.list_runs(batch_id=batch_id)}
    assert set(final) == set(TASKS)
    assert all(r.status == "finished" for r in final.values()), {t: r.status for t, r in final.items()}
    assert final[HELD].id == held.id and final[FIRST].id == first.id  # continued, not run again
    assert store.events(held.id)[-1].kind == "end"
    store.engine.dispose()


def test_the_line_for_a_lost_connection_is_the_drivers_first_line_without_statement_or_password():
    import sqlite3

    import psycopg
    from sqlalchemy import exc as sa_exc

    from vibesearch.run.result import PartFailed
    from vibesearch.session import database_unreachable

    closed = psycopg.OperationalError(
        "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n"
        "\tbefore or while processing the request."
    )
    wrapped = sa_exc.OperationalError("INSERT INTO events (run_id, seq) VALUES (%(run_id)s, %(seq)s)", {"run_id": "r1", "seq": 3}, closed)
    assert "[SQL: INSERT" in str(wrapped)  # what SQLAlchemy would have shown
    assert database_unreachable(wrapped) == "server closed the connection unexpectedly"
    assert database_unreachable(PartFailed("user", wrapped)) == "server closed the connection unexpectedly"
    try:
        try:
            raise wrapped
        except sa_exc.OperationalError as inner:
            raise RuntimeError("the write failed") from inner
    except RuntimeError as outer:
        assert database_unreachable(outer) == "server closed the connection unexpectedly"

    secret = sa_exc.OperationalError("SELECT 1", {}, psycopg.OperationalError('connection to "postgresql://bob:hunter2@db:5432/x" failed'))
    line = database_unreachable(secret)
    assert line is not None and "hunter2" not in line and "bob:***@db" in line and "SELECT" not in line
    assert database_unreachable(sqlite3.OperationalError("disk I/O error")) == "disk I/O error"

    # errors that are not about reaching the database are the run's own
    taken = sa_exc.IntegrityError("INSERT INTO runs (id) VALUES (%(id)s)", {"id": "r1"}, psycopg.IntegrityError("duplicate key"))
    assert database_unreachable(taken) is None
    assert database_unreachable(ValueError("no such model")) is None
    assert database_unreachable(PartFailed("agent", ValueError("bad reply"))) is None
