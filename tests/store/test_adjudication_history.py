"""Replacing an adjudication keeps the one it replaces (``adjudication_history``), written in the
replacement's own transaction, on SQLite and on PostgreSQL (``db_url`` in tests/conftest.py)."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError

from vibesearch.store import AdjudicationRow, Store, migrations
from vibesearch.store.tables import AdjudicationHistoryRow

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"
T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def store(db_url: str) -> Store:
    return Store(db_url)


def _adj(run_id: str, who: str, label: bool, *, comment: str = "", campaign: str = "c", at: datetime | None = None,
         side: str = "coverage", index: int = 3) -> AdjudicationRow:
    return AdjudicationRow(run_id=run_id, side=side, item_index=index, label=label, adjudicator=who, comment=comment,
                           campaign=campaign, created_at=at or T0)


def test_replacing_twice_keeps_both_replaced_adjudications_oldest_first(store: Store):
    run = store.create_run("t")
    first = store.put_adjudication(_adj(run.id, "ann", True, comment="first look", campaign="spring", at=T0))
    assert store.adjudication_history(run.id, "coverage", 3) == []  # a first adjudication replaces nothing
    store.put_adjudication(_adj(run.id, "bob", False, comment="second look", campaign="summer", at=T0 + timedelta(hours=1)))
    final = store.put_adjudication(_adj(run.id, "cy", True, comment="third look", campaign="autumn", at=T0 + timedelta(hours=2)))

    [current] = store.adjudications([run.id])
    assert (current.id, current.label, current.adjudicator, current.comment, current.campaign) == (first.id, True, "cy", "third look", "autumn")
    assert (final.adjudicator, final.comment) == ("cy", "third look")
    history = store.adjudication_history(run.id, "coverage", 3)
    assert [(h.run_id, h.side, h.item_index, h.label, h.adjudicator, h.comment, h.campaign, h.replaced_by) for h in history] == [
        (run.id, "coverage", 3, True, "ann", "first look", "spring", "bob"),
        (run.id, "coverage", 3, False, "bob", "second look", "summer", "cy"),
    ]
    assert [h.created_at for h in history] == [T0, T0 + timedelta(hours=1)]  # each one's own time, as it was
    assert T0 < history[0].replaced_at <= history[1].replaced_at


def test_history_is_per_item_and_per_run(store: Store):
    one, two = store.create_run("t"), store.create_run("t")
    for run in (one, two):
        store.put_adjudication(_adj(run.id, "ann", True))
    store.put_adjudication(_adj(one.id, "bob", False))
    store.put_adjudication(_adj(one.id, "ann", True, side="validity"))  # another item: nothing replaced
    store.put_adjudication(_adj(one.id, "ann", True, index=4))
    assert [h.adjudicator for h in store.adjudication_history(one.id, "coverage", 3)] == ["ann"]
    assert store.adjudication_history(one.id, "validity", 3) == store.adjudication_history(two.id, "coverage", 3) == []
    assert [(h.run_id, h.replaced_by) for h in store.adjudication_histories([one.id, two.id])] == [(one.id, "bob")]
    assert store.adjudication_histories([two.id]) == []
    assert len(store.adjudication_histories()) == 1


def test_a_replacement_that_fails_midway_leaves_neither_change(store: Store):
    """The new adjudication breaks a constraint (no label) after the history row was sent: the
    transaction is rolled back whole, so the old adjudication stays and no history is left."""
    run = store.create_run("t")
    store.put_adjudication(_adj(run.id, "ann", True, comment="kept"))
    sent: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        sent.append(" ".join(statement.split()).lower())

    event.listen(store.engine, "before_cursor_execute", record)
    try:
        with pytest.raises(IntegrityError):
            store.put_adjudication(AdjudicationRow(run_id=run.id, side="coverage", item_index=3, label=None,  # type: ignore[arg-type]
                                                   adjudicator="bob", comment="refused", campaign="c", created_at=T0))
    finally:
        event.remove(store.engine, "before_cursor_execute", record)
    assert any(s.startswith("insert into adjudication_history") for s in sent), sent  # it was written, then undone
    assert any(s.startswith("update adjudications") for s in sent), sent
    [current] = store.adjudications([run.id])
    assert (current.label, current.adjudicator, current.comment) == (True, "ann", "kept")
    assert store.adjudication_history(run.id, "coverage", 3) == []
    # the store still works: the next replacement is recorded as usual
    store.put_adjudication(_adj(run.id, "cy", False))
    assert [(h.adjudicator, h.comment, h.replaced_by) for h in store.adjudication_history(run.id, "coverage", 3)] == [("ann", "kept", "cy")]


def test_replacements_racing_from_two_stores_lose_no_adjudication(db_url: str):
    """Two Stores (two engines, as two app servers) settle the same item again and again at once:
    every adjudication but the last ends up in the history exactly once, each history row
    naming the adjudicator who came next."""
    a, b = Store(db_url), Store(db_url)
    run = a.create_run("t")
    rounds = 8
    errors: list[BaseException] = []

    def settle(store: Store, who: str) -> None:
        try:
            for i in range(rounds):
                store.put_adjudication(_adj(run.id, who, i % 2 == 0, comment=f"{who}-{i}"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=settle, args=(s, who)) for s, who in ((a, "ann"), (b, "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    [current] = a.adjudications([run.id])
    history = a.adjudication_history(run.id, "coverage", 3)
    assert len(history) == 2 * rounds - 1
    comments = [h.comment for h in history] + [current.comment]
    assert sorted(comments) == sorted(f"{who}-{i}" for who in ("ann", "bob") for i in range(rounds))
    chain = [h.adjudicator for h in history] + [current.adjudicator]
    assert [h.replaced_by for h in history] == chain[1:]


def test_a_read_only_file_from_before_the_history_reads_as_having_none(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    store = Store(db, read_only=True)
    assert store.adjudication_history("any", "coverage", 0) == [] and store.adjudication_histories() == []


def test_the_migration_adds_the_table_once(tmp_path):
    """Revision 0007 makes the table for a file at 0006, and leaves one that already has it alone."""
    db = tmp_path / "x.db"
    store = Store(db)
    run = store.create_run("t")
    store.put_adjudication(_adj(run.id, "ann", True))
    store.put_adjudication(_adj(run.id, "bob", False))
    store.engine.dispose()
    with sqlite3.connect(db) as conn:  # back to 0006, the table kept: the upgrade must not fail on it
        conn.execute("UPDATE alembic_version SET version_num = '0006'")
    again = Store(db)
    assert [h.adjudicator for h in again.adjudication_history(run.id, "coverage", 3)] == ["ann"]
    again.engine.dispose()
    with sqlite3.connect(db) as conn:  # at 0006 without the table: the upgrade makes it
        conn.execute("DROP TABLE adjudication_history")
        conn.execute("UPDATE alembic_version SET version_num = '0006'")
    fresh = Store(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(migrations.HEAD,)]
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(adjudication_history)")}
    assert "ix_adjudication_history_item" in indexes
    assert fresh.adjudication_history(run.id, "coverage", 3) == []
    fresh.put_adjudication(_adj(run.id, "cy", True))
    assert [h.adjudicator for h in fresh.adjudication_history(run.id, "coverage", 3)] == ["bob"]
    assert isinstance(fresh.adjudication_histories()[0], AdjudicationHistoryRow)
