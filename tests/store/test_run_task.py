"""``Run.task()``: the task a run stored, read back as a typed ``Task`` (persona and table tasks,
older snapshot shapes, imported trajectories without ground truth), pointed at its file only when
that file is still there, and one error naming the run for a snapshot that cannot be read."""

from __future__ import annotations

import pytest

from vibesearch.store import Run, TaskSnapshotError
from vibesearch.tables import get_table_task, table_task_to_task
from vibesearch.tasks import Task, get_task

PERSONA = "daily-en-japan-heritage-trip"


def _stored(store, task: Task, **meta) -> Run:
    run = store.create_run(task.id, task_json=task.model_dump(mode="json"), kind=task.kind, meta=meta or None)
    return store.get_run(run.id)


def test_a_persona_task_comes_back_equal_and_pointed_at_its_file(store):
    task = get_task(PERSONA)
    assert task.source_file
    back = _stored(store, task, task_file=task.source_file).task()
    assert isinstance(back, Task) and back == task
    assert back.source_file == task.source_file
    assert back.persona.stages == task.persona.stages and back.graph == task.graph


def test_a_table_task_comes_back_equal_with_its_table_part(store):
    task = table_task_to_task(get_table_task("galilean-moons"))
    assert task.table is not None and task.source_file and task.table.source_file == task.source_file
    back = _stored(store, task, task_file=task.source_file).task()
    assert back == task and back.kind == "table" and back.table is not None
    assert back.table.rows == task.table.rows and back.table.source_file == task.source_file
    # a run that names no file: the same task, its table part pointed nowhere either
    bare = _stored(store, task).task()
    assert bare.source_file is None and bare.table is not None and bare.table.source_file is None
    assert bare.model_dump(mode="json") == task.model_dump(mode="json")


def test_the_file_is_attached_only_when_it_exists(store, tmp_path):
    task = get_task(PERSONA)
    gone = tmp_path / "moved-away.json"
    assert _stored(store, task, task_file=str(gone)).task().source_file is None
    assert _stored(store, task).task().source_file is None
    gone.write_text("{}", encoding="utf-8")
    assert _stored(store, task, task_file=str(gone)).task().source_file == str(gone)


def test_each_call_gives_the_caller_its_own_task(store):
    run = _stored(store, get_task(PERSONA))
    first = run.task()
    first.graph.clear()
    first.persona.stages[0].line = "changed"
    again = run.task()
    assert again.graph and again.persona.stages[0].line != "changed"


def test_the_snapshot_is_unchanged_by_the_source_file():
    task = get_task(PERSONA)
    assert task.source_file and "source_file" not in task.model_dump(mode="json")
    assert task.model_dump(mode="json") == task.model_copy(update={"source_file": None}).model_dump(mode="json")


def test_an_older_table_snapshot_and_an_imported_one_without_ground_truth_read(store):
    task = table_task_to_task(get_table_task("galilean-moons"))
    old = task.model_dump(mode="json")
    table = old.pop("table")
    old.pop("kind")
    old["extra"] = {"kind": "table", "table_task": table}  # how runs stored it before ``Task.kind``
    run = store.create_run(task.id, task_json=old, kind="table")
    back = store.get_run(run.id).task()
    assert back.kind == "table" and back.table is not None and back.table.rows == task.table.rows

    imported = {
        "id": "q1", "subset": "daily", "language": "en",
        "persona": {"background": "not in the file", "initial_query": "q",
                    "stages": [{"name": "Initial question", "trigger": {"kind": "start", "condition": "start"}, "line": "q"}]},
        "graph": [], "extra": {"kind": "imported", "qid": "q1"}, "origin": "official",
    }
    run = store.create_run("q1", task_json=imported, source="imported")
    back = store.get_run(run.id).task()
    assert back.graph == [] and back.persona.stages[0].name == "Initial question"


def test_a_task_file_still_needs_a_ground_truth_graph():
    data = get_task(PERSONA).model_dump(mode="json")
    with pytest.raises(ValueError, match="at least 1 item"):
        Task.model_validate({**data, "graph": []})


@pytest.mark.parametrize(
    ("task_json", "reason"),
    [
        ("{}", "stored no task"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"id": "x", "graph": []}', "problem"),
    ],
)
def test_a_broken_snapshot_raises_one_error_naming_the_run(task_json, reason):
    run = Run(id="r-broken", task_id="x", task_json=task_json)
    with pytest.raises(TaskSnapshotError, match=reason) as err:
        run.task()
    assert isinstance(err.value, ValueError) and err.value.run_id == "r-broken"
    assert str(err.value).startswith("run r-broken: its task snapshot cannot be read")
