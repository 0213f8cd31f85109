import json

import pytest
from scoring_helpers import T, task_snapshot

from vibesearch.scoring import collect_runs, interaction_table, score_table
from vibesearch.scoring.aggregate import choose_judge
from vibesearch.scoring.errors import error_analysis
from vibesearch.run import CompactionEvent, EndEvent, GraphEvent, MessageEvent, ToolCallEvent, UsageEvent
from vibesearch.store.tables import ScoreRow, VerdictRow

GT = [T("A", "founded in", "1990"), T("B", "founded in", "1991"), T("A", "located in", "Paris")]
CFG_A = dict(agent="react", agent_model="m1", user="simulator", simulator_model="s1")
CFG_B = dict(agent="baseline", user="rules")


def add_run(store, task_id, subset, language, cfg, p, r, f1, *, users=2, assts=4, tools=3, compactions=0,
            termination="max_user_turns", covered=(True, False, False), pred_relations=("founded in",), judge="offline"):
    run = store.create_run(task_id, task_json=task_snapshot(GT, task_id=task_id, subset=subset, language=language), status="finished", **cfg)
    for i in range(users):
        store.append(run.id, MessageEvent(role="user", content=f"u{i}"))
        for _ in range(assts // users):
            store.append(run.id, MessageEvent(role="assistant", content="a"))
    for k in range(tools):
        store.append(run.id, ToolCallEvent(call_id=str(k), tool="search"))
    for _ in range(compactions):
        store.append(run.id, CompactionEvent(tokens_before=10, tokens_after=1, threshold=5, summary="s"))
    store.append(run.id, UsageEvent(purpose="agent", model="m", input_tokens=1000, output_tokens=100, cost_usd=0.1))
    store.append(run.id, GraphEvent(triples=[T("A", rel, "1990") for rel in pred_relations]))
    store.append(run.id, EndEvent(termination=termination))
    n_cov = sum(covered)
    score = ScoreRow(run_id=run.id, judge=judge, precision=p, recall=r, f1=f1, n_gt=3, n_pred=len(pred_relations), n_covered=n_cov, n_valid=min(n_cov, len(pred_relations)))
    verdicts = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=c, evidence_json=json.dumps([0] if c else [])) for i, c in enumerate(covered)]
    store.add_score(score, verdicts)
    return run.id


@pytest.fixture
def populated(store):
    # configuration A: task t1 (pro, en) three runs, task t2 (daily, zh) three runs
    add_run(store, "t1", "pro", "en", CFG_A, 0.1, 0.3, 0.2, compactions=0)
    add_run(store, "t1", "pro", "en", CFG_A, 0.3, 0.5, 0.4, compactions=1)
    add_run(store, "t1", "pro", "en", CFG_A, 0.5, 0.7, 0.6, compactions=2, users=12, assts=24)
    add_run(store, "t2", "daily", "zh", CFG_A, 0.2, 0.1, 0.1, compactions=3, termination="answer")
    add_run(store, "t2", "daily", "zh", CFG_A, 0.4, 0.2, 0.3)
    add_run(store, "t2", "daily", "zh", CFG_A, 0.3, 0.15, 0.2)
    # configuration B: a single run of t1
    add_run(store, "t1", "pro", "en", CFG_B, 0.5, 0.5, 0.5, users=1, assts=1, tools=0, pred_relations=())
    return store


def row(rows, config_part, group):
    return next(r for r in rows if config_part in r["config"] and r["group"] == group)


def test_avg_and_best_at_n_by_hand(populated):
    records, judge = collect_runs(populated)
    assert judge == "offline" and len(records) == 7
    rows = score_table(records)
    a = row(rows, "react", "all")
    assert (a["n_tasks"], a["n_runs"], a["n_min"], a["n_max"]) == (2, 6, 3, 3)
    assert a["avg_f1"] == pytest.approx((0.4 + 0.2) / 2)  # t1 mean 0.4, t2 mean 0.2
    assert a["best_f1"] == pytest.approx((0.6 + 0.3) / 2)
    assert a["avg_precision"] == pytest.approx((0.3 + 0.3) / 2)
    assert a["best_recall"] == pytest.approx((0.7 + 0.2) / 2)
    pro = row(rows, "react", "subset pro")
    assert (pro["avg_f1"], pro["best_f1"]) == (pytest.approx(0.4), pytest.approx(0.6))
    zh = row(rows, "react", "language zh")
    assert (zh["avg_f1"], zh["best_f1"]) == (pytest.approx(0.2), pytest.approx(0.3))
    b = row(rows, "baseline", "all")
    assert (b["n_runs"], b["avg_f1"], b["best_f1"]) == (1, 0.5, 0.5)
    assert not any("baseline" in r["config"] and r["group"] == "subset daily" for r in rows)


def test_interaction_table_by_hand(populated):
    records, _ = collect_runs(populated)
    rows = {r["config"]: r for r in interaction_table(records)}
    a = next(v for k, v in rows.items() if "react" in k)
    # five runs with 2 user / 4 assistant messages, one with 12 / 24
    assert a["user"] == pytest.approx((5 * 2 + 12) / 6)
    assert a["asst"] == pytest.approx((5 * 4 + 24) / 6)
    assert a["asst_per_user"] == pytest.approx(44 / 22)
    assert a["tool_calls"] == 3 and a["tool_calls_per_user_turn"] == pytest.approx(18 / 22)
    assert a["compactions"] == pytest.approx(6 / 6)
    assert a["input_tokens"] == 1000 and a["cost_usd"] == pytest.approx(0.1)


def test_error_analysis_by_hand(populated):
    records, _ = collect_runs(populated)
    e = error_analysis(populated, records)
    bins = {b["bin"]: b for b in e["f1_by_compactions"]}
    assert bins["0"]["n_runs"] == 4 and bins["0"]["mean_f1"] == pytest.approx((0.2 + 0.3 + 0.2 + 0.5) / 4)
    assert bins["1"]["n_runs"] == 1 and bins["1"]["mean_f1"] == pytest.approx(0.4)
    assert bins["≥2"]["n_runs"] == 2 and bins["≥2"]["mean_f1"] == pytest.approx((0.6 + 0.1) / 2)
    turns = {b["bin"]: b["n_runs"] for b in e["f1_by_user_turns"]}
    assert turns == {"1–5": 6, "11–15": 1}
    assert e["termination"] == {"max_user_turns": 6, "answer": 1}
    rel = {r["relation"]: r for r in e["relation_coverage"]}
    # 7 runs x 2 "founded in" triples, the first covered in each run
    assert rel["founded in"]["n_gt"] == 14 and rel["founded in"]["n_covered"] == 7
    assert rel["founded in"]["runs_produced"] == 6  # the baseline run predicted nothing
    assert rel["located in"]["coverage"] == 0 and rel["located in"]["never_produced"] is True
    g = e["generation"]
    assert g["empty_predictions"] == 1
    # the empty prediction with recall 0.5 is not under-generation; nothing has recall < 0.2 and few triples
    assert [u["run_id"] for u in g["under_generation_runs"]] == [r.run_id for r in records if r.recall == 0.1 or r.recall == 0.15]


def test_the_judge_with_most_scored_runs_is_chosen(populated, make_run):
    records, _ = collect_runs(populated)
    populated.add_score(ScoreRow(run_id=records[0].run_id, judge="fake/x", precision=1, recall=1, f1=1, n_gt=3, n_pred=1, n_covered=3, n_valid=1), [])
    assert choose_judge(populated) == "offline"
    recs, judge = collect_runs(populated, judge="fake/x")
    assert judge == "fake/x" and sum(r.scored for r in recs) == 1
