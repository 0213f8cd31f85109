"""Per-stage views (``results.stage_view``) on hand-built runs, every number worked out by hand:
which stage each triple belongs to, recall by stage (reached / not reached), F1 by stages reached
and where runs stall; and the section in ``vibesearch report``."""

from __future__ import annotations

import pytest

from vibesearch.reports import build_report
from vibesearch.reports.text import to_markdown
from vibesearch.run import EndEvent, GraphEvent, MessageEvent, StageEvent
from vibesearch.scoring import collect_runs
from vibesearch.results.stage_view import stage_of_triples, stage_view
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

GRAPH = [
    {"head": "Kyoto", "relation": "capital until", "tail": "1869"},  # named by the opening query -> stage 1
    {"head": "Himeji Castle", "relation": "built in", "tail": "1609"},  # stage 2's line names Himeji Castle
    {"head": "Nara", "relation": "home of", "tail": "Todai-ji"},  # stage 3's cue names Todai-ji
    {"head": "Osaka", "relation": "has", "tail": "a castle"},  # no stage names Osaka -> not tied
]
SNAPSHOT = {
    "id": "t", "subset": "daily", "language": "en", "extra": {}, "graph": GRAPH,
    "persona": {"background": "b", "initial_query": "Tell me about kyoto.", "stages": [
        {"name": "Opening", "trigger": {"kind": "start", "condition": "c"}, "line": "l"},
        {"name": "Castles", "trigger": {"kind": "mentions", "condition": "c"}, "line": "What about Himeji  castle?"},
        {"name": "Temples", "trigger": {"kind": "mentions", "condition": "c"}, "line": "And temples?", "cues": ["Todai-ji"]},
    ]},
}


def _run(store: Store, reached: int, covered: list[bool], f1: float) -> str:
    run = store.create_run("t", task_json=SNAPSHOT, agent="react", agent_model="m", user="rules", status="finished")
    store.append(run.id, MessageEvent(role="user", content="q"))
    for k in range(reached):
        store.append(run.id, StageEvent(stage_index=k, advanced=k > 0, reply_kind="disclose", decided_by="rules"))
    store.append(run.id, GraphEvent(triples=GRAPH))
    store.append(run.id, EndEvent(termination="done"))
    rows = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=c, evidence_json="[]") for i, c in enumerate(covered)]
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=f1, recall=f1, f1=f1, n_gt=4, n_pred=4,
                             n_covered=sum(covered), n_valid=sum(covered)), rows)
    return run.id


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "stages.db")
    _run(store, 1, [True, False, False, True], 0.5)  # ended on stage 1
    _run(store, 2, [True, True, False, False], 0.4)  # ended on stage 2
    _run(store, 3, [False, True, True, True], 0.8)  # every stage disclosed
    _run(store, 1, [True, True, False, False], 0.6)  # ended on stage 1
    return store


def test_each_triple_belongs_to_the_first_stage_naming_it():
    from vibesearch.tasks.models import Task

    assert stage_of_triples(Task.model_validate(SNAPSHOT)) == [0, 1, 2, None]


def test_recall_by_stage_f1_by_stages_reached_and_the_stall(store):
    records, _ = collect_runs(store)
    view = stage_view(store, records)
    rows = {r["stage"]: r for r in view["stages"]}
    # stage 1 (Kyoto): all four runs reached it, three covered its triple
    assert (rows[1]["triples"], rows[1]["runs_reached"], rows[1]["recall_reached"]) == (1, 4, 0.75)
    # stage 2 (Himeji): reached by runs 2 and 3 (both covered it), not by runs 1 and 4 (one of them did)
    assert (rows[2]["recall_reached"], rows[2]["runs_reached"], rows[2]["recall_not_reached"], rows[2]["runs_not_reached"]) == (1.0, 2, 0.5, 2)
    # stage 3 (Todai-ji): reached by run 3 only (covered), not reached by three runs (none covered)
    assert (rows[3]["recall_reached"], rows[3]["recall_not_reached"], rows[3]["runs_not_reached"]) == (1.0, 0.0, 3)
    assert [rows[k]["runs_ended_here"] for k in (1, 2, 3)] == [2, 1, 0]
    assert view["stall"] == {"t": {"stage": 1, "name": "Opening", "runs": 2}} and view["completed"] == {"t": 1}
    assert view["not_tied_to_a_stage"] == {"t": 1}
    by = {b["stages_reached"]: (b["runs"], b["mean_f1"]) for b in view["f1_by_stages_reached"]}
    assert by[1] == (2, pytest.approx(0.55)) and by[2] == (1, 0.4) and by[3] == (1, 0.8)


def test_the_report_has_the_per_stage_sections(store):
    report = build_report(store)
    assert report["stages"]["stall"]["t"]["stage"] == 1
    text = to_markdown(report)
    assert "### Recall by stage" in text and "### F1 by stages reached" in text
    assert "| t | 2. Castles | 1 | 100.00 | 2 | 50.00 | 2 | 1 |" in text
    assert "t: stage 1 (Opening, 2 runs ended there)" in text
