"""The official metrics on hand-worked examples."""

from __future__ import annotations

import pytest

from vibesearch.judges.official_metrics import (
    CoverageItem,
    CoverageResult,
    GTTriple,
    OfficialGroundTruth,
    aggregate_official,
    grade_sample,
)

# Ground truth: 4 nodes (one of them, "Lyon", in no triple), 3 triples.
GT = OfficialGroundTruth.from_record(
    {
        "nodes": [
            {"node_id": 1, "node_name": "Paris"},
            {"node_id": 2, "node_name": "France"},
            {"node_id": 3, "node_name": "Berlin"},
            {"node_id": 4, "node_name": "Lyon"},
        ],
        "triples": [
            {"head_id": 1, "relation": "capital of", "tail_id": 2},
            {"head_id": 3, "relation": "capital of", "tail_id": 9},  # unknown id: its id is its name
            {"head_id": 4, "relation": "located in", "tail_id": 2},
        ],
    }
)


def item(i: int, covered: bool, support: list[int]) -> CoverageItem:
    t = GT.triples[i]
    return CoverageItem(gt_index=i, gt_triple=t, covered=covered, supporting_pred_indices=support)


def test_ground_truth_from_a_record():
    assert GT.node_names == {"Paris", "France", "Berlin", "Lyon"}
    assert GT.triples[1] == GTTriple(head="Berlin", relation="capital of", tail="9")


def test_precision_counts_duplicates_in_the_denominator():
    # the same triple predicted twice; the judge cites only the first copy
    pred = [{"head": "Paris", "relation": "capital", "tail": "France"}] * 2 + [{"head": "Rome", "relation": "in", "tail": "Italy"}]
    cov = CoverageResult.of([item(0, True, [0]), item(1, False, []), item(2, False, [])], 3)
    r = grade_sample("q", 0, pred, GT, cov)
    assert r.triplet_precision == round(1 / 3, 4) == 0.3333
    assert r.triplet_recall == round(1 / 3, 4)
    assert r.num_pred_triples == 3
    # F1 from the rounded recall and the unrounded precision, then rounded
    assert r.triplet_f1 == round(2 * (1 / 3) * 0.3333 / ((1 / 3) + 0.3333), 4)


def test_support_listed_on_uncovered_items_counts_for_precision():
    pred = [{"head": "a", "relation": "r", "tail": "b"}, {"head": "c", "relation": "r", "tail": "d"}, {"head": "e", "relation": "r", "tail": "f"}, {"head": "g", "relation": "r", "tail": "h"}]
    cov = CoverageResult.of([item(0, True, [0, 1]), item(1, False, [1, 2]), item(2, False, [])], 3)
    r = grade_sample("q", 0, pred, GT, cov)
    assert r.triplet_precision == 0.75  # {0, 1, 2} of 4, though 2 supports nothing covered
    assert r.triplet_recall == 0.3333


def test_an_index_past_the_predictions_still_counts_for_precision():
    pred = [{"head": "a", "relation": "r", "tail": "b"}, {"head": "c", "relation": "r", "tail": "d"}]
    cov = CoverageResult.of([item(0, True, [0, 7]), item(1, False, []), item(2, False, [])], 3)
    assert grade_sample("q", 0, pred, GT, cov).triplet_precision == 1.0  # |{0, 7}| / 2, as the official code


def test_node_metrics_from_the_coverage():
    pred = [
        {"head": "Paris", "relation": "capital of", "tail": "France"},
        {"head": "Paris", "relation": "population", "tail": "2.1 million"},
        {"head": "Lyon", "relation": "in", "tail": "France"},
        {"head": "", "relation": "odd", "tail": "Nice"},
    ]
    # GT-0 covered by P-0; GT-2 not covered but P-2 cited on it
    cov = CoverageResult.of([item(0, True, [0]), item(1, False, []), item(2, False, [2])], 3)
    r = grade_sample("q", 0, pred, GT, cov)
    d = r.node_details
    assert d is not None
    # GT nodes recalled: Paris, France (covered GT-0) of {Paris, France, Berlin, Lyon}
    assert (d.recalled_gt_nodes, d.total_gt_nodes, r.node_recall) == (2, 4, 0.5)
    # predicted nodes: {Paris, France, 2.1 million, Lyon, Nice}; supporting P-0, P-2 give {Paris, France, Lyon}
    assert (d.precise_pred_nodes, d.total_pred_nodes, r.node_precision) == (3, 5, 0.6)
    assert r.node_f1 == round(2 * 0.6 * 0.5 / 1.1, 4)


def test_no_predictions_scores_zero_without_details():
    r = grade_sample("q", 2, [], GT, None)
    assert r.official_dict() == {
        "qid": "q", "sample_idx": 2,
        "node_precision": 0.0, "node_recall": 0.0, "node_f1": 0.0,
        "triplet_precision": 0.0, "triplet_recall": 0.0, "triplet_f1": 0.0,
        "num_pred_triples": 0,
    }
    with pytest.raises(ValueError):
        grade_sample("q", 0, [{"head": "a"}], GT, None)


def test_official_key_order():
    pred = [{"head": "Paris", "relation": "capital of", "tail": "France"}]
    r = grade_sample("q", 0, pred, GT, CoverageResult.of([item(0, True, [0]), item(1, False, []), item(2, False, [])], 3))
    assert list(r.official_dict()) == [
        "qid", "sample_idx", "node_precision", "node_recall", "node_f1", "node_details",
        "triplet_precision", "triplet_recall", "triplet_f1", "coverage_details", "num_pred_triples",
    ]
    per = r.official_dict()["coverage_details"]["per_gt_triple"][0]
    assert per == {"gt_index": 0, "gt_triple": {"head": "Paris", "relation": "capital of", "tail": "France"}, "covered": True, "supporting_pred_indices": [0]}


def s(qid: str, idx: int, **metrics: float):
    from vibesearch.judges.official_metrics import SampleResult

    return SampleResult(qid=qid, sample_idx=idx, num_pred_triples=1, **metrics)


def test_best_at_n_takes_every_metric_from_the_best_f1_run():
    runs = [
        s("a", 0, triplet_precision=0.9, triplet_recall=0.1, triplet_f1=0.18, node_recall=0.9),
        s("a", 1, triplet_precision=0.4, triplet_recall=0.5, triplet_f1=0.4444, node_recall=0.2),
        s("a", 2, triplet_precision=0.2, triplet_recall=0.6, triplet_f1=0.3, node_recall=0.3),
    ]
    summary = aggregate_official(runs)
    assert summary.n == 3
    assert summary.best["triplet_f1"] == 0.4444
    assert summary.best["triplet_precision"] == 0.4  # not the best precision (0.9)
    assert summary.best["triplet_recall"] == 0.5  # not the best recall (0.6)
    assert summary.best["node_recall"] == 0.2
    assert summary.per_query[0].best_sample_idx == 1
    assert summary.avg["triplet_precision"] == 0.5
    # a tie keeps the first sample
    tie = aggregate_official([s("b", 0, triplet_f1=0.5, triplet_recall=0.1), s("b", 1, triplet_f1=0.5, triplet_recall=0.9)])
    assert tie.best["triplet_recall"] == 0.1


def test_a_zero_triple_run_is_averaged_in_and_a_cancelled_run_left_out():
    runs = [
        s("a", 0, triplet_f1=0.6),
        grade_sample("a", 1, [], GT, None),  # ended with no parsable graph: scores 0
        s("b", 0, triplet_f1=0.3),
    ]
    summary = aggregate_official(runs, cancelled=[("b", 1)])
    # task a: (0.6 + 0) / 2 = 0.3; task b: 0.3 (its cancelled run is not a sample)
    assert summary.avg["triplet_f1"] == 0.3
    assert summary.best["triplet_f1"] == round((0.6 + 0.3) / 2, 4)
    assert summary.n == 2 and summary.num_queries == 2
    assert summary.left_out == [("b", 1)]
    head = summary.official_dict()
    assert list(head)[:2] == ["avg@2_node_precision", "best@2_node_precision"]
    assert head["avg@2_triplet_f1"] == 0.3 and head["best@2_node_recall"] == 0.0
    assert head["num_queries"] == 2 and head["num_samples"] == 2


def test_ground_truth_from_a_task_uses_every_head_and_tail():
    import json
    from pathlib import Path

    from vibesearch.tasks import Task

    path = Path(__file__).resolve().parents[2] / "personas" / "daily-en-japan-heritage-trip.json"
    task = Task.model_validate(json.loads(path.read_text(encoding="utf-8")))
    truth = OfficialGroundTruth.from_task(task)
    assert [(t.head, t.relation, t.tail) for t in truth.triples] == [(t.head, t.relation, t.tail) for t in task.graph]
    assert truth.node_names == {n for t in task.graph for n in (t.head, t.tail)}
