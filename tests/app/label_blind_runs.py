"""A scored run for the blind-campaign tests, written straight into the app's database: its agent,
model and judge have names found nowhere else, so a page or an answer naming them is a leak."""

from __future__ import annotations

from pathlib import Path

from label_runs import JAPAN

from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import GraphEvent
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow
from vibesearch.tasks import load_tasks

AGENT, MODEL, JUDGE = "secretagentq7", "secretmodelq7", "fake/judgeq7"


def scored_run(db: Path, triples: int = 3, agent: str = AGENT, model: str = MODEL) -> str:
    """A finished run of ``triples`` ground-truth triples, its prediction repeating them, scored by
    ``JUDGE``: triple 1 covered (by prediction #1), every other triple not covered."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == JAPAN)
    snap = task.model_dump(mode="json")
    snap["graph"] = snap["graph"][:triples]
    store = Store(db)
    run = store.create_run(JAPAN, task_json=snap, agent=agent, agent_model=model, user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=[dict(t) for t in snap["graph"]], raw_text="[]"))
    verdicts = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]",
                           rationale=f"rationale-q7-{i}") for i in range(triples)]
    store.add_score(ScoreRow(run_id=run.id, judge=JUDGE, precision=0.5, recall=1 / triples, f1=0.4, n_gt=triples,
                             n_pred=triples, n_covered=1, n_valid=1), verdicts)
    return run.id
