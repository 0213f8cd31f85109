"""Avg@N under the official profile: every task padded to N samples with 0 samples (the official
run grades a missing trace as an empty answer), in ``report`` and ``results export --official``;
N is ``--num-samples`` or, by default, the most samples any task of the configuration has (the
report says which); N smaller than a task's samples refused; our profile unchanged.

The stored scores are written by hand with known official records, so every number below is
worked out by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vibesearch.run import EndEvent, MessageEvent
from vibesearch.run.config import RunConfig
from vibesearch.scoring.aggregate import SampleCountError, collect_runs, official_summary, profile_groups, score_table
from vibesearch.judges.official_metrics import SampleResult
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow

JUDGE = "fake/hand-judge"
ZERO_SAMPLE = {"node_precision": 0.0, "node_recall": 0.0, "node_f1": 0.0, "triplet_precision": 0.0, "triplet_recall": 0.0,
               "triplet_f1": 0.0, "num_pred_triples": 0}


def snapshot(task_id: str) -> dict:
    stages = [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]
    return {"id": task_id, "subset": "pro", "language": "en", "extra": {}, "graph": [{"head": "A", "relation": "r", "tail": "B"}],
            "persona": {"background": "b", "initial_query": "q", "stages": stages}}


def add_run(store: Store, task_id: str, *, protocol: str = "official", status: str = "finished", agent_model: str = "fake/agent") -> str:
    run = store.create_run(task_id, task_json=snapshot(task_id), run_config=RunConfig(task_id=task_id, protocol=protocol),  # type: ignore[arg-type]
                           agent="react", agent_model=agent_model, user="rules", status=status,
                           termination="cancelled" if status == "cancelled" else "done")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, EndEvent(termination="cancelled" if status == "cancelled" else "done"))  # type: ignore[arg-type]
    return run.id


def add_official_score(store: Store, run_id: str, *, f1: float, p: float, r: float, node_f1: float) -> None:
    sample = SampleResult(qid="x", sample_idx=0, node_precision=node_f1, node_recall=node_f1, node_f1=node_f1,
                          triplet_precision=p, triplet_recall=r, triplet_f1=f1, num_pred_triples=2)
    store.add_score(ScoreRow(run_id=run_id, judge=JUDGE, precision=p, recall=r, f1=f1, n_gt=1, n_pred=2, n_covered=1, n_valid=1,
                             protocol="official", prompt_source="own prompts",
                             details_json=json.dumps({"protocol": "official", "official": sample.official_dict()})), [])


@pytest.fixture
def db(tmp_path):
    """Task A: two samples (F1 0.6 and 0.3); task B: one sample (F1 0.9) and a run a person
    cancelled. Another configuration holds one run scored under our profile."""
    path = tmp_path / "pad.db"
    store = Store(path)
    a0, a1, b0 = add_run(store, "A"), add_run(store, "A"), add_run(store, "B")
    add_official_score(store, a0, f1=0.6, p=0.5, r=0.75, node_f1=0.5)
    add_official_score(store, a1, f1=0.3, p=0.25, r=0.375, node_f1=0.2)
    add_official_score(store, b0, f1=0.9, p=1.0, r=0.8182, node_f1=0.8)
    add_run(store, "B", status="cancelled")
    ours = add_run(store, "A", protocol="vibesearch", agent_model="fake/other")
    store.add_score(ScoreRow(run_id=ours, judge=JUDGE, precision=0.5, recall=0.5, f1=0.5, n_gt=1, n_pred=1, n_covered=1, n_valid=1,
                             protocol="vibesearch"), [])
    return path


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def official_records(store: Store):
    records, _ = collect_runs(store, judge=JUDGE)
    (group,) = [recs for key, recs in profile_groups(records).items() if key[1] == "official"]
    return group


def test_padding_by_hand(db):
    recs = official_records(Store(db, read_only=True))
    # by default N = 2 (the most samples a task has): B's missing second sample (its cancelled run) is a 0
    plain = official_summary(recs)
    assert plain.n == 2 and plain.padded == {"B": 1} and len(plain.left_out) == 1
    # A: avg (0.6 + 0.3) / 2 = 0.45, best 0.6; B: (0.9 + 0) / 2 = 0.45, best 0.9 -> avg@2 0.45, best@2 0.75
    assert plain.official_dict()["avg@2_triplet_f1"] == 0.45 and plain.official_dict()["best@2_triplet_f1"] == 0.75

    padded = official_summary(recs, num_samples=3)
    head = padded.official_dict()
    # A: (0.6 + 0.3 + 0) / 3 = 0.3, best 0.6; B: (0.9 + 0 + 0) / 3 = 0.3 (its cancelled run is one of the zeros), best 0.9
    assert head["avg@3_triplet_f1"] == 0.3 and head["best@3_triplet_f1"] == 0.75
    assert (head["num_samples"], head["num_queries"]) == (3, 2)
    # precision: A (0.5 + 0.25) / 3 = 0.25, B 1.0 / 3 -> (0.25 + 0.3333) / 2 = 0.2917; best: (0.5 + 1.0) / 2
    assert head["avg@3_triplet_precision"] == 0.2917 and head["best@3_triplet_precision"] == 0.75
    # node F1: A (0.5 + 0.2) / 3, B 0.8 / 3 -> 0.25; Best@N takes the best-F1 sample's node F1: (0.5 + 0.8) / 2
    assert head["avg@3_node_f1"] == 0.25 and head["best@3_node_f1"] == 0.65
    assert padded.padded == {"A": 1, "B": 2}
    assert {q.qid: (q.num_samples, q.best_sample_idx) for q in padded.per_query} == {"A": (3, 0), "B": (3, 0)}

    with pytest.raises(SampleCountError, match=r"--num-samples 1 is smaller than the 2 samples task A has"):
        official_summary(recs, num_samples=1)


def test_score_table_pads_the_official_rows_only(db):
    store = Store(db, read_only=True)
    records, _ = collect_runs(store, judge=JUDGE)
    plain = {r["profile"]: r for r in score_table(records) if r["group"] == "all"}
    padded = {r["profile"]: r for r in score_table(records, num_samples=3) if r["group"] == "all"}
    official = padded["official protocol, own prompts"]
    assert (official["avg_f1"], official["best_f1"], official["n_runs"], official["padded"]) == (0.3, 0.75, 3, 3)
    assert (official["n_min"], official["n_max"], official["left_out"]) == (3, 3, 1)
    default = plain["official protocol, own prompts"]
    assert (default["n"], default["padded"], default["avg_f1"], default["n_from"]) == (2, 1, 0.45, "the most samples of any task")
    assert official["n_from"] == "--num-samples"
    ours = dict(padded["vibesearch profile"])
    assert ours.pop("padded") is None and ours == {k: v for k, v in plain["vibesearch profile"].items() if k != "padded"}  # ours: unchanged


def test_report_option(cli, db):
    before = json.loads(cli("report", "--format", "json", "--db", db).stdout)
    # without the option: N is the most samples of a task (2), B padded with one 0 sample, and the report says so
    assert before["num_samples"] is None and before["n_from"] == "the most samples of any task"
    (first,) = before["summary"]
    assert (first["num_samples"], first["n_from"], first["padded"], first["avg@2_triplet_f1"]) == (2, "the most samples of any task", {"B": 1}, 0.45)
    assert [(i["qid"], i["sample_idx"]) for i in before["per_item"] if i.get("padded")] == [("B", 1)]
    text = " ".join(cli("report", "--db", db).stdout.split())
    assert "N = the most samples any task of the configuration has" in text and "N = 2, 0 samples added B 1" in text

    out = cli("report", "--format", "json", "--num-samples", 3, "--db", db)
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    (summary,) = report["summary"]
    assert summary["avg@3_triplet_f1"] == 0.3 and summary["best@3_triplet_f1"] == 0.75
    assert (summary["padded"], summary["padded_total"], summary["left_out_cancelled"]) == ({"A": 1, "B": 2}, 3, 1)
    pads = [i for i in report["per_item"] if i.get("padded")]
    assert sorted((i["qid"], i["sample_idx"]) for i in pads) == [("A", 2), ("B", 1), ("B", 2)]
    assert all(i["run_id"] is None and {k: i[k] for k in ZERO_SAMPLE} == ZERO_SAMPLE for i in pads)
    assert len(report["per_item"]) == 6

    md = cli("report", "--num-samples", 3, "--db", db).stdout
    text = " ".join(md.split())
    assert "every task graded on N = 3 (--num-samples)" in text and "N = 3, 0 samples added A 1, B 2" in text
    assert "| padded |" in md

    refused = cli("report", "--num-samples", 1, "--db", db)
    assert refused.exit_code == 1
    assert len(refused.output.strip().splitlines()) == 1
    assert "--num-samples 1 is smaller than the 2 samples task A has" in refused.output
    assert cli("report", "--num-samples", 0, "--db", db).exit_code == 1


def test_results_export_writes_the_padded_samples(cli, db, tmp_path):
    out_dir = tmp_path / "eval"
    out = cli("results", "export", "--official", out_dir, "--num-samples", 3, "--db", db)
    assert out.exit_code == 0, out.output
    assert "padded with 0 samples: A: 1, B: 2" in " ".join(out.output.split())
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == ["A_sample0.json", "A_sample1.json", "A_sample2.json", "B_sample0.json", "B_sample1.json", "B_sample2.json",
                     "item_ratings.json", "per_query_scores.json", "summary.json"]
    assert json.loads((out_dir / "A_sample2.json").read_text()) == {"qid": "A", "sample_idx": 2, **ZERO_SAMPLE}
    assert json.loads((out_dir / "B_sample1.json").read_text()) == {"qid": "B", "sample_idx": 1, **ZERO_SAMPLE}
    assert json.loads((out_dir / "A_sample1.json").read_text())["triplet_f1"] == 0.3
    summary = json.loads((out_dir / "summary.json").read_text())
    assert (summary["avg@3_triplet_f1"], summary["best@3_triplet_f1"], summary["num_samples"]) == (0.3, 0.75, 3)
    assert summary["vibesearch"]["padded"] == {"A": 1, "B": 2} and summary["vibesearch"]["num_samples"] == 3
    ratings = json.loads((out_dir / "item_ratings.json").read_text())
    assert [(r["qid"], r["sample_idx"]) for r in ratings] == [("A", 0), ("A", 1), ("A", 2), ("B", 0), ("B", 1), ("B", 2)]
    per_query = {q["qid"]: q for q in json.loads((out_dir / "per_query_scores.json").read_text())}
    assert per_query["A"]["num_samples"] == 3 and per_query["A"]["avg"]["triplet_f1"] == pytest.approx(0.3)

    refused_dir = tmp_path / "refused"
    refused = cli("results", "export", "--official", refused_dir, "--num-samples", 1, "--db", db)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert "task A has" in refused.output and not refused_dir.exists()  # nothing written

    plain_dir = tmp_path / "plain"  # without the option: N = 2, B's missing sample written as a 0 sample
    assert cli("results", "export", "--official", plain_dir, "--db", db).exit_code == 0
    assert not (plain_dir / "A_sample2.json").exists()
    assert json.loads((plain_dir / "B_sample1.json").read_text()) == {"qid": "B", "sample_idx": 1, **ZERO_SAMPLE}
    plain = json.loads((plain_dir / "summary.json").read_text())
    assert plain["num_samples"] == 2 and plain["vibesearch"]["padded"] == {"B": 1}
    assert plain["vibesearch"]["n_from"] == "the most samples of any task"

