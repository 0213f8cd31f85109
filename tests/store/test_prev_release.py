"""A database written by the previous release (``tests/data/prev_release.db``) still opens, resumes,
scores and reports.

The file was made by vibesearch at commit d520475 (before runs stored their ``RunConfig``):
``vibesearch run --tasks daily-en-japan-heritage-trip --runs 2 --max-user-turns 3`` with the
offline defaults (baseline agent, rules user), then run #1 was cut after its 14th event (the
first tool result of its second turn, where a killed process leaves it: status ``running``, no
graph, no end) by deleting the rest of its rows.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from vibesearch.config import BUNDLED_TASKS
from vibesearch.reports import build_report, render
from vibesearch.scoring import score_run
from vibesearch.runner import config_of_run, resume_run
from vibesearch.store import Store, open_db

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"
FINISHED, CUT = "cfd851f5c680", "9188dd3cc7f9"
TASK = "daily-en-japan-heritage-trip"


@pytest.fixture
def prev_db(tmp_path) -> Path:
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    # the runs name the task file where it was on the machine that made them: point them at this one
    with sqlite3.connect(db) as conn:
        for run_id, meta in conn.execute("SELECT id, meta_json FROM runs").fetchall():
            conn.execute(
                "UPDATE runs SET meta_json = ? WHERE id = ?",
                (json.dumps({**json.loads(meta), "task_file": str(BUNDLED_TASKS / f"{TASK}.json")}), run_id),
            )
    return db


def _normalised(events) -> list[dict]:
    """Events without ids, timings and usage (what the resumed run must equal)."""
    out, ids = [], {}
    for ev in events:
        d = ev.data.model_dump(mode="json")
        if d["kind"] == "usage":
            continue
        if d["kind"] == "tool_call":
            ids[d["call_id"]] = f"c{len(out)}"
        if "call_id" in d:
            d["call_id"] = ids.get(d["call_id"], d["call_id"])
        d.pop("elapsed_s", None)
        if isinstance(d.get("rationale"), str):  # the previous release counted stages from 0 in this text
            d["rationale"] = re.sub(r"stage \d+", "stage N", d["rationale"])
        out.append(d)
    return out


def test_the_fixture_is_what_the_previous_release_wrote():
    with sqlite3.connect(f"file:{PREV}?mode=ro", uri=True) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        status = dict(conn.execute("SELECT id, status FROM runs").fetchall())
    assert "run_config_json" not in columns  # written before runs kept their RunConfig
    assert status == {FINISHED: "finished", CUT: "running"}
    assert PREV.stat().st_size < 1_000_000


async def test_a_previous_release_database_opens_resumes_scores_and_reports(prev_db, settings):
    store = open_db(prev_db)
    runs = {r.id: r for r in store.list_runs()}
    assert set(runs) == {FINISHED, CUT}
    # a run stored before configs were got its config when the file was upgraded (migration 0005),
    # read off its settings snapshot and meta
    assert all(r.run_config() is not None for r in runs.values())
    config = config_of_run(runs[CUT], settings)
    assert (config.task_id, config.agent.kind, config.user.kind) == (TASK, "baseline", "rules")
    assert config.limits.max_user_turns == 3  # the run's own limit, not this process' default

    result = await resume_run(store, CUT, settings)
    assert result.status == "finished" and result.termination == "max_user_turns", result
    # the resumed run equals the one that was never cut (same task, same offline configuration)
    assert _normalised(store.events(CUT)) == _normalised(store.events(FINISHED))
    assert json.loads(store.get_run(CUT).meta_json)["resumed"] == 1

    scores = {rid: score_run(store, rid, judge="offline", settings=settings) for rid in (FINISHED, CUT)}
    assert scores[FINISHED].f1 == scores[CUT].f1 > 0

    report = build_report(store, judge="offline")
    assert report["n_runs"] == 2 and report["n_scored"] == 2
    assert "baseline (retrieval + oracle reader)" in render(report, "md")


def test_a_previous_release_database_reads_without_being_written(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    before = db.read_bytes()
    store = Store(db, read_only=True)
    assert {r.id for r in store.list_runs()} == {FINISHED, CUT}
    assert store.get_run(CUT).run_config() is None and len(store.events(CUT)) == 14
    assert db.read_bytes() == before
