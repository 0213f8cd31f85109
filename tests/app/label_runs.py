"""Runs for the Label tab's tests, written straight into the app's database."""

from __future__ import annotations

from pathlib import Path

from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import GraphEvent
from vibesearch.store import Store
from vibesearch.tasks import load_tasks

JAPAN = "daily-en-japan-heritage-trip"  # 75 ground-truth triples


def new_run(db: Path, triples: int = 30) -> str:
    """A finished run of ``triples`` ground-truth triples whose prediction repeats them all."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == JAPAN)
    snap = task.model_dump(mode="json")
    snap["graph"] = snap["graph"][:triples]
    store = Store(db)
    run = store.create_run(JAPAN, task_json=snap, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=[dict(t) for t in snap["graph"]], raw_text="[]"))
    return run.id
