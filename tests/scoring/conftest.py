"""Fixtures for scoring tests: runs written straight into a store (no session needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring_helpers import T, task_snapshot  # noqa: F401

from vibesearch.store import Store
from vibesearch.run import EndEvent, GraphEvent, MessageEvent

CASES = Path(__file__).resolve().parent.parent / "data" / "judge_cases_dev.jsonl"


@pytest.fixture
def make_run():
    """make_run(store, gt, pred=None, **run fields) -> run id (pred None: no graph at all)."""

    def make(store: Store, gt: list[dict[str, str]], pred: list[dict[str, str]] | None = None, *, task_id: str = "t1",
             subset: str = "pro", language: str = "en", extra: dict | None = None, **fields: Any) -> str:
        snap = task_snapshot(gt, task_id=task_id, subset=subset, language=language)
        if extra:
            snap["extra"] = extra
        fields.setdefault("agent", "baseline")
        fields.setdefault("user", "rules")
        fields.setdefault("status", "finished")
        run = store.create_run(task_id, task_json=snap, **fields)
        store.append(run.id, MessageEvent(role="user", content="q"))
        store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
        if pred is not None:
            store.append(run.id, GraphEvent(triples=pred, raw_text=json.dumps(pred)))
        store.append(run.id, EndEvent(termination="max_user_turns"))
        return run.id

    return make


@pytest.fixture
def cases_path() -> Path:
    return CASES
