"""The one rule for an item's final human label: the adjudication first, else the strict majority
of the annotators' labels, else none (an open tie, or nobody) — the same in the campaigns, the
agreement report and the official meta-eval export; ties are left out of agreement and counted."""

from __future__ import annotations

import json

import pytest
from scoring_helpers import T

from vibesearch.labels import final_labels, final_of, strict_majority
from vibesearch.labels.agreement import agreement_report
from vibesearch.labels.campaigns import Item, adjudicate, create_campaign, final_label, item_labels
from vibesearch.labels.meta_eval_csv import human_cells
from vibesearch.store.tables import ScoreRow, VerdictRow

GT = [T(f"h{i}", "r", f"t{i}") for i in range(4)]
PRED = [T("p", "r", "x")]


def test_the_rule_by_hand():
    assert strict_majority([True, True, False]) is True and strict_majority([False, False, True]) is False
    assert strict_majority([True, False]) is None and strict_majority([]) is None
    assert final_of([True, True, False], adjudication=False) is False  # the adjudication beats the majority
    assert final_of([True, False]) is None and final_of([True, False], True) is True
    got = final_labels({"a": [True, True, False], "b": [True, False], "c": [False]}, {"d": True})
    assert got.labels == {"a": True, "c": False, "d": True}
    assert got.open_ties == ["b"] and got.n_open_ties == 1 and got.adjudicated == 1


@pytest.fixture
def run(store, make_run):
    rid = make_run(store, GT, PRED)
    # the judge: covered, covered, not, not
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=c, evidence_json="[0]" if c else "[]")
                for i, c in enumerate([True, True, False, False])]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=1.0, recall=0.5, f1=2 / 3, n_gt=4, n_pred=1, n_covered=2, n_valid=1),
                    verdicts)
    # item 0: 2 yes 1 no (majority yes); item 1: 1 yes 1 no (tie); item 2: 2 no 1 yes (majority no);
    # item 3: 1 yes 1 no, then adjudicated "no"
    for who, labels in (("ann", [True, True, True, True]), ("bob", [True, False, False, False]), ("cy", [False, None, False, None])):
        for i, c in enumerate(labels):
            if c is not None:
                store.put_label(rid, i, who, c, [0] if c else [])
    create_campaign(store, "c", runs=[rid], annotators=["ann", "bob", "cy"], sides=["coverage"], overlap=2)
    return rid


def test_campaign_final_label_is_the_strict_majority_and_the_adjudication_beats_it(store, run):
    camp = create_campaign(store, "c2", runs=[run], annotators=["ann", "bob", "cy", "dee"], sides=["coverage"], overlap=2)
    assert final_label(store, Item(run, "coverage", 0)) is True  # 2 to 1: the majority (the old rule said none)
    assert final_label(store, Item(run, "coverage", 2)) is False
    assert final_label(store, Item(run, "coverage", 1)) is None  # an even split
    assert final_label(store, Item(run, "coverage", 3)) is None
    adjudicate(store, camp, Item(run, "coverage", 3), "dee", False)
    adjudicate(store, camp, Item(run, "coverage", 0), "dee", False)  # against the 2-to-1 majority
    assert final_label(store, Item(run, "coverage", 0)) is False and final_label(store, Item(run, "coverage", 3)) is False
    assert [e.final for e in item_labels(store, camp)][:4] == [False, None, False, False]


def test_agreement_leaves_open_ties_out_and_counts_them(store, run):
    rep = agreement_report(store)
    row = rep["judges"][0]
    # final labels: item 0 yes, item 2 no; items 1 and 3 are open ties (not "not covered")
    assert (rep["n_items"], rep["n_final"], rep["n_open_ties"]) == (4, 2, 2)
    assert row["n"] == 2 and row["agreement"] == pytest.approx(1.0)
    assert row["confusion"] == {"tp": 1, "fn": 0, "fp": 0, "tn": 1}
    camp = create_campaign(store, "c3", runs=[run], annotators=["ann", "bob", "cy", "dee"], sides=["coverage"], overlap=2)
    adjudicate(store, camp, Item(run, "coverage", 3), "dee", True)  # the judge said not covered
    rep = agreement_report(store)
    assert (rep["n_final"], rep["n_open_ties"], rep["n_adjudicated"]) == (3, 1, 1)
    assert rep["judges"][0]["n"] == 3 and rep["judges"][0]["agreement"] == pytest.approx(2 / 3)
    assert json.loads(json.dumps(rep))["n_open_ties"] == 1


def test_the_official_export_cells_follow_the_same_rule(store, run):
    camp = create_campaign(store, "c4", runs=[run], annotators=["ann", "bob", "cy", "dee"], sides=["coverage"], overlap=2)
    adjudicate(store, camp, Item(run, "coverage", 3), "dee", True, "page 2 says so")
    cells, counts = human_cells(store, run, "coverage")  # the final labels are the default
    assert cells == {0: (True, ""), 1: (None, "open tie: 1 yes, 1 no, not adjudicated (no final label)"), 2: (False, ""),
                     3: (True, "page 2 says so")}
    assert counts == {"adjudication": 1, "majority": 2, "open tie": 1}
