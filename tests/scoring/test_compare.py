"""``vibesearch compare``: two hand-built runs of one persona, the stage alignment, tool calls
and tokens per stage, and the covered-only-in sets checked against the stored verdicts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vibesearch.run import EndEvent, MessageEvent, StageEvent, ToolCallEvent, UsageEvent
from vibesearch.run.scores import RunScore, Verdict
from vibesearch.labels.compare import CompareError, compare_runs
from vibesearch.store import Store
from vibesearch.store.scores import record_score

GRAPH = [{"head": "h", "relation": "r", "tail": f"t{i}"} for i in range(4)]


def _snapshot(task_id: str = "t1") -> dict:
    return {
        "id": task_id, "subset": "pro", "language": "en",
        "persona": {"background": "b", "initial_query": "q", "stages": [
            {"name": f"s{i}", "trigger": {"kind": "start" if i == 0 else "mentions", "condition": "c"}, "line": "l"} for i in range(3)
        ]},
        "graph": GRAPH, "extra": {},
    }


def _run(store: Store, plan: list[str], covered: list[bool], *, task_id: str = "t1", usage: bool = True) -> str:
    """``plan``: per user turn after the opening "d" (disclose) or "p" (push); each agent turn
    makes one tool call and spends 10 + 5 tokens."""
    run = store.create_run(task_id, task_json=_snapshot(task_id), agent="react", agent_model="m", user="rules", status="finished")
    stage = 0
    events: list = [StageEvent(stage_index=0, reply_kind="open", decided_by="rules"), MessageEvent(role="user", content="q")]
    for step in ["agent", *plan]:
        if step != "agent":
            advanced = step == "d"
            stage += int(advanced)
            events += [StageEvent(stage_index=stage, reply_kind="disclose" if advanced else "push", advanced=advanced, decided_by="rules"),
                       MessageEvent(role="user", content="u")]
        events += [*([UsageEvent(purpose="agent", model="m", input_tokens=10, output_tokens=5)] if usage else []),
                   MessageEvent(role="assistant", content="", n_tool_calls=1), ToolCallEvent(call_id=f"c{len(events)}", tool="search"),
                   MessageEvent(role="assistant", content="a", final=True)]
    events.append(EndEvent(termination="max_user_turns"))
    for e in events:
        store.append(run.id, e)
    record_score(store, RunScore(
        run_id=run.id, judge="offline", protocol="vibesearch", precision=0.5, recall=sum(covered) / 4, f1=0.5,
        n_gt=4, n_pred=2, n_covered=sum(covered), n_valid=2,
        verdicts=[Verdict(gt_index=i, covered=c) for i, c in enumerate(covered)],
    ))
    return run.id


def test_stages_are_aligned_and_the_coverage_sets_follow_the_verdicts(db_url):
    store = Store(db_url)
    a = _run(store, ["d", "d"], [True, True, False, False])
    b = _run(store, ["p", "p", "d", "d"], [True, False, True, False])
    result = compare_runs(store, a, b)
    stages = result["stages"]
    assert [(s["a"]["reached_at"], s["b"]["reached_at"]) for s in stages] == [(1, 1), (2, 4), (3, 5)]
    # B spent three agent turns on the opening stage (its opening answer and two pushes)
    assert [(s["a"]["tool_calls"], s["b"]["tool_calls"]) for s in stages] == [(1, 3), (1, 1), (1, 1)]
    assert [(s["a"]["tokens"], s["b"]["tokens"]) for s in stages] == [(15, 45), (15, 15), (15, 15)]
    cov = result["coverage"]
    assert cov["judge"] == "offline"
    assert [i["number"] for i in cov["both"]] == [1] and [i["number"] for i in cov["only_a"]] == [2]
    assert [i["number"] for i in cov["only_b"]] == [3] and [i["number"] for i in cov["neither"]] == [4]
    assert cov["only_a"][0]["triple"] == "h | r | t1"


def test_a_run_with_no_model_usage_has_no_token_count(db_url):
    store = Store(db_url)
    a = _run(store, ["d"], [True] * 4, usage=False)  # the offline baseline calls no model
    b = _run(store, ["d"], [True] * 4)
    stages = compare_runs(store, a, b)["stages"]
    assert [s["a"]["tokens"] for s in stages] == [None, None, None] and stages[0]["b"]["tokens"] == 15


def test_runs_of_different_tasks_are_refused(db_url):
    store = Store(db_url)
    a = _run(store, ["d"], [True] * 4)
    b = _run(store, ["d"], [True] * 4, task_id="t2")
    with pytest.raises(CompareError, match="different tasks"):
        compare_runs(store, a, b)


def test_the_cli_prints_the_alignment_and_the_sets(tmp_path):
    db = tmp_path / "c.db"
    store = Store(db)
    a = _run(store, ["d", "d"], [True, True, False, False])
    b = _run(store, ["p", "p", "d", "d"], [True, False, True, False])
    done = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "compare", a, b, "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "only in A (1)" in done.stdout and "#2 h | r | t1" in done.stdout and "only in B (1)" in done.stdout
    as_json = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "compare", a, b, "--json", "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert json.loads(as_json.stdout)["stages"][1]["b"]["reached_at"] == 4
    missing = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "compare", a, "nope", "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "no such run" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
