"""The Label tab's campaign panel and both label sides, at the function level its handlers call
(issue 13): "valid" needs a supporting ground-truth triple, the queue hands out items of either
side, and a disagreement is resolved only by someone who did not label it."""

from __future__ import annotations

import json

import pytest

from vibesearch.app import label_campaign as lc
from vibesearch.app.context import AppContext
from vibesearch.app.label import NEEDS_GT_SUPPORT, LabelRefused, LabelView, record_label
from vibesearch.labels.campaigns import Item, create_campaign
from vibesearch.store import Store
from vibesearch.run import GraphEvent

GT = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}, {"head": "Nara", "relation": "has", "tail": "deer"}]
PRED = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}]


def _snapshot(task_id: str) -> dict:
    """A run's stored task (a whole ``Task`` dump: a partial one reads as no task) with ``GT``."""
    stage = {"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}
    return {"id": task_id, "subset": "daily", "language": "en", "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [stage]}}


class _Ctx:
    """What the functions reach: the store."""

    def __init__(self, store: Store):
        self.store = store


def _ctx(store: Store) -> AppContext:
    return _Ctx(store)  # type: ignore[return-value]


@pytest.fixture
def run_id(store: Store) -> str:
    run = store.create_run("t1", task_json=_snapshot("t1"), agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=PRED, raw_text="[]"))
    return run.id


def test_valid_needs_a_supporting_ground_truth_triple(store, run_id):
    v = LabelView(run_id=run_id, annotator="ann", side="validity", gt=GT, pred=PRED)
    assert v.items == PRED and v.support == GT and v.words() == ("valid", "invalid")
    with pytest.raises(LabelRefused) as refused:
        record_label(_ctx(store), v, True, [5], "")
    assert str(refused.value) == NEEDS_GT_SUPPORT and store.pred_labels() == []
    record_label(_ctx(store), v, True, [0], "same")
    rows = store.pred_labels(run_id=run_id)
    assert [(r.pred_index, r.annotator, r.valid, json.loads(r.evidence_json), r.note) for r in rows] == [(0, "ann", True, [0], "same")]
    assert store.labels() == []  # the coverage side is untouched


def test_the_panel_queue_progress_and_adjudication(store, run_id):
    ctx = _ctx(store)
    create_campaign(store, "c", runs=[run_id], annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    assert lc.campaign_choices(ctx) == [("c · 1 runs · coverage, validity · k=2 · blind", "c")]
    assert lc.queue_next(ctx, "c", "ann") == Item(run_id, "coverage", 0)
    assert "not an annotator" in str(lc.queue_next(ctx, "c", "zed"))
    assert lc.queue_next(ctx, "", "ann") == "Pick a campaign first."
    store.put_pred_labels([{"run_id": run_id, "pred_index": 0, "annotator": "ann", "valid": True, "evidence": [0]},
                           {"run_id": run_id, "pred_index": 0, "annotator": "bob", "valid": False}])
    assert "disagreements waiting: 1" in lc.progress_md(ctx, "c", "ann")
    assert "ann: valid, bob: invalid" in lc.who_html(ctx, "c")
    [(label, key)] = lc.dispute_choices(ctx, "c")
    assert key == f"{run_id}/validity/0" and "ann=valid, bob=invalid" in label
    refused = lc.resolve(ctx, "c", key, "bob", True, "")
    assert refused.startswith("⚠") and "third person" in refused and store.adjudications() == []
    assert lc.resolve(ctx, "c", None, "cy", True, "").startswith("⚠ Pick a disagreement")
    done = lc.resolve(ctx, "c", key, "cy", True, "the page says so")
    assert done.startswith("Resolved validity #1") and "by cy" in done
    assert "resolved by cy: valid" in lc.dispute_choices(ctx, "c")[0][0]
    assert "disagreements waiting: 0" in lc.progress_md(ctx, "c", "cy")
