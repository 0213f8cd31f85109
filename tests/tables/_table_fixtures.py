"""Helpers of the table-task tests: a small planets task and WideSearch-layout folders."""

from __future__ import annotations

import json
from pathlib import Path

from vibesearch.tables import TableTask


def planets_task(**overrides) -> TableTask:
    """Five gold rows, three columns: Planet (key), Order (number), Type (exact)."""
    data = {
        "id": "planets-inner",
        "language": "en",
        "query": "List the five planets closest to the Sun with their order and type.",
        "columns": [
            {"name": "Planet"},
            {"name": "Order", "metric": "number"},
            {"name": "Type", "metric": "exact"},
        ],
        "primary_key": ["Planet"],
        "rows": [
            {"Planet": "Mercury", "Order": 1, "Type": "terrestrial"},
            {"Planet": "Venus", "Order": 2, "Type": "terrestrial"},
            {"Planet": "Earth", "Order": 3, "Type": "terrestrial"},
            {"Planet": "Mars", "Order": 4, "Type": "terrestrial"},
            {"Planet": "Jupiter", "Order": 5, "Type": "gas giant"},
        ],
    }
    data.update(overrides)
    return TableTask.model_validate(data)


README_EVALUATION = {
    "unique_columns": ["university"],
    "required": ["university", "founded", "state"],
    "eval_pipeline": {
        "founded": {"preprocess": ["extract_number"], "metric": ["number_near"], "criterion": 0.0},
        "state": {"preprocess": ["norm_str"], "metric": ["exact_match"]},
    },
}

IVY_GOLD = """University,Founded,State,Notes
Harvard University,1636,Massachusetts,oldest
Yale University,1701,Connecticut,
Princeton University,1746,New Jersey,
Brown University,1764,Rhode Island,
"""


def write_widesearch(folder: Path, records: list[dict], golds: dict[str, str]) -> Path:
    """A ``widesearch.jsonl`` (evaluation JSON-encoded as published) and ``widesearch_gold/``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for rec in records:
        rec = dict(rec)
        if isinstance(rec.get("evaluation"), dict):
            rec["evaluation"] = json.dumps(rec["evaluation"])
        lines.append(json.dumps(rec, ensure_ascii=False))
    (folder / "widesearch.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold_dir = folder / "widesearch_gold"
    gold_dir.mkdir(exist_ok=True)
    for iid, text in golds.items():
        (gold_dir / f"{iid}.csv").write_text(text, encoding="utf-8")
    return folder / "widesearch.jsonl"


def make_widesearch_dir(tmp_path: Path) -> Path:
    record = {
        "instance_id": "ws_en_999",
        "language": "en",
        "query": "List every member of the Ivy League with its founding year and state. "
        "Output one Markdown table with columns: University, Founded, State.",
        "evaluation": README_EVALUATION,
    }
    write_widesearch(tmp_path / "ws", [record], {"ws_en_999": IVY_GOLD})
    return tmp_path / "ws"
