"""``Task.kind`` and the typed table part: JSON round trips, and task snapshots stored by runs
before the kind existed (the table task was then carried in ``extra``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from vibesearch.tasks import TableTask, Task, load_tasks_with_problems, snapshot_kind

# A table task's snapshot as runs stored it before ``Task.kind``: ``extra.kind`` + ``extra.table_task``.
OLD_TABLE_SNAPSHOT = {
    "id": "planets-inner",
    "subset": "daily",
    "language": "en",
    "domain": "table",
    "title": "Inner planets",
    "persona": {
        "background": "I need one complete, accurate table; every cell will be checked.",
        "initial_query": "List the inner planets with their order.",
        "behavior": "Wants the whole table in one Markdown table.",
        "stages": [
            {
                "name": "Table request",
                "trigger": {"kind": "start", "condition": "conversation start"},
                "line": "List the inner planets with their order.",
                "fallback": None,
                "cues": [],
            }
        ],
    },
    "graph": [{"head": "Mercury", "relation": "Order", "tail": "1"}, {"head": "Venus", "relation": "Order", "tail": "2"}],
    "sources": [],
    "corpus": None,
    "final_query": "List the inner planets with their order.",
    "sub_queries": [],
    "user_queries": [],
    "persona_markdown": None,
    "extra": {
        "kind": "table",
        "table_task": {
            "id": "planets-inner",
            "language": "en",
            "title": "Inner planets",
            "query": "List the inner planets with their order.",
            "columns": [
                {"name": "Planet", "metric": "exact", "tolerance": 0.0, "window_days": 31, "rule": None, "description": ""},
                {"name": "Order", "metric": "number", "tolerance": 0.0, "window_days": 31, "rule": None, "description": ""},
            ],
            "primary_key": ["Planet"],
            "gold": None,
            "rows": [{"Planet": "Mercury", "Order": "1"}, {"Planet": "Venus", "Order": "2"}],
            "corpus": None,
            "sources": [],
            "origin": "ours",
        },
    },
    "origin": "ours",
}


def _persona_data() -> dict:
    data = {k: v for k, v in OLD_TABLE_SNAPSHOT.items() if k != "extra"}
    data.update(id="tea-1", domain="tea")
    return json.loads(json.dumps(data))


def test_a_task_is_a_persona_task_unless_it_says_otherwise():
    task = Task.model_validate(_persona_data())
    assert task.kind == "persona" and task.table is None
    back = Task.model_validate_json(task.model_dump_json())
    assert back.kind == "persona" and back.table is None and back == task


def test_a_table_task_keeps_its_kind_and_table_part_through_json():
    task = Task.model_validate(OLD_TABLE_SNAPSHOT)
    dumped = json.loads(task.model_dump_json())
    assert dumped["kind"] == "table" and dumped["table"]["primary_key"] == ["Planet"]
    assert "kind" not in dumped["extra"] and "table_task" not in dumped["extra"]
    back = Task.model_validate_json(json.dumps(dumped))
    assert back.kind == "table" and isinstance(back.table, TableTask)
    assert back.table.rows == [{"Planet": "Mercury", "Order": "1"}, {"Planet": "Venus", "Order": "2"}]
    assert back.table.column("Order").metric == "number"
    assert back.model_dump(mode="json") == dumped


def test_an_old_snapshot_reads_back_as_a_table_task():
    snapshot = json.loads(json.dumps(OLD_TABLE_SNAPSHOT))
    snapshot["extra"]["note"] = "kept"
    assert snapshot_kind(snapshot) == "table"
    task = Task.model_validate(snapshot)
    assert task.kind == "table" and task.table is not None and task.table.id == "planets-inner"
    assert task.extra == {"note": "kept"}  # only the two fields the kind replaced are moved
    assert snapshot["extra"]["kind"] == "table"  # the caller's data is not changed
    # and the JSON text a run stored reads back the same way
    assert Task.model_validate_json(json.dumps(OLD_TABLE_SNAPSHOT)).table == task.table


def test_snapshot_kind_reads_both_forms_without_validating():
    assert snapshot_kind({"kind": "table"}) == "table"
    assert snapshot_kind({"extra": {"kind": "table", "table_task": {}}}) == "table"
    assert snapshot_kind({"extra": {"kind": "table"}}) == "persona"  # no table in it: not the old form
    assert snapshot_kind({"extra": {"kind": "imported"}}) == "persona"
    assert snapshot_kind({}) == "persona"


def test_kind_and_table_part_must_agree():
    data = _persona_data()
    with pytest.raises(ValidationError, match="needs its table part"):
        Task.model_validate({**data, "kind": "table"})
    with pytest.raises(ValidationError, match="must have kind 'table'"):
        Task.model_validate({**data, "table": OLD_TABLE_SNAPSHOT["extra"]["table_task"]})
    with pytest.raises(ValidationError):
        Task.model_validate({**data, "kind": "graph"})
    # a kind in extra that is not the old table form (an imported trajectory's, or an official
    # record's own field) stays in extra
    for extra in ({"kind": "imported", "qid": 7}, {"kind": "table"}):
        other = Task.model_validate({**data, "extra": extra})
        assert other.kind == "persona" and other.extra == extra


def test_a_task_file_naming_kind_table_without_a_table_is_a_problem(tmp_path: Path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({**_persona_data(), "kind": "table"}), encoding="utf-8")
    tasks, problems = load_tasks_with_problems([path])
    assert tasks == []
    assert [(p.field, p.message) for p in problems] == [("table", "a task of kind 'table' needs its table part")]
