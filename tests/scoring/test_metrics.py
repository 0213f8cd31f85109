import json

import pytest
from scoring_helpers import T

from vibesearch.scoring import NoGroundTruth, compute_metrics, score_graph, score_run, stored_verdicts
from vibesearch.judges.verdicts import Verdict
from vibesearch.run import EndEvent, MessageEvent


def V(i, covered, evidence=()):
    return Verdict(gt_index=i, covered=covered, evidence=list(evidence))


def test_precision_recall_f1_by_hand():
    # 4 GT triples, 3 covered; 5 predicted, evidence {0, 1, 3} -> 3 valid
    vs = [V(0, True, [0]), V(1, True, [1, 3]), V(2, False), V(3, True, [0])]
    m = compute_metrics(vs, n_gt=4, n_pred=5)
    assert (m.n_covered, m.n_valid) == (3, 3)
    assert m.recall == pytest.approx(0.75)
    assert m.precision == pytest.approx(0.6)
    assert m.f1 == pytest.approx(2 * 0.6 * 0.75 / 1.35)


def test_evidence_of_uncovered_triples_does_not_make_predictions_valid():
    m = compute_metrics([V(0, False, [0]), V(1, True, [1])], n_gt=2, n_pred=2)
    assert m.n_valid == 1 and m.precision == 0.5


def test_empty_prediction_and_empty_ground_truth():
    m = compute_metrics([V(0, False), V(1, False)], n_gt=2, n_pred=0)
    assert (m.precision, m.recall, m.f1) == (0.0, 0.0, 0.0)
    m = compute_metrics([], n_gt=0, n_pred=3)
    assert (m.precision, m.recall, m.f1, m.n_gt) == (0.0, 0.0, 0.0, 0)
    s = score_graph([T("a", "b", "c")], [])
    assert s.metrics.n_pred == 0 and s.verdicts[0].covered is False


def test_unscored_triples_leave_the_recall_denominator():
    m = compute_metrics([V(0, True, [0]), V(1, None), V(2, None), V(3, False)], n_gt=4, n_pred=2)
    assert m.n_unscored == 2
    assert m.recall == pytest.approx(0.5)  # 1 of the 2 scored
    assert m.precision == pytest.approx(0.5)


def test_duplicate_predictions_count_once_and_evidence_points_at_the_first_copy():
    gt = [T("Phobos", "discovered by", "Asaph Hall")]
    pred = [T("Mars", "has moon", "Deimos"), T("Phobos", "discovered by", "Asaph Hall"), T("phobos", "Discovered by", "Asaph Hall."), T("x", "y", "z")]
    s = score_graph(gt, pred)
    assert s.metrics.n_pred == 3  # the second Phobos triple is a duplicate
    assert s.details["duplicates_removed"] == 1 and s.details["n_pred_raw"] == 4
    assert s.verdicts[0].evidence == [1]
    assert s.metrics.precision == pytest.approx(1 / 3)


def test_score_run_stores_score_and_verdicts(store, make_run):
    gt = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000")]
    pred = [T("Star Alliance", "founding year", "1997"), T("Oneworld", "founded in", "1999")]
    rid = make_run(store, gt, pred)
    row = score_run(store, rid)
    assert row.judge == "offline" and row.graph_id is not None
    assert (row.n_gt, row.n_pred, row.n_covered, row.n_valid) == (2, 2, 1, 1)
    assert row.f1 == pytest.approx(0.5)
    details = json.loads(row.details_json)
    assert details["judge_label"] == "offline judge"
    vs = stored_verdicts(store, row.id)
    assert [(v.gt_index, v.covered, v.evidence, v.rule) for v in vs] == [(0, True, [0], 1), (1, False, [], None)]


def test_a_run_without_a_graph_scores_zero(store, make_run):
    rid = make_run(store, [T("a", "b", "c")], pred=None)
    row = score_run(store, rid)
    assert (row.precision, row.recall, row.f1, row.n_pred, row.graph_id) == (0.0, 0.0, 0.0, 0, None)
    assert json.loads(row.details_json)["note"] == "the run has no graph"


def test_a_run_without_ground_truth_is_refused(store):
    run = store.create_run("x", task_json={"id": "x", "graph": []}, source="imported")
    with pytest.raises(NoGroundTruth, match="--task"):
        score_run(store, run.id)


def test_table_runs_are_delegated_to_the_table_scorer(store):
    from vibesearch.tables import get_table_task, gold_markdown, table_task_to_task

    tt = get_table_task("galilean-moons")
    task = table_task_to_task(tt)
    run = store.create_run(task.id, task_json=task.model_dump(mode="json"), kind="table", status="finished")
    store.append(run.id, MessageEvent(role="user", content=task.persona.initial_query))
    store.append(run.id, MessageEvent(role="assistant", content=gold_markdown(tt), final=True))
    store.append(run.id, EndEvent(termination="answer"))
    row = score_run(store, run.id)
    assert row.f1 == 1.0 and json.loads(row.details_json)["kind"] == "table"
