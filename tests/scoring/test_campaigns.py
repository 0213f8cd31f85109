"""Labelling campaigns (issue 13): the queue, progress, disagreements and adjudication."""

from __future__ import annotations

import pytest
from scoring_helpers import T

from vibesearch.labels.campaigns import (
    CampaignError,
    Item,
    adjudicate,
    create_campaign,
    disagreements,
    final_label,
    get_campaign,
    items,
    next_item,
    parse_filters,
    progress,
    who_labelled,
)
from vibesearch.store import Store

GT = [T("A", "r", "1"), T("B", "r", "2")]
PRED = [T("A", "r", "1")]


@pytest.fixture
def two_runs(store: Store, make_run) -> list[str]:
    return [make_run(store, GT, PRED), make_run(store, GT, PRED, language="zh", task_id="t2")]


def test_items_follow_runs_then_sides_then_index(store, two_runs):
    camp = create_campaign(store, "c", runs=two_runs, annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    r1, r2 = two_runs
    assert items(store, camp) == [Item(r1, "coverage", 0), Item(r1, "coverage", 1), Item(r1, "validity", 0),
                                  Item(r2, "coverage", 0), Item(r2, "coverage", 1), Item(r2, "validity", 0)]
    only_validity = create_campaign(store, "v", runs=two_runs, annotators=["ann"], sides=["validity"], overlap=1)
    assert [it.side for it in items(store, only_validity)] == ["validity", "validity"]


def test_the_queue_skips_own_labels_and_full_items(store, two_runs):
    r1, _ = two_runs
    camp = create_campaign(store, "c", runs=two_runs, annotators=["ann", "bob", "cy"], sides=["coverage", "validity"], overlap=2)
    assert next_item(store, camp, "ann") == Item(r1, "coverage", 0)
    store.put_label(r1, 0, "ann", True, evidence=[0])
    assert next_item(store, camp, "ann") == Item(r1, "coverage", 1)  # skips what ann labelled
    assert next_item(store, camp, "bob") == Item(r1, "coverage", 0)  # one label < k=2
    store.put_label(r1, 0, "bob", False)
    assert next_item(store, camp, "cy") == Item(r1, "coverage", 0 + 1)  # item 0 has k labels now
    store.put_pred_labels([{"run_id": r1, "pred_index": 0, "annotator": "cy", "valid": True}])
    store.put_pred_labels([{"run_id": r1, "pred_index": 0, "annotator": "bob", "valid": True}])
    store.put_label(r1, 1, "ann", True, evidence=[0])
    store.put_label(r1, 1, "cy", True, evidence=[0])
    assert next_item(store, camp, "ann") == Item(two_runs[1], "coverage", 0)  # across runs
    with pytest.raises(CampaignError, match="'zed' is not an annotator"):
        next_item(store, camp, "zed")


def test_progress_per_annotator_and_overall(store, two_runs):
    r1, _ = two_runs
    camp = create_campaign(store, "c", runs=two_runs, annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    store.put_label(r1, 0, "ann", True, evidence=[0])
    store.put_label(r1, 0, "bob", True, evidence=[0])
    store.put_label(r1, 1, "ann", False)
    p = progress(store, camp)
    assert (p["items"], p["items_done"], p["labels"], p["labels_needed"]) == (6, 1, 3, 12)
    assert p["annotators"] == {"ann": {"labelled": 2, "queue": 4}, "bob": {"labelled": 1, "queue": 5}}
    assert p["disagreements"] == 0
    table = who_labelled(store, camp)
    assert [(e.item.index, e.labels) for e in table] == [(0, {"ann": True, "bob": True}), (1, {"ann": False})]


def test_disagreements_are_resolved_by_a_third_person(store, two_runs):
    r1, _ = two_runs
    camp = create_campaign(store, "c", runs=two_runs, annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    store.put_pred_labels([{"run_id": r1, "pred_index": 0, "annotator": "ann", "valid": True},
                           {"run_id": r1, "pred_index": 0, "annotator": "bob", "valid": False}])
    item = Item(r1, "validity", 0)
    assert [e.item for e in disagreements(store, camp)] == [item]
    assert final_label(store, item) is None  # no single answer yet
    with pytest.raises(CampaignError, match="'ann' labelled validity #1 of run .*third person"):
        adjudicate(store, camp, item, "ann", True)
    with pytest.raises(CampaignError, match="'ann' labelled validity #1 of run .*third person"):
        adjudicate(store, camp, item, "  ann ", True)  # the same person, written with spaces
    with pytest.raises(CampaignError, match="adjudicator: the name is empty"):
        adjudicate(store, camp, item, "", True)
    with pytest.raises(CampaignError, match="adjudicator: .*control character U\\+0007"):
        adjudicate(store, camp, item, "cy\x07", True)
    with pytest.raises(CampaignError, match="no disagreement"):
        adjudicate(store, camp, Item(r1, "coverage", 0), "cy", True)
    with pytest.raises(CampaignError, match="not in campaign"):
        adjudicate(store, camp, Item(r1, "validity", 9), "cy", True)
    assert store.adjudications() == []  # nothing stored by the refusals
    row = adjudicate(store, camp, item, "cy", False, "the source says otherwise")
    assert (row.adjudicator, row.label, row.comment, row.campaign) == ("cy", False, "the source says otherwise", "c")
    assert row.created_at is not None
    assert final_label(store, item) is False
    assert disagreements(store, camp, pending_only=True) == []
    assert progress(store, camp)["disagreements_pending"] == 0
    again = adjudicate(store, camp, item, "dee", True)  # a second resolution replaces the first
    assert len(store.adjudications()) == 1 and again.adjudicator == "dee" and final_label(store, item) is True


def test_final_label_is_the_common_answer_without_adjudication(store, two_runs):
    r1, _ = two_runs
    store.put_label(r1, 0, "ann", True, evidence=[0])
    store.put_label(r1, 0, "bob", True, evidence=[0])
    assert final_label(store, Item(r1, "coverage", 0)) is True
    assert final_label(store, Item(r1, "coverage", 1)) is None


def test_a_filter_picks_finished_runs_with_a_graph(store, make_run):
    zh = make_run(store, GT, PRED, language="zh")
    make_run(store, GT, PRED, language="en")
    make_run(store, GT, None, language="zh")  # no graph: nothing to label
    make_run(store, GT, PRED, language="zh", status="running")
    camp = create_campaign(store, "zh", filters=parse_filters(["language=zh"]), annotators=["a"], sides=["coverage"], overlap=1)
    assert camp.run_ids() == [zh] and camp.filters() == {"language": "zh"}
    assert get_campaign(store, "zh").run_ids() == [zh]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": ["nope"]}, "run 'nope': no such run"),
        ({"runs": None, "filters": None}, "name the campaign's runs"),
        ({"filters": {"language": "xx"}, "runs": None}, "no finished run with a graph matches the filter language=xx"),
        ({"overlap": 3}, "overlap 3 must be between 1 and the number of annotators"),
        ({"sides": ["recall"]}, "unknown side 'recall'"),
        ({"annotators": ["a", "a"]}, "'a' is named twice"),
        ({"annotators": ["ann", " ann  "]}, "'ann' is named twice"),  # one person: names have one form
        ({"annotators": ["a", "Ann\nBob"]}, r"annotator: 'Ann\\nBob' spans several lines"),
        ({"annotators": ["a", "a\u200bb"]}, "annotator: .* invisible character U\\+200B"),
        ({"annotators": ["a", " "]}, "annotator: the name is only whitespace"),
        ({"annotators": []}, "at least one annotator"),
        ({"name": " "}, "needs a name"),
    ],
)
def test_bad_campaigns_are_refused_and_nothing_is_stored(store, two_runs, kwargs, message):
    args = {"name": "c", "runs": two_runs, "annotators": ["a", "b"], "sides": ["coverage"], "overlap": 2, **kwargs}
    with pytest.raises(CampaignError, match=message):
        create_campaign(store, **args)
    assert store.campaigns() == []


def test_names_are_unique_and_filters_are_checked(store, two_runs):
    create_campaign(store, "c", runs=two_runs, annotators=["a"], sides=["coverage"], overlap=1)
    with pytest.raises(CampaignError, match="already exists"):
        create_campaign(store, "c", runs=two_runs, annotators=["a"], sides=["coverage"], overlap=1)
    with pytest.raises(CampaignError, match="unknown key 'colour'"):
        parse_filters(["colour=red"])
    with pytest.raises(CampaignError, match="key=value"):
        parse_filters(["language"])
    with pytest.raises(CampaignError, match="no campaign named 'x' \\(there are: c\\)"):
        get_campaign(store, "x")
