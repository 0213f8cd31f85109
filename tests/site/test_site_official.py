"""A site of runs scored under the official profile: its results.json holds the official summary
and per-item records as `vibesearch report` gives them, a cancelled run is counted as left out,
and `site verify` recomputes each official sample's triplet metrics from its coverage details."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from vibesearch.run import EndEvent, MessageEvent
from vibesearch.run.config import RunConfig
from vibesearch.judges.official_metrics import CoverageItem, CoverageResult, GTTriple, OfficialGroundTruth, grade_sample
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow

JUDGE = "fake/official-hand-judge"
GT = [{"head": "A", "relation": "r", "tail": "B"}, {"head": "B", "relation": "s", "tail": "C"}, {"head": "C", "relation": "t", "tail": "D"}]


def _snapshot(task_id: str) -> dict:
    stages = [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]
    return {"id": task_id, "subset": "pro", "language": "en", "extra": {}, "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": stages}}


def _run(store: Store, task_id: str, status: str = "finished", n_pred: int = 0) -> str:
    """A run whose extraction answer (the message the official grader grades) lists the first
    ``n_pred`` ground-truth triples."""
    end = "cancelled" if status == "cancelled" else "done"
    run = store.create_run(task_id, task_json=_snapshot(task_id), run_config=RunConfig(task_id=task_id, protocol="official"),
                           agent="react", agent_model="fake/agent", user="rules", status=status, termination=end)
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
    if n_pred:
        store.append(run.id, MessageEvent(role="user", content="the triples, please", phase="extraction"))
        store.append(run.id, MessageEvent(role="assistant", content=json.dumps(GT[:n_pred]), phase="extraction"))
    store.append(run.id, EndEvent(termination=end))  # type: ignore[arg-type]
    return run.id


def _answer_seq(store: Store, run_id: str) -> int:
    return [e.seq for e in store.events(run_id) if e.kind == "message" and e.data.role == "assistant"][-1]


def _score(store: Store, run_id: str, task_id: str, covered: list[bool], n_pred: int) -> None:
    gt = OfficialGroundTruth.from_record({"nodes": [{"node_id": n, "node_name": n} for n in "ABCD"],
                                          "triples": [{"head_id": t["head"], "relation": t["relation"], "tail_id": t["tail"]} for t in GT]})
    items = [CoverageItem(gt_index=i, gt_triple=GTTriple(**GT[i]), covered=c, supporting_pred_indices=[i] if c else []) for i, c in enumerate(covered)]
    pred = [dict(GT[i]) for i in range(n_pred)]
    sample = grade_sample(task_id, 0, pred, gt, CoverageResult.of(items, len(GT)))
    store.add_score(ScoreRow(run_id=run_id, judge=JUDGE, precision=sample.triplet_precision, recall=sample.triplet_recall,
                             f1=sample.triplet_f1, n_gt=len(GT), n_pred=n_pred, n_covered=sum(covered), n_valid=sum(covered),
                             protocol="official", prompt_source="own prompts",
                             details_json=json.dumps({"protocol": "official", "official": sample.official_dict(),
                                                      "graded_message": {"phase": "extraction", "seq": _answer_seq(store, run_id)}})), [])


@pytest.fixture(scope="module")
def official_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("official")
    store = Store(folder / "o.db")
    for task_id, covered, n_pred in [("ta", [True, True, False], 3), ("ta", [True, False, False], 2), ("tb", [True, True, True], 3)]:
        _score(store, _run(store, task_id, n_pred=n_pred), task_id, covered, n_pred)
    _run(store, "tb", status="cancelled")
    from vibesearch.site import build_site

    out = folder / "site"
    build_site(store, out, judge=JUDGE)
    return store, out


def test_the_official_summary_is_the_reports(official_site):
    from vibesearch.reports import build_report

    store, out = official_site
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    report = build_report(store, judge=JUDGE)
    assert results["summary"] == report["summary"] and results["per_item"] == report["per_item"]
    # three samples, and tb's cancelled run is a 0 sample padding tb to N = 2
    assert len(results["per_item"]) == 4 and results["summary"][0]["left_out_cancelled"] == 1
    assert [(i["qid"], i["sample_idx"]) for i in results["per_item"] if i.get("padded")] == [("tb", 1)]
    assert {x["reason"] for x in results["left_out"]} and len(results["left_out"]) == 1
    row = next(r for r in results["scores"] if r["group"] == "all")
    assert row["avg_node_f1"] is not None and row["left_out"] == 1
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="left-out"' in index and "Best node F1" in index


def test_verify_recomputes_the_official_samples(cli, official_site, tmp_path):
    _store, out = official_site
    assert cli("site", "verify", out).exit_code == 0
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    rel = next(r["sample_file"] for r in results["runs"] if r["scored_under"])
    data = json.loads((copy / rel).read_text(encoding="utf-8"))
    data["records"][0]["record"]["official"]["triplet_f1"] = 0.4242
    (copy / rel).write_text(json.dumps(data), encoding="utf-8")
    res = cli("site", "verify", copy)
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert rel in res.output and "official.triplet_f1" in res.output and "coverage details give" in res.output


@pytest.mark.parametrize("edit, needle", [
    (lambda entry: entry["record"]["official"].update(node_recall=0.1234), "official.node_recall is 0.1234, the graded answer gives"),
    # a changed prediction count already changes the triplet precision its coverage details give
    (lambda entry: entry["record"]["official"].update(num_pred_triples=7), "official.triplet_precision is 1.0, its coverage details give"),
    (lambda entry: entry["graded_answer"].update(text="[]"), "graded_answer.text is not the run's assistant message"),
])
def test_verify_recomputes_the_official_node_metrics_from_the_graded_answer(cli, official_site, tmp_path, edit, needle):
    """The node metrics come from the answer the grader parsed (bundled with the sample and checked
    against the run's events), the task's official nodes and the coverage details."""
    _store, out = official_site
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    rel = next(r["sample_file"] for r in results["runs"] if r["scored_under"])
    data = json.loads((copy / rel).read_text(encoding="utf-8"))
    entry = data["records"][0]
    assert entry["graded_answer"]["text"].startswith("[") and entry["record"]["official"]["node_recall"] > 0
    edit(entry)
    (copy / rel).write_text(json.dumps(data), encoding="utf-8")
    res = cli("site", "verify", copy)
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert rel in res.output and needle in res.output, res.output


def test_the_people_and_simulator_study_is_tabled(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fidelity_runs import person_run, simulator_run

    from vibesearch.site import build_site

    store = Store(tmp_path / "f.db")
    for task_id, f1_person, f1_sim in [("ta", 0.6, 0.4), ("tb", 0.5, 0.45)]:
        person_run(store, task_id, f1_person)
        simulator_run(store, task_id, f1_sim)
    results = build_site(store, tmp_path / "site")
    assert results["fidelity"]["simulators"][0]["people_runs"] == 2
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    start = index.index('id="fidelity"')
    table = index[start:index.index("</table>", start)]
    assert "rules" in table and "+0.12" in table  # F1 with people minus with the simulator, averaged over the two tasks
    # verify's step for the people's figures recomputes the study from rows.json and the bundled
    # events (these hand-made scores have no verdicts, so the whole verify stops earlier, at the
    # samples): it holds on the fresh site, and a person's decision changed in one run's events
    # is caught by the agreement it gives
    from vibesearch.site.bundle import rebuild_records
    from vibesearch.site.verify import Mismatch, _check_people

    out = tmp_path / "site"
    records = [rec for r in results["runs"] for rec in rebuild_records(
        json.loads((out / r["sample_file"]).read_text(encoding="utf-8")), json.loads(gzip.decompress((out / r["events_file"]).read_bytes())))]
    assert _check_people(out, results, records)["fidelity"] == results["fidelity"]
    person = next(r for r in results["runs"] if r["run_config"]["user"]["kind"] == "human")
    path = out / person["events_file"]
    events = json.loads(gzip.decompress(path.read_bytes()))
    stage = next(e for e in events if e["data"]["kind"] == "stage" and e["data"].get("shadow"))
    stage["data"]["reply_kind"] = "push" if stage["data"]["reply_kind"] != "push" else "disclose"
    path.write_bytes(gzip.compress(json.dumps(events).encode()))
    with pytest.raises(Mismatch, match=r"fidelity.*recomputed from rows\.json"):
        _check_people(out, results, records)


def test_the_official_graders_folder_is_bundled_and_checked(cli, official_site, tmp_path):
    _store, out = official_site
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    [folder] = results["official_folders"]
    summary = json.loads((out / folder / "summary.json").read_text(encoding="utf-8"))
    assert summary["num_queries"] == 2 and summary["vibesearch"]["left_out_cancelled"] == 1
    assert sorted(p.name for p in (out / folder).glob("*_sample*.json")) == ["ta_sample0.json", "ta_sample1.json", "tb_sample0.json",
                                                                           "tb_sample1.json"]  # tb padded to N = 2
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    path = copy / folder / "summary.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    key = next(k for k in data if k.startswith("avg@"))
    data[key] = 0.111
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    res = cli("site", "verify", copy)
    assert res.exit_code == 1 and f"{folder}/summary.json" in res.output and key in res.output, res.output
