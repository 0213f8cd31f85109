"""Our own task format: JSON and YAML files, folders, ids, corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vibesearch.config import reset_settings
from vibesearch.tasks import (
    Task,
    TaskLoadError,
    TaskNotFound,
    TaskProblem,
    get_task,
    load_corpus,
    load_tasks,
    load_tasks_with_problems,
    parse_task_file,
)

DATA = Path(__file__).resolve().parent / "data"
VALID = DATA / "valid"


def test_json_and_yaml_give_the_same_task(tmp_path, ours_task):
    (tmp_path / "a.json").write_text(json.dumps(ours_task))
    (tmp_path / "b.yml").write_text(yaml.safe_dump(ours_task, allow_unicode=True))
    a, pa = parse_task_file(tmp_path / "a.json")
    b, pb = parse_task_file(tmp_path / "b.yml")
    assert pa == pb == []
    assert a[0].model_dump() == b[0].model_dump()
    assert a[0].origin == "ours" and a[0].source_file == str(tmp_path / "a.json")


def test_a_file_cannot_name_its_own_source_file(tmp_path, ours_task):
    # the loader gives ``source_file`` (where it read the task); in a file it is an unknown field
    (tmp_path / "a.json").write_text(json.dumps({**ours_task, "source_file": "/elsewhere.json"}))
    tasks, problems = parse_task_file(tmp_path / "a.json")
    assert tasks == [] and [(p.field, p.message) for p in problems] == [("source_file", "unknown field")]


def test_folder_loads_every_task_and_skips_corpus(tmp_path, ours_task):
    nested = tmp_path / "more" / "deeper"
    nested.mkdir(parents=True)
    (tmp_path / "one.json").write_text(json.dumps(ours_task))
    (nested / "two.yaml").write_text(yaml.safe_dump(dict(ours_task, id="two")))
    # documents, notes and hidden files are not tasks
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "one.jsonl").write_text('{"url": "u", "title": "t", "text": "x"}\n')
    (nested / "corpus").mkdir()
    (nested / "corpus" / "meta.json").write_text("{}")
    (tmp_path / "README.md").write_text("# tasks")
    (tmp_path / ".draft.json").write_text("{broken")
    tasks, problems = load_tasks_with_problems([tmp_path])
    assert problems == []
    assert sorted(t.id for t in tasks) == ["mini-ours", "two"]


def test_the_valid_fixture_folder():
    tasks = load_tasks([VALID])
    assert sorted(t.id for t in tasks) == ["mini-ours", "mini-ours-yaml", "mini_official"]
    assert {t.id: t.origin for t in tasks}["mini_official"] == "official"


def test_same_file_twice_is_not_a_duplicate():
    tasks, problems = load_tasks_with_problems([VALID, VALID / "mini-ours.json"])
    assert problems == [] and len(tasks) == 3


def test_duplicate_id_raises_in_load_tasks():
    with pytest.raises(TaskLoadError) as info:
        load_tasks([DATA / "duplicate_ids"])
    assert [(Path(p.file).name, p.field, p.task_id) for p in info.value.problems] == [("second.yaml", "id", "same-id")]
    with pytest.raises(TaskLoadError):
        get_task("same-id", [DATA / "duplicate_ids"])


def test_get_task(tmp_path):
    task = get_task("mini-ours", [VALID])
    assert isinstance(task, Task) and task.stage_count() == 3
    with pytest.raises(TaskNotFound) as info:
        get_task("nope", [VALID])
    assert "nope" in str(info.value) and str(VALID) in str(info.value)
    # an unknown id while some file is broken reports the broken file
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(TaskLoadError) as err:
        get_task("nope", [VALID, tmp_path])
    assert err.value.problems[0].file == str(tmp_path / "bad.json")
    assert get_task("mini-ours", [VALID, tmp_path]).id == "mini-ours"


def test_default_paths_include_env(monkeypatch, tmp_path, ours_task):
    (tmp_path / "extra.json").write_text(json.dumps(dict(ours_task, id="from-env")))
    monkeypatch.setenv("VIBESEARCH_TASKS", str(tmp_path))
    reset_settings()
    try:
        ids = [t.id for t in load_tasks()]
        assert "from-env" in ids
        assert get_task("from-env").source_file == str(tmp_path / "extra.json")
    finally:
        monkeypatch.delenv("VIBESEARCH_TASKS")
        reset_settings()


def test_load_corpus():
    task = get_task("mini-ours", [VALID])
    docs = load_corpus(task)
    assert [d.url for d in docs] == ["https://example.org/io", "https://example.org/jupiter"]
    assert docs[1].scholarly and docs[0].facts[0].tail == "Jupiter"
    assert load_corpus(get_task("mini-ours-yaml", [VALID])) == []


def test_load_corpus_problems(tmp_path, ours_task):
    ours_task["corpus"] = "docs.jsonl"
    (tmp_path / "t.json").write_text(json.dumps(ours_task))
    (tmp_path / "docs.jsonl").write_text('{"url": "u", "title": "t", "text": "x"}\nnot json\n')
    task = get_task("mini-ours", [tmp_path])
    with pytest.raises(TaskLoadError) as info:
        load_corpus(task)
    problem = info.value.problems[0]
    assert problem.file == str(tmp_path / "docs.jsonl") and problem.field.startswith("line 2")
    (tmp_path / "docs.jsonl").unlink()
    with pytest.raises(TaskLoadError) as missing:
        load_corpus(task)
    assert "cannot read the corpus" in missing.value.problems[0].message


def test_numbers_in_triples_become_text(tmp_path, ours_task):
    ours_task["graph"].append({"head": "Io", "relation": "discovered in", "tail": 1610})
    (tmp_path / "t.json").write_text(json.dumps(ours_task))
    assert load_tasks([tmp_path])[0].graph[-1].tail == "1610"


def test_problem_text():
    p = TaskProblem("a.json", "user_persona.stages[2].line", "no line", task_id="t1", stage=3)
    assert str(p) == "a.json: user_persona.stages[2].line: no line (task t1, stage 3)"
    assert str(TaskProblem("a.json", "", "the file is empty")) == "a.json: -: the file is empty"


def test_model_dump_is_plain_json(ours_task):
    task = Task.model_validate(ours_task)
    dumped = task.model_dump(mode="json")
    assert json.loads(json.dumps(dumped)) == dumped
    assert "_file" not in dumped and dumped["origin"] == "ours"
    assert Task.model_validate(dumped) == task
