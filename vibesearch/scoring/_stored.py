"""What scoring reads of a stored run: its task snapshot and its latest graph (shared by both
profiles' scoring)."""

from __future__ import annotations

import json
from typing import Any

from ..store import Store


class NoGroundTruth(ValueError):
    """The run's task snapshot has no ground-truth graph to score against."""


def task_snapshot(store: Store, run_id: str) -> dict[str, Any]:
    run = store.get_run(run_id)
    try:
        data = run.task_snapshot()
    except json.JSONDecodeError:
        data = {}
    return data if isinstance(data, dict) else {}


def stored_prediction(store: Store, run_id: str) -> tuple[list[dict[str, Any]], int | None]:
    row = store.latest_graph(run_id)
    if row is None:
        return [], None
    triples = json.loads(row.triples_json or "[]")
    return [t for t in triples if isinstance(t, dict)], row.id
