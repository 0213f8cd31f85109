"""The campaign tables and the label methods split out of ``Store`` (issue 13): a database from the
previous release gets the new tables when opened for writing and reads without them when it is
read-only; the label API callers use is unchanged."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from vibesearch.store import SCHEMA_VERSION, AdjudicationRow, CampaignExists, CampaignRow, Store
from vibesearch.store.labels import LabelsMixin

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"
FINISHED = "cfd851f5c680"


@pytest.fixture
def store(db_url: str) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (``db_url`` in tests/conftest.py)."""
    return Store(db_url)


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_previous_release_file_gets_the_campaign_tables(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    assert not {"campaigns", "adjudications"} & _tables(db)
    store = Store(db)
    assert {"campaigns", "adjudications"} <= _tables(db)
    assert store.schema_version() == SCHEMA_VERSION == 1  # new tables only: an older vibesearch still reads the file
    store.add_campaign(CampaignRow(name="c", runs_json=f'["{FINISHED}"]', annotators_json='["a"]', sides_json='["coverage"]', overlap=1))
    store.put_adjudication(AdjudicationRow(run_id=FINISHED, side="coverage", item_index=0, label=True, adjudicator="cy"))
    again = Store(db)
    assert again.campaign("c") is not None and again.campaign("c").run_ids() == [FINISHED]
    assert [a.adjudicator for a in again.adjudications([FINISHED])] == ["cy"]


def test_a_previous_release_file_opened_read_only_reads_as_having_no_campaigns(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    store = Store(db, read_only=True)  # what ``open_db`` makes of a file it may not write
    assert store.campaigns() == [] and store.campaign("c") is None and store.adjudications() == []
    assert store.pred_labels() == []
    assert not {"campaigns", "adjudications"} & _tables(db)  # nothing was written


def test_campaign_names_are_unique_and_adjudications_replace(store: Store):
    run = store.create_run("t")
    store.add_campaign(CampaignRow(name="c"))
    with pytest.raises(CampaignExists, match="'c' already exists"):
        store.add_campaign(CampaignRow(name="c"))
    store.put_adjudication(AdjudicationRow(run_id=run.id, side="validity", item_index=2, label=True, adjudicator="x"))
    store.put_adjudication(AdjudicationRow(run_id=run.id, side="validity", item_index=2, label=False, adjudicator="y", comment="no"))
    rows = store.adjudications()
    assert [(r.label, r.adjudicator, r.comment) for r in rows] == [(False, "y", "no")]


def test_the_label_methods_live_in_their_own_module_and_keep_their_api(store: Store):
    assert isinstance(store, LabelsMixin)
    for name in ("put_label", "put_labels", "put_pred_labels", "put_both_labels", "labels", "pred_labels"):
        assert getattr(Store, name) is getattr(LabelsMixin, name)
    run = store.create_run("t")
    store.put_label(run.id, 0, "a", True, evidence=[1])
    store.put_both_labels([{"run_id": run.id, "gt_index": 0, "annotator": "a", "covered": False}],
                          [{"run_id": run.id, "pred_index": 0, "annotator": "a", "valid": True, "evidence": [0]}])
    assert [(r.covered, r.evidence_json) for r in store.labels(run_id=run.id)] == [(False, "[]")]
    assert [(r.valid, r.evidence_json) for r in store.pred_labels(annotator="a")] == [(True, "[0]")]
