"""The official-shaped result folder."""

from __future__ import annotations

import json

from vibesearch.labels.official_export import write_official_results
from vibesearch.judges.official_metrics import (
    CoverageItem,
    CoverageResult,
    OfficialGroundTruth,
    aggregate_official,
    grade_sample,
)

GT = OfficialGroundTruth.from_record(
    {
        "nodes": [{"node_id": "a", "node_name": "Oslo"}, {"node_id": "b", "node_name": "Norway"}],
        "triples": [{"head_id": "a", "relation": "capital of", "tail_id": "b"}],
    }
)


def test_writes_the_official_files_and_keys(tmp_path):
    pred = [{"head": "Oslo", "relation": "capital of", "tail": "Norway"}]
    cov = CoverageResult.of([CoverageItem(gt_index=0, gt_triple=GT.triples[0], covered=True, supporting_pred_indices=[0])], 1)
    results = [grade_sample("task_7", 0, pred, GT, cov), grade_sample("task_7", 1, [], GT, None), grade_sample("a/b", 0, pred, GT, cov)]
    summary = aggregate_official(results, cancelled=[("task_7", 2)])
    files = write_official_results(tmp_path / "out", results, summary, prompt_source="own prompts")
    names = sorted(p.name for p in files)
    assert names == sorted(["task_7_sample0.json", "task_7_sample1.json", "a_b_sample0.json", "summary.json", "item_ratings.json", "per_query_scores.json"])

    one = json.loads((tmp_path / "out" / "task_7_sample0.json").read_text())
    assert one["qid"] == "task_7" and one["sample_idx"] == 0 and one["num_pred_triples"] == 1
    for key in ("triplet_precision", "triplet_recall", "triplet_f1", "node_precision", "node_recall", "node_f1"):
        assert one[key] == 1.0
    per = one["coverage_details"]["per_gt_triple"][0]
    assert per == {"gt_index": 0, "gt_triple": {"head": "Oslo", "relation": "capital of", "tail": "Norway"}, "covered": True, "supporting_pred_indices": [0]}
    assert "coverage_details" not in json.loads((tmp_path / "out" / "task_7_sample1.json").read_text())

    head = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert head["avg@2_triplet_f1"] == 0.75  # task_7: (1 + 0) / 2; a/b: 1
    assert head["best@2_node_recall"] == 1.0
    assert head["num_queries"] == 2 and head["num_samples"] == 2
    assert head["vibesearch"] == {
        "protocol": "official", "prompt_source": "own prompts", "left_out_cancelled": 1,
        "left_out_runs": [{"qid": "task_7", "sample_idx": 2}],
        "num_samples": 2, "n_from": "the most samples of any task", "padded": {}, "padded_total": 0,
    }
    assert len(json.loads((tmp_path / "out" / "item_ratings.json").read_text())) == 3
    per_query = json.loads((tmp_path / "out" / "per_query_scores.json").read_text())
    assert [q["qid"] for q in per_query] == ["a/b", "task_7"] and per_query[1]["avg"]["triplet_f1"] == 0.5
