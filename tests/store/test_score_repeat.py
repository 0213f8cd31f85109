"""A score's repeat set (``score --repeat K``, migration 0010): a previous release's file gains the
columns when opened, reads as if it had them when read-only, and ``db copy`` carries them."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from vibesearch.run.scores import RunScore
from vibesearch.store import Store, record_score

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"


def _columns(db: Path) -> set[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return {row[1] for row in conn.execute("PRAGMA table_info(scores)")}


def _score(run_id: str, f1: float) -> RunScore:
    return RunScore(run_id=run_id, judge="fake/j", protocol="vibesearch", precision=f1, recall=f1, f1=f1, n_gt=2, n_pred=2, n_covered=1, n_valid=1)


def test_an_older_file_reads_read_only_and_gains_the_columns_when_opened(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    assert not {"repeat_set", "repeat_index"} & _columns(db)
    before = db.read_bytes()
    old = Store(db, read_only=True)
    assert all(s.repeat_set is None and s.repeat_index is None for s in old.scores())  # the query names the new columns
    assert db.read_bytes() == before
    store = Store(db)  # upgraded on open
    assert {"repeat_set", "repeat_index"} <= _columns(db)
    run_id = store.list_runs()[0].id
    rows = [record_score(store, _score(run_id, f1), ("set1", k)) for k, f1 in enumerate((0.5, 0.25), start=1)]
    single = record_score(store, _score(run_id, 0.75))
    assert [(r.repeat_set, r.repeat_index) for r in rows] == [("set1", 1), ("set1", 2)]
    assert (single.repeat_set, single.repeat_index) == (None, None)


def test_db_copy_carries_the_repeat_sets(tmp_path):
    from vibesearch.cli.main import app

    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    store = Store(src)
    run = store.create_run("t")
    for k, f1 in enumerate((0.5, 0.25, 0.75), start=1):
        record_score(store, _score(run.id, f1), ("abc123", k))
    out = CliRunner().invoke(app, ["db", "copy", str(src), str(dst)])
    assert out.exit_code == 0, out.output
    copied = Store(dst, read_only=True).scores(run.id)
    assert [(s.repeat_set, s.repeat_index, s.f1) for s in copied] == [("abc123", 1, 0.5), ("abc123", 2, 0.25), ("abc123", 3, 0.75)]
