"""The official profile wired into scoring and every output: ``vibesearch score`` (following the
run's profile, or ``--protocol``), the stored score, Avg@N / Best@N with failed and cancelled
runs, ``report`` (every format), ``results export --official`` and the leaderboard.

The judge is a fake model behind litellm that answers in the official output format."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.run.config import RunConfig
from vibesearch.store import Store

STAND_IN = Path(__file__).resolve().parents[1] / "data" / "official_harness"
PREV_RELEASE = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"
P_LINE = re.compile(r'^P-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
GT_LINE = re.compile(r'^GT-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
OUR_LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.MULTILINE)  # our profile's layout

GT = [{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"}, {"head": "E", "relation": "r", "tail": "F"}]
# the strict parse reads the fenced array (two copies of A-r-B); our parser also read C-r-D from the prose
ANSWER = '```json\n[{"head": "A", "relation": "r", "tail": "B"}, {"head": "A", "relation": "r", "tail": "B"}]\n```\nalso C r D'
LENIENT_GRAPH = [{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"}]


def T(h: str, r: str, t: str) -> dict[str, str]:
    return {"head": h, "relation": r, "tail": t}


def snapshot(task_id: str) -> dict[str, Any]:
    stages = [{"name": f"s{i}", "trigger": {"kind": "start" if i == 0 else "mentions", "condition": "c"}, "line": "l"} for i in range(2)]
    return {"id": task_id, "subset": "pro", "language": "en", "extra": {}, "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": stages}}


def make_run(store: Store, *, protocol: str = "official", answer: str | None = ANSWER, status: str = "finished",
             termination: str = "done", task_id: str = "t1", graph: list[dict[str, str]] | None = None,
             meta: dict[str, Any] | None = None) -> str:
    """A stored run: opening, one reply, the user's [DONE], then (with ``answer``) the extraction."""
    cfg = RunConfig(task_id=task_id, protocol=protocol)  # type: ignore[arg-type]
    run = store.create_run(task_id, task_json=snapshot(task_id), run_config=cfg, agent="react", agent_model="fake/agent",
                           user="rules", status=status, termination=termination, meta=meta)
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
    if answer is not None:
        store.append(run.id, MessageEvent(role="user", content="[DONE]"))
        store.append(run.id, MessageEvent(role="user", content="list every triple", phase="extraction"))
        store.append(run.id, MessageEvent(role="assistant", content=answer, phase="extraction", final=True))
        store.append(run.id, GraphEvent(triples=graph if graph is not None else LENIENT_GRAPH, raw_text=answer))
    store.append(run.id, EndEvent(termination=termination))  # type: ignore[arg-type]
    return run.id


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def judge(fake) -> str:
    """Covered when a prediction has the ground-truth triple's head and tail; the official format."""

    def handler(req):
        prompt = req.last_user
        ours = OUR_LINE.findall(prompt)
        if ours:  # scored under our profile (--protocol vibesearch): our layout's answer
            preds = {(h, t): int(i) for kind, i, h, _r, t in ours if kind == "P"}
            return fake.Reply(content=json.dumps({"verdicts": [
                {"index": int(i), "covered": (h, t) in preds, "evidence": [preds[(h, t)]] if (h, t) in preds else []}
                for kind, i, h, _r, t in ours if kind == "R"]}))
        first: dict[tuple[str, str], int] = {}
        for i, h, _r, t in P_LINE.findall(prompt):
            first.setdefault((h, t), int(i))
        results = []
        for i, h, _r, t in GT_LINE.findall(prompt):
            hit = first.get((h, t))
            results.append({"index": int(i), "covered": hit is not None, "supporting_pred_indices": [] if hit is None else [hit]})
        return fake.Reply(content="<think>checking</think>" + json.dumps({"results": results}), input_tokens=100, output_tokens=20)

    return fake.register("official-score-judge", handler)


def test_score_follows_the_runs_profile_end_to_end(cli, tmp_db, judge):
    store = Store(tmp_db)
    rid = make_run(store)
    out = cli("score", rid, "--judge", judge, "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)[0]
    assert (row["protocol"], row["prompt_source"], row["profile"]) == ("official", "own prompts", "official protocol, own prompts")
    # strict parse: 2 predictions (the duplicate kept), support {0}: P = 1/2, R = 1/3, F1 = 0.4
    assert (row["precision"], row["recall"], row["f1"], row["n_pred"], row["n_gt"]) == (0.5, 0.3333, 0.4, 2, 3)
    assert (row["node_precision"], row["node_recall"], row["node_f1"]) == (1.0, 0.3333, 0.5)

    score = store.scores(rid)[-1]
    assert (score.protocol, score.prompt_source, score.n_unscored) == ("official", "own prompts", 0)
    details = score.details()
    assert details["official"]["coverage_details"]["per_gt_triple"][0]["supporting_pred_indices"] == [0]
    assert details["judge"]["layout"] == "official" and details["judge"]["n_batches"] == 3
    # what our parser read beyond the strict parse is a note, not a score
    assert details["parse"]["lenient_only_count"] == 1 and details["parse"]["lenient_only"] == [T("C", "r", "D")]
    assert "not scored" in details["parse"]["note"]
    verdicts = store.verdicts(score.id)  # evidence points into the run's stored graph
    assert [(v.covered, json.loads(v.evidence_json)) for v in verdicts] == [(True, [0]), (False, []), (False, [])]

    text = " ".join(cli("score", rid, "--judge", judge, "--db", tmp_db).stdout.split())
    assert "under the official protocol, own prompts" in text and "strict parse: 2 predictions" in text


def test_protocol_option_overrides_and_harness_names_the_prompt_source(cli, tmp_db, judge):
    store = Store(tmp_db)
    ours = make_run(store, protocol="vibesearch")
    assert cli("score", ours, "--db", tmp_db).exit_code == 0  # our profile: the offline judge, as before
    assert store.scores(ours)[-1].protocol == "vibesearch"
    out = cli("score", ours, "--protocol", "official", "--official-harness", STAND_IN, "--judge", judge, "--db", tmp_db)
    assert out.exit_code == 0, out.output
    score = store.scores(ours)[-1]
    assert score.protocol == "official" and score.prompt_source is not None
    assert score.prompt_source.startswith("official prompts (agent/general_agent.py sha256 ")
    assert score.details()["prompt_source"]["kind"] == "official"

    refused = cli("score", ours, "--protocol", "official", "--db", tmp_db)  # the offline judge
    assert refused.exit_code == 1 and "judged by an LLM in the official layout" in " ".join(refused.output.split())
    # a run played with our prompts, judged with the checkout's: the label names both
    mixed = make_run(store, meta={"prompt_source": "own prompts"})
    assert cli("score", mixed, "--official-harness", STAND_IN, "--judge", judge, "--db", tmp_db).exit_code == 0
    label = store.scores(mixed)[-1].prompt_source or ""
    assert label.startswith("run: own prompts; judge: official prompts (")
    bad = cli("score", ours, "--protocol", "paper", "--db", tmp_db)
    assert bad.exit_code != 0 and "--protocol must be official or vibesearch" in bad.output
    missing = cli("score", ours, "--protocol", "official", "--official-harness", tmp_db.parent, "--judge", judge, "--db", tmp_db)
    assert missing.exit_code == 1 and "agent/prompts.py" in " ".join(missing.output.split())


def test_failed_run_counts_zero_and_cancelled_run_is_left_out(cli, tmp_db, judge, tmp_path):
    store = Store(tmp_db)
    good = make_run(store)
    failed = make_run(store, answer=None, status="failed", termination="error")
    cancelled = make_run(store, answer=None, status="cancelled", termination="cancelled")
    out = cli("score", "--all", "--judge", judge, "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    scored = {r["run_id"]: r for r in json.loads(out.stdout)}
    assert set(scored) == {good, failed}  # --all under the official profile scores failed runs too
    assert (scored[failed]["f1"], scored[failed]["n_pred"], scored[failed]["n_gt"]) == (0.0, 0, 3)
    assert "no extraction answer" in store.scores(failed)[-1].details()["note"]
    again = cli("score", cancelled, "--judge", judge, "--db", tmp_db)
    assert again.exit_code == 1 and "not a sample" in " ".join(again.output.split()) and not store.scores(cancelled)

    report = json.loads(cli("report", "--format", "json", "--db", tmp_db).stdout)
    (summary,) = report["summary"]
    # the failed run is a 0 sample averaged in; Best@2 takes every metric from the best-F1 run
    assert summary["avg@2_triplet_f1"] == 0.2 and summary["best@2_triplet_f1"] == 0.4
    assert summary["best@2_node_f1"] == 0.5 and summary["avg@2_triplet_precision"] == 0.25
    assert (summary["num_queries"], summary["num_samples"], summary["left_out_cancelled"]) == (1, 2, 1)
    assert summary["profile"] == "official protocol, own prompts" and summary["prompt_source"] == "own prompts"
    assert sorted((i["run_id"], i["sample_idx"]) for i in report["per_item"]) == sorted([(good, 0), (failed, 1)])
    assert all({"qid", "triplet_f1", "node_f1", "num_pred_triples"} <= set(i) for i in report["per_item"])
    assert [r["run_id"] for r in report["left_out"]] == [cancelled]
    (row,) = [r for r in report["scores"] if r["group"] == "all"]
    assert (row["profile"], row["left_out"], row["avg_f1"], row["best_f1"], row["n_runs"]) == ("official protocol, own prompts", 1, 0.2, 0.4, 2)

    md = cli("report", "--db", tmp_db).stdout
    assert "official protocol, own prompts" in md and "Left out (not samples): 1 run(s) cancelled by a person" in md
    assert cancelled in md
    csv_text = cli("report", "--format", "csv", "--db", tmp_db).stdout
    assert "# official_summary" in csv_text and "avg@2_triplet_f1" in csv_text


def test_results_export_writes_the_official_files(cli, tmp_db, judge, tmp_path):
    store = Store(tmp_db)
    good = make_run(store)
    make_run(store, answer=None, status="failed", termination="error")
    make_run(store, answer=None, status="cancelled", termination="cancelled")
    none = cli("results", "export", "--official", tmp_path / "empty", "--db", tmp_db)
    assert none.exit_code == 1 and "no run is scored under the official profile" in none.output
    assert cli("score", "--all", "--judge", judge, "--db", tmp_db).exit_code == 0

    out_dir = tmp_path / "official"
    out = cli("results", "export", "--official", out_dir, "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in out_dir.iterdir()) == ["item_ratings.json", "per_query_scores.json", "summary.json", "t1_sample0.json", "t1_sample1.json"]
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["avg@2_triplet_f1"] == 0.2 and summary["best@2_node_recall"] == 0.3333
    assert (summary["num_queries"], summary["num_samples"]) == (1, 2)
    assert summary["vibesearch"] == {"protocol": "official", "prompt_source": "own prompts", "left_out_cancelled": 1,
                                     "left_out_runs": [{"qid": "t1", "sample_idx": 0}],
                                     "num_samples": 2, "n_from": "the most samples of any task", "padded": {}, "padded_total": 0}
    sample = json.loads((out_dir / "t1_sample0.json").read_text())
    assert sample["qid"] == "t1" and sample["triplet_f1"] == 0.4 and sample["num_pred_triples"] == 2
    item = sample["coverage_details"]["per_gt_triple"][0]
    assert item == {"gt_index": 0, "gt_triple": T("A", "r", "B"), "covered": True, "supporting_pred_indices": [0]}
    assert json.loads((out_dir / "t1_sample1.json").read_text())["triplet_f1"] == 0.0  # the failed run
    assert good in store.scores(good)[-1].run_id
    # a site of these runs: verify parses each graded answer again for the node metrics
    site = tmp_path / "site"
    built = cli("site", "build", site, "--db", tmp_db, "--judge", judge)
    assert built.exit_code == 0, built.output
    checked = cli("site", "verify", site)
    assert checked.exit_code == 0, checked.output


def test_both_profiles_are_named_and_never_mixed(cli, tmp_db, judge):
    from vibesearch.app.leaderboard import SCORE_HEADERS, tables
    from vibesearch.scoring import collect_runs, score_table

    store = Store(tmp_db)
    rid = make_run(store)
    assert cli("score", rid, "--judge", judge, "--db", tmp_db).exit_code == 0
    assert cli("score", rid, "--judge", judge, "--protocol", "vibesearch", "--db", tmp_db).exit_code == 0
    records, used = collect_runs(store)
    assert used == judge and sorted(r.profile for r in records) == ["official protocol, own prompts", "vibesearch profile"]
    rows = {r["profile"]: r for r in score_table(records) if r["group"] == "all"}
    assert rows["official protocol, own prompts"]["avg_node_f1"] == 0.5
    assert rows["vibesearch profile"]["avg_node_f1"] is None  # our profile has no node metrics
    summary, score_rows, inter_rows, *_ = tables(SimpleNamespace(store=store), None)  # type: ignore[arg-type]
    assert "profiles: official protocol, own prompts, vibesearch profile" in summary
    at = SCORE_HEADERS.index("profile")
    assert sorted(r[at] for r in score_rows if r[2] == "all") == ["official protocol, own prompts", "vibesearch profile"]
    only = json.loads(cli("report", "--format", "json", "--protocol", "vibesearch", "--db", tmp_db).stdout)
    assert only["profiles"] == ["vibesearch profile"] and only["summary"] == [] and only["per_item"] == []


def test_interaction_counts_under_official_include_the_extraction_not_done(tmp_db):
    from vibesearch.scoring import collect_runs, interaction_table, run_stats

    store = Store(tmp_db)
    rid = make_run(store, protocol="official")
    stats = run_stats(store, rid)
    # ours: the opening and [DONE] (dialogue phase); official: the opening and the triple request
    assert (stats.n_user, stats.n_asst) == (2, 1)
    assert (stats.official.user_turns, stats.official.assistant_turns) == (2, 2)
    make_run(store, protocol="vibesearch")
    rows = {r["profile"]: r for r in interaction_table(collect_runs(store)[0])}
    assert (rows["official protocol, own prompts"]["user"], rows["official protocol, own prompts"]["asst"]) == (2, 2)
    assert (rows["vibesearch profile"]["user"], rows["vibesearch profile"]["asst"]) == (2, 1)


def test_our_profile_leaves_out_a_cancelled_run_without_a_graph(cli, tmp_db):
    from vibesearch.scoring import collect_runs, score_table

    store = Store(tmp_db)
    make_run(store, protocol="vibesearch", answer=ANSWER, graph=[T("A", "r", "B")])
    cancelled = make_run(store, protocol="vibesearch", answer=None, status="cancelled", termination="cancelled")
    assert cli("score", cancelled, "--db", tmp_db).exit_code == 0  # our profile still stores its 0 ...
    assert cli("score", "--all", "--db", tmp_db).exit_code == 0
    (row,) = [r for r in score_table(collect_runs(store)[0]) if r["group"] == "all"]
    assert (row["n_runs"], row["left_out"], row["avg_f1"]) == (1, 1, 0.5)  # ... but it is no sample: left out, counted


def test_a_database_from_before_the_columns_reads_old_scores_as_ours(tmp_path):
    from vibesearch.reports import build_report
    from vibesearch.scoring.profile import score_protocol

    db = tmp_path / "old.db"
    shutil.copy(PREV_RELEASE, db)
    with sqlite3.connect(db) as conn:
        assert "protocol" not in {r[1] for r in conn.execute("PRAGMA table_info(scores)")}
        run_id = conn.execute("SELECT id FROM runs WHERE status = 'finished'").fetchone()[0]
        conn.execute(
            "INSERT INTO scores (run_id, judge, precision, recall, f1, n_gt, n_pred, n_covered, n_valid, n_unscored, details_json, created_at)"
            " VALUES (?, 'offline', 1, 0.5, 0.6667, 2, 1, 1, 1, 0, '{}', '2025-01-01 00:00:00')",
            (run_id,),
        )
    db.chmod(0o444)
    try:  # read-only: the missing columns read as NULL
        ro = Store(db, read_only=True)
        assert [score_protocol(s) for s in ro.scores()] == ["vibesearch"]
        assert build_report(ro)["profiles"] == ["vibesearch profile"]
    finally:
        db.chmod(0o644)
    rw = Store(db)  # opened for writing: the columns are added
    assert [(s.protocol, score_protocol(s)) for s in rw.scores()] == [(None, "vibesearch")]
