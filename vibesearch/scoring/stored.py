"""What scoring reads of a stored run: its task (``Run.task()``) and its latest graph (shared by
both profiles' scoring)."""

from __future__ import annotations

import json
from typing import Any

from ..store import Store, TaskSnapshotError
from ..tasks.models import Task


class NoGroundTruth(ValueError):
    """The run's task snapshot has no ground-truth graph to score against."""


def stored_task(store: Store, run_id: str) -> Task | None:
    """The run's task, or None when its snapshot cannot be read (scoring reads such a run as one
    without ground truth)."""
    try:
        return store.get_run(run_id).task()
    except TaskSnapshotError:
        return None


def stored_ground_truth(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's ground-truth triples as ``{"head", "relation", "tail"}`` dicts ([] when its task
    has none or cannot be read)."""
    task = stored_task(store, run_id)
    return [t.model_dump() for t in task.graph] if task is not None else []


def stored_prediction(store: Store, run_id: str, *, original: bool = False) -> tuple[list[dict[str, Any]], int | None]:
    """The run's newest graph (a re-extraction's when it has one; ``original``: its own extraction's)
    and the graph's id."""
    row = store.latest_graph(run_id, source="extraction" if original else None)
    if row is None:
        return [], None
    triples = json.loads(row.triples_json or "[]")
    return [t for t in triples if isinstance(t, dict)], row.id


def graph_source(store: Store, run_id: str, graph_id: int | None) -> dict[str, Any]:
    """Which of the run's graphs a score graded: its id and source ("extraction" or "reextraction")."""
    row = store.latest_graph(run_id)
    newest = row.id if row is not None else None
    for source in ("extraction", "reextraction"):
        found = store.latest_graph(run_id, source=source)
        if found is not None and found.id == graph_id:
            return {"id": graph_id, "source": source, "newest": graph_id == newest}
    return {"id": graph_id, "source": None, "newest": graph_id == newest}
