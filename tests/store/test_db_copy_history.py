"""``db copy`` carries the adjudication history (``adjudication_history``) from SQLite to
PostgreSQL and back, and its check covers that table: a history row that differs is a mismatch."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import text
from typer.testing import CliRunner

from vibesearch.store import AdjudicationRow, Store, copy as copy_mod, db_target, make_engine

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


def _cli(*args: str):
    from vibesearch.cli.main import app

    return CliRunner().invoke(app, list(args))


def _with_history(path: Path) -> str:
    """A database whose one adjudication was replaced twice (names and comments not ASCII)."""
    store = Store(path)
    run = store.create_run("t")
    for who, label, comment in (("ann", True, "première"), ("bob", False, "second ✓"), ("cy", True, "=third")):
        store.put_adjudication(AdjudicationRow(run_id=run.id, side="validity", item_index=1, label=label, adjudicator=who,
                                               comment=comment, campaign="c1", created_at=T0))
    store.engine.dispose()
    return run.id


def _history(db: str | Path, run_id: str) -> list[tuple]:
    store = Store(db)
    try:
        return [(h.id, h.label, h.adjudicator, h.comment, h.campaign, h.created_at, h.replaced_at, h.replaced_by)
                for h in store.adjudication_history(run_id, "validity", 1)]
    finally:
        store.engine.dispose()


def _sum(db: str | Path) -> tuple[int, str]:
    engine = make_engine(db_target(db), read_only=db_target(db).is_sqlite)
    try:
        return copy_mod.table_checksum(engine, "adjudication_history")
    finally:
        engine.dispose()


def test_the_history_is_copied_in_foreign_key_order():
    assert copy_mod.COPIED.index("adjudication_history") > copy_mod.COPIED.index("runs")
    assert copy_mod.COPIED.index("adjudication_history") > copy_mod.COPIED.index("adjudications")


def test_sqlite_to_postgresql_and_back_keeps_the_history(tmp_path, pg_cluster):
    src, back = tmp_path / "src.db", tmp_path / "back.db"
    run_id = _with_history(src)
    pg = pg_cluster.new_database()
    there = _cli("db", "copy", str(src), pg)
    assert there.exit_code == 0, there.output
    assert "adjudication_history" in there.stdout and "counts and checksums match" in there.stdout
    again = _cli("db", "copy", pg, str(back))
    assert again.exit_code == 0, again.output
    assert _sum(src) == _sum(pg) == _sum(back) and _sum(src)[0] == 2
    rows = _history(src, run_id)
    assert [r[2:4] for r in rows] == [("ann", "première"), ("bob", "second ✓")]
    assert _history(pg, run_id) == _history(back, run_id) == rows

    # on the PostgreSQL copy the history's id sequence follows the copied ids
    store = Store(pg)
    store.put_adjudication(AdjudicationRow(run_id=run_id, side="validity", item_index=1, label=False, adjudicator="dee",
                                           campaign="c1", created_at=T0))
    history = store.adjudication_history(run_id, "validity", 1)
    assert [(h.id, h.adjudicator, h.replaced_by) for h in history][-1] == (rows[-1][0] + 1, "cy", "dee")
    store.engine.dispose()


def test_the_check_compares_the_history(tmp_path):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _with_history(src)
    checks = {c.table: c for c in copy_mod.copy_database(src, dst)}
    assert checks["adjudication_history"].ok and checks["adjudication_history"].src_rows == 2

    engine = make_engine(db_target(dst))
    with engine.begin() as conn:  # one replaced adjudication changed in the copy
        conn.execute(text("UPDATE adjudication_history SET replaced_by = 'mallory' WHERE adjudicator = 'ann'"))
    src_engine, dst_engine = make_engine(db_target(src), read_only=True), engine
    try:
        checks = {c.table: c for c in copy_mod.verify(src_engine, dst_engine)}
    finally:
        src_engine.dispose()
        dst_engine.dispose()
    assert not checks["adjudication_history"].ok
    assert [name for name, c in checks.items() if not c.ok] == ["adjudication_history"]
    assert checks["adjudication_history"].src_rows == checks["adjudication_history"].dst_rows == 2


def test_a_copy_that_drops_a_history_row_is_exit_1(tmp_path, monkeypatch):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _with_history(src)
    real = copy_mod._insert
    monkeypatch.setattr(copy_mod, "_insert",
                        lambda engine, table, rows: real(engine, table, rows[:-1] if table.name == "adjudication_history" else rows))
    out = _cli("db", "copy", str(src), str(dst))
    assert out.exit_code == 1, out.output
    assert out.stderr.strip() == "error: the copy differs from the source in: adjudication_history"
