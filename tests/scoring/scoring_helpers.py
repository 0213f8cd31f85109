"""Small builders shared by the scoring tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

from typing import Any


def T(head: str, relation: str, tail: str) -> dict[str, str]:
    return {"head": head, "relation": relation, "tail": tail}


def task_snapshot(graph: list[dict[str, str]], *, task_id: str = "t1", subset: str = "pro", language: str = "en", stages: int = 3) -> dict[str, Any]:
    return {
        "id": task_id,
        "subset": subset,
        "language": language,
        "persona": {
            "background": "b",
            "initial_query": "q",
            "stages": [{"name": f"s{i}", "trigger": {"kind": "start" if i == 0 else "mentions", "condition": "c"}, "line": "l"} for i in range(stages)],
        },
        "graph": graph,
        "extra": {},
    }
