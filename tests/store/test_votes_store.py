"""Votes in the store (``votes``, migration 0012), on SQLite and on PostgreSQL: stored and read
back, one vote per voter and pair, all or none; a database at revision 0011 is upgraded and
gets the table; a read-only file from before it reads as having no votes and is not written."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import create_engine

from vibesearch.labels.votes import VoteError, cast_vote
from vibesearch.run import GraphEvent
from vibesearch.store import Store, VoteExists, VoteRow, db_target, migrations, upgrade_database


def _run(store: Store, task: str = "t1") -> str:
    run = store.create_run(task, status="finished")
    store.append(run.id, GraphEvent(triples=[], raw_text="[]"))
    return run.id


def _back_to_0011(url: str) -> None:
    engine = create_engine(db_target(url).url)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE votes")
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0011'")
    engine.dispose()


def test_votes_are_stored_once_per_voter_and_pair_all_or_none(db_url: str):
    store = Store(db_url)
    a, b, c = _run(store), _run(store), _run(store)
    cast_vote(store, a, b, "a", "ann", reason="names the temple", campaign="spring")
    cast_vote(store, b, c, "both_bad", "ann")
    with pytest.raises(VoteError, match="has a stored vote"):
        cast_vote(store, b, a, "b", "ann")  # the same pair, the other way round
    with pytest.raises(VoteExists):  # the table's own constraint, below the checks
        store.add_votes([VoteRow(run_a=c, run_b=a, winner="tie", voter="bob"), VoteRow(run_a=a, run_b=b, winner="a", voter="ann")])
    again = Store(db_url)
    assert [(v.run_a, v.run_b, v.winner, v.voter, v.reason, v.campaign) for v in again.votes()] == [
        (a, b, "a", "ann", "names the temple", "spring"), (b, c, "both_bad", "ann", "", None)]  # bob's vote went with the failed batch
    assert [v.winner for v in again.votes(campaign="spring")] == ["a"]


@pytest.mark.parametrize(("args", "message"), [
    (("A", "A", "a", "ann"), "voted against itself"),
    (("A", "OTHER", "a", "ann"), "runs of different tasks"),
    (("A", "B", "left", "ann"), "winner: 'left' is not one of"),
    (("A", "B", "a", "ann  lee"), "not a name in its one form"),
    (("A", "missing", "a", "ann"), "run_b: run 'missing' is not in this database"),
])
def test_a_vote_that_cannot_be_is_refused(store: Store, args, message):
    ids = {"A": _run(store), "B": _run(store), "OTHER": _run(store, "t2")}
    with pytest.raises(VoteError, match=message):
        cast_vote(store, *(ids.get(x, x) for x in args[:2]), *args[2:])
    assert store.votes() == []


def test_a_database_at_revision_0011_is_upgraded_and_gets_the_table(db_url: str):
    store = Store(db_url)
    a, b = _run(store), _run(store)
    store.engine.dispose()
    _back_to_0011(db_url)
    assert upgrade_database(db_url) == ("0011", migrations.HEAD)
    upgraded = Store(db_url)
    cast_vote(upgraded, a, b, "tie", "ann")
    assert [v.winner for v in Store(db_url).votes()] == ["tie"]


def test_a_read_only_file_from_before_votes_reads_none(tmp_path):
    db = tmp_path / "old.db"
    Store(db).engine.dispose()
    _back_to_0011(str(db))
    before = db.read_bytes()
    assert Store(db, read_only=True).votes() == []
    assert db.read_bytes() == before
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert "votes" not in {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
