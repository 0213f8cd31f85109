"""The Label tab's rules, at the function level its handlers call (issue 13): "covered" needs a
supporting prediction, "Start labelling" says what is missing, and with a login the labels are
stored under the login whatever name was typed."""

from __future__ import annotations

import json

import pytest

from vibesearch.app import Who
from vibesearch.app.context import AppContext
from vibesearch.app.label import NEEDS_SUPPORT, LabelRefused, LabelView, annotator_for, record_label, start_problem


class _Ctx:
    """Only what ``record_label`` reaches: the store."""

    def __init__(self, store):
        self.store = store


@pytest.fixture
def view(store) -> LabelView:
    run = store.create_run("t1", task_json={"id": "t1"}, agent="baseline", user="rules", status="finished")
    gt = [{"head": f"h{i}", "relation": "r", "tail": f"t{i}"} for i in range(3)]
    pred = [{"head": f"p{i}", "relation": "r", "tail": "x"} for i in range(2)]
    return LabelView(run_id=run.id, annotator="alice", gt=gt, pred=pred)


def _ctx(store) -> AppContext:
    return _Ctx(store)  # type: ignore[return-value]


@pytest.mark.parametrize("evidence", [None, [], [7], [-1]])
def test_covered_without_a_supporting_prediction_is_refused_and_nothing_stored(store, view, evidence):
    with pytest.raises(LabelRefused) as refused:
        record_label(_ctx(store), view, True, evidence, "")
    assert str(refused.value) == NEEDS_SUPPORT
    assert "at least one supporting prediction" in NEEDS_SUPPORT
    assert store.labels() == [] and view.mine == {} and view.idx == 0  # nothing stored, still on the triple


def test_covered_with_support_and_not_covered_without_are_stored(store, view):
    record_label(_ctx(store), view, True, [1, "0", 1], "seen")
    assert view.idx == 1 and view.mine[0] == (True, [0, 1])
    record_label(_ctx(store), view, False, [1], "")  # "not covered" keeps no evidence
    rows = sorted(store.labels(run_id=view.run_id), key=lambda r: r.gt_index)
    assert [(r.gt_index, r.annotator, r.covered, json.loads(r.evidence_json)) for r in rows] == [
        (0, "alice", True, [0, 1]), (1, "alice", False, [])]
    assert rows[0].note == "seen"


def test_labelling_before_a_run_is_loaded_is_refused(store):
    with pytest.raises(LabelRefused, match="Load a run first"):
        record_label(_ctx(store), LabelView(), False, [], "")
    assert store.labels() == []


def test_start_says_what_is_missing():
    assert start_problem(None, "alice") is not None and "Pick a run first" in start_problem(None, "alice")
    assert start_problem("", "alice") is not None
    assert "annotator name" in (start_problem("r1", "") or "")
    assert start_problem("r1", "alice") is None


def test_the_login_is_the_annotator():
    assert annotator_for(Who(owner="user:bob", login="bob"), "mallory") == "bob"
    assert annotator_for(Who(owner="client:x"), "  carol  ") == "carol"
    assert annotator_for(Who(owner=None), None) == ""


def test_a_typed_name_has_the_one_form_every_import_gives_it():
    nobody = Who(owner="client:x")
    assert annotator_for(nobody, " Ann   Lee ") == "Ann Lee"  # the form `labels import` stores
    assert annotator_for(nobody, "Cafe\u0301") == "Caf\u00e9"  # Unicode NFC: one person, one name
    for bad, why in (("ann\u200b", "invisible character U+200B"), ("ann\x07", "control character U+0007")):
        problem = start_problem("r1", annotator_for(nobody, bad)) or ""
        assert problem.startswith("That annotator name cannot be used") and why in problem, problem
