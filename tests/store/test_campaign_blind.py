"""A campaign is blind or not (``campaigns.blind``, migration 0011), on SQLite and on PostgreSQL: a
new campaign is blind unless told otherwise; a database at revision 0010 holding campaigns is
upgraded and its campaigns read as blind (what the Label tab did for them); a campaign written by an
older vibesearch, which does not name the column, is blind; a read-only file from before the
column reads its campaigns as blind and is not written."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import create_engine

from vibesearch.labels.campaigns import blind_runs, create_campaign
from vibesearch.run import GraphEvent
from vibesearch.store import CampaignRow, Store, db_target, migrations, upgrade_database

GT = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}]


@pytest.fixture
def store(db_url: str) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (``db_url`` in tests/conftest.py)."""
    return Store(db_url)


def _run(store: Store) -> str:
    """A finished run with a graph: what a campaign may hold (its task is not needed here)."""
    run = store.create_run("t1", status="finished")
    store.append(run.id, GraphEvent(triples=GT, raw_text="[]"))
    return run.id


def _back_to_0010(url: str) -> None:
    """The database as revision 0010 left it: ``campaigns`` without ``blind``."""
    engine = create_engine(db_target(url).url)
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE campaigns DROP COLUMN blind")
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0010'")
    engine.dispose()


def test_a_campaign_is_blind_unless_made_a_judge_review(store: Store, db_url: str):
    a, b = _run(store), _run(store)
    create_campaign(store, "blind one", runs=[a], annotators=["ann"], sides=["coverage"], overlap=1)
    create_campaign(store, "review", runs=[b], annotators=["ann"], sides=["coverage"], overlap=1, blind=False)
    again = Store(db_url)
    assert {c.name: c.blind for c in again.campaigns()} == {"blind one": True, "review": False}
    assert blind_runs(again) == {a}  # where its runs are labelled, they are labelled blind


def test_a_database_at_revision_0010_is_upgraded_and_its_campaigns_are_blind(db_url: str):
    store = Store(db_url)
    rid = _run(store)
    create_campaign(store, "before", runs=[rid], annotators=["ann"], sides=["coverage"], overlap=1, blind=False)
    store.engine.dispose()
    _back_to_0010(db_url)
    assert upgrade_database(db_url) == ("0010", migrations.HEAD)
    upgraded = Store(db_url)
    [camp] = upgraded.campaigns()
    assert (camp.name, camp.blind, camp.run_ids()) == ("before", True, [rid])  # labelled blind before the column existed
    upgraded.add_campaign(CampaignRow(name="after", runs_json=f'["{rid}"]', annotators_json='["ann"]', sides_json='["coverage"]',
                                      overlap=1, blind=False))
    assert {c.name: c.blind for c in Store(db_url).campaigns()} == {"before": True, "after": False}


def test_a_campaign_an_older_vibesearch_writes_is_blind(db_url: str):
    store = Store(db_url)
    store.engine.dispose()
    engine = create_engine(db_target(db_url).url)
    with engine.begin() as conn:  # the columns an older vibesearch names: not ``blind``
        conn.exec_driver_sql(
            "INSERT INTO campaigns (name, runs_json, filter_json, annotators_json, sides_json, overlap, created_by, created_at) "
            "VALUES ('old', '[]', '{}', '[\"ann\"]', '[\"coverage\"]', 1, '', CURRENT_TIMESTAMP)")
    engine.dispose()
    assert [(c.name, c.blind) for c in Store(db_url).campaigns()] == [("old", True)]


def test_a_read_only_file_from_before_the_column_reads_its_campaigns_as_blind(tmp_path):
    db = tmp_path / "old.db"
    store = Store(db)
    create_campaign(store, "c", runs=[_run(store)], annotators=["ann"], sides=["coverage"], overlap=1, blind=False)
    store.engine.dispose()
    _back_to_0010(str(db))
    before = db.read_bytes()
    ro = Store(db, read_only=True)
    assert [(c.name, c.blind) for c in ro.campaigns()] == [("c", True)]
    assert ro.campaign("c") is not None and ro.campaign("c").blind is True
    assert db.read_bytes() == before  # nothing written
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert "blind" not in {row[1] for row in conn.execute("PRAGMA table_info(campaigns)")}
