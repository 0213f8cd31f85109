"""``vibesearch batch status`` with job rows it cannot read (issue 40 item 7): a real PostgreSQL
queue holds a batch queued by the CLI plus rows written by hand with malformed arguments; the
command lists the good runs with their task, marks each bad row ``bad`` naming what is wrong, and
never fails with a traceback or "unexpected error"."""

from __future__ import annotations

import json
import subprocess

import pytest
from _procs import cli, env
from sqlalchemy import text

from vibesearch.store import Store

TASK = "daily-en-japan-heritage-trip"
BAD_ARGS = [
    ("task_json is not JSON", {"run_id": "r-bad-json", "run_index": 0, "task_json": "{not json"}),
    ("args.run_id is missing", {"run_index": 0, "task_json": json.dumps({"id": TASK})}),
    ("args.run_index is missing", {"run_id": "r-bad-index", "run_index": "first", "task_json": json.dumps({"id": TASK})}),
]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(cli(*args), env=env(), capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def queue_with_bad_rows(pg_cluster):
    db = pg_cluster.new_database()
    done = _run("db", "upgrade", "--db", db)
    assert done.returncode == 0, done.stderr
    done = _run("run", "--queue", "--db", db, "--json", "--tasks", TASK, "--runs", "2")
    assert done.returncode == 0, done.stderr
    batch = json.loads(done.stdout)["batch_id"]
    store = Store(db)
    with store.engine.begin() as conn:
        for _what, args in BAD_ARGS:
            conn.execute(text(
                "INSERT INTO procrastinate_jobs (queue_name, task_name, args, status) "
                "SELECT queue_name, task_name, CAST(:args AS jsonb), 'todo' FROM procrastinate_jobs LIMIT 1"
            ), {"args": json.dumps({"batch_id": batch, **args})})
    store.engine.dispose()
    return db, batch


def test_json_lists_the_good_runs_and_marks_each_bad_row(queue_with_bad_rows):
    db, batch = queue_with_bad_rows
    done = _run("batch", "status", batch, "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    good = [r for r in got["runs"] if r["state"] != "bad"]
    bad = [r for r in got["runs"] if r["state"] == "bad"]
    assert [(r["task_id"], r["run_index"], r["state"]) for r in good] == [(TASK, 0, "planned"), (TASK, 1, "planned")]
    assert all(r["problem"] is None for r in good)
    assert len(bad) == len(BAD_ARGS)
    for (what, _args), row in zip(BAD_ARGS, bad):
        assert what in row["problem"] and row["problem"].startswith("job ")
    assert got["counts"]["planned"] == 2 and got["counts"]["bad"] == len(BAD_ARGS)


def test_text_shows_the_task_of_good_rows_and_one_line_per_bad_row(queue_with_bad_rows):
    db, batch = queue_with_bad_rows
    done = _run("batch", "status", batch, "--db", db)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr
    assert done.stdout.count(f"{TASK}#0") == 1 and done.stdout.count(f"{TASK}#1") == 1
    assert "planned 2" in done.stdout and f"bad {len(BAD_ARGS)}" in done.stdout
    warnings = done.stderr.strip().splitlines()
    assert len(warnings) == len(BAD_ARGS)
    for (what, _args), line in zip(BAD_ARGS, warnings):
        assert line.startswith("warning: bad job row: job ") and what in line
