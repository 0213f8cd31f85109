"""Every malformed task file fails `vibesearch tasks validate` with a line naming file and field."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.tasks import TaskLoadError, load_tasks, load_tasks_with_problems, parse_task_file

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
MALFORMED = DATA / "malformed"
VALID = DATA / "valid"


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2), encoding="utf-8")
    return path

# file -> (field path the problem line must name, words the message must contain)
CASES = {
    # ours
    "ours_missing_graph.json": ("graph", "Field required"),
    "ours_wrong_trigger_kind.json": ("persona.stages[2].trigger.kind", "'mention'"),
    "ours_first_stage_not_start.yaml": ("persona.stages[0].trigger.kind", "first stage must be 'start'"),
    "ours_second_stage_start.json": ("persona.stages[1].trigger.kind", "only the first stage"),
    "ours_stage_without_line.json": ("persona.stages[1].line", "Field required"),
    "ours_empty_graph.json": ("graph", "at least 1 item"),
    "ours_unknown_field.yaml": ("persona.backround", "did you mean 'background'"),
    "ours_unknown_trigger_field.json": ("persona.stages[1].trigger.condtion", "did you mean 'condition'"),
    "ours_bad_subset.json": ("subset", "'hard'"),
    "ours_bad_id.json": ("id", "pattern"),
    "ours_triple_missing_tail.yaml": ("graph[1].tail", "Field required"),
    "ours_missing_corpus.json": ("corpus", "corpus file not found"),
    "ours_no_stages.json": ("persona.stages", "at least 1 item"),
    "ours_list_second_bad.json": ("[1].language", "'fr'"),
    "ours_broken.json": ("line 5", "invalid JSON"),
    "ours_broken.yaml": ("line 3", "invalid YAML"),
    "ours_empty.json": ("-", "the file is empty"),
    "ours_empty.yaml": ("-", "the file is empty"),
    "ours_scalar.yaml": ("-", "expected a task object"),
    "list_of_non_objects.json": ("[0]", "expected a task object"),
    # official format
    "official_missing_nodes.json": ("nodes", "Field required"),
    "official_no_stages.json": ("user_persona", "no stages found"),
    "official_stage_without_line.json": ("user_persona.stages[2].line", "no line"),
    "official_stage_without_trigger.json": ("user_persona.stages[1].trigger.condition", "no trigger condition"),
    "official_bad_node_id.json": ("nodes[1].node_id", "integer or a string"),
    "official_empty_triples.json": ("triples", "at least 1 item"),
    "official_duplicate_node_id.json": ("nodes[2].node_id", "duplicate node id 1"),
    "official_empty_persona.json": ("user_persona", "missing or empty"),
    "official_bad_subset.json": ("subset", "'medium'"),
    "official_bad_task_id.json": ("task_id", "pattern"),
    "official_no_core_identity.json": ("user_persona.core_identity", "Core Identity"),
    "official_missing_final_query.jsonl": ("[1].final_query", "Field required"),
    "official_broken.jsonl": ("line 2", "invalid JSON"),
}

# official problems also name the task, and stage problems the stage number
SUFFIXES = {
    "official_stage_without_line.json": "(task mini_official, stage 3)",
    "official_stage_without_trigger.json": "(task mini_official, stage 2)",
    "official_missing_nodes.json": "(task mini_official)",
    "official_missing_final_query.jsonl": "(task jsonl_missing_final)",
}


def _problem_lines(output: str, file: Path) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(f"{file}: ")]


def test_every_fixture_has_a_case():
    on_disk = {p.name for p in MALFORMED.iterdir() if p.is_file()}
    assert on_disk == set(CASES)
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_names_file_and_field(cli, name):
    file = MALFORMED / name
    field, words = CASES[name]
    result = cli("tasks", "validate", file)
    assert result.exit_code == 1, result.output
    lines = _problem_lines(result.stdout, file)
    assert lines, result.output
    matching = [line for line in lines if line.startswith(f"{file}: {field}: ") and words in line]
    assert matching, f"no line names {field!r} with {words!r}:\n{result.output}"
    if name in SUFFIXES:
        assert matching[0].endswith(SUFFIXES[name])
    assert "OK:" not in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_file_with_an_error_loads_nothing(name):
    tasks, problems = parse_task_file(MALFORMED / name)
    assert tasks == []
    assert any(not p.warning for p in problems)
    assert all(p.file == str(MALFORMED / name) for p in problems)


def test_list_with_one_good_task_loads_neither():
    tasks, problems = parse_task_file(MALFORMED / "ours_list_second_bad.json")
    assert tasks == [] and [p.field for p in problems] == ["[1].language"]
    tasks, problems = parse_task_file(MALFORMED / "official_missing_final_query.jsonl")
    assert tasks == [] and problems[0].task_id == "jsonl_missing_final"


def test_whole_folder_reports_every_file(cli):
    result = cli("tasks", "validate", MALFORMED)
    assert result.exit_code == 1
    for name in CASES:
        assert _problem_lines(result.stdout, MALFORMED / name), name


def test_load_tasks_raises_with_every_problem():
    with pytest.raises(TaskLoadError) as info:
        load_tasks([MALFORMED])
    files = {Path(p.file).name for p in info.value.problems}
    assert files == set(CASES)
    assert all(not p.warning for p in info.value.problems)


def test_duplicate_ids_across_files(cli):
    folder = DATA / "duplicate_ids"
    result = cli("tasks", "validate", folder)
    assert result.exit_code == 1
    lines = _problem_lines(result.stdout, folder / "second.yaml")
    assert len(lines) == 1
    assert "id: duplicate task id 'same-id'" in lines[0] and str(folder / "first.json") in lines[0]
    tasks, problems = load_tasks_with_problems([folder])
    assert [t.source_file for t in tasks] == [str(folder / "first.json")]


def test_duplicate_ids_within_one_file(tmp_path, ours_task, cli):
    file = write_json(tmp_path / "two.json", [ours_task, ours_task])
    result = cli("tasks", "validate", file)
    assert result.exit_code == 1
    assert f"{file}: [1].id: duplicate task id 'mini-ours' in this file" in result.stdout


def test_valid_file_beside_a_broken_one_is_not_hidden(tmp_path, cli):
    shutil.copy(VALID / "mini-ours.json", tmp_path / "good.json")
    (tmp_path / "corpus").mkdir()
    shutil.copy(VALID / "corpus" / "mini-ours.jsonl", tmp_path / "corpus" / "mini-ours.jsonl")
    shutil.copy(MALFORMED / "ours_broken.json", tmp_path / "bad.json")
    result = cli("tasks", "validate", tmp_path)
    assert result.exit_code == 1
    assert _problem_lines(result.stdout, tmp_path / "bad.json")
    assert not _problem_lines(result.stdout, tmp_path / "good.json")
    # a task that loads cleanly can still be shown
    shown = cli("tasks", "show", "mini-ours", "--tasks", tmp_path, "--json")
    assert shown.exit_code == 0 and '"id": "mini-ours"' in shown.stdout


def test_missing_path(cli, tmp_path):
    result = cli("tasks", "validate", tmp_path / "nope")
    assert result.exit_code == 1
    assert result.stdout.strip() == f"{tmp_path / 'nope'}: -: no such file or folder"


def test_folder_without_task_files(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    result = cli("tasks", "validate", tmp_path)
    assert result.exit_code == 1
    assert "no task files found" in result.stdout


def test_broken_corpus_is_reported(cli, tmp_path, ours_task):
    ours_task["corpus"] = "corpus/docs.jsonl"
    write_json(tmp_path / "t.json", ours_task)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "docs.jsonl").write_text('{"url": "u", "title": "t", "text": "x"}\n{"url": "u2", "text": "y"}\n')
    result = cli("tasks", "validate", tmp_path / "t.json")
    assert result.exit_code == 1
    assert f"{tmp_path / 'corpus' / 'docs.jsonl'}: line 2: title: Field required (task mini-ours)" in result.stdout


SUBPROCESS_CASES = [
    "ours_wrong_trigger_kind.json",
    "ours_broken.yaml",
    "official_stage_without_line.json",
    "official_missing_nodes.json",
]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    return subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", *args],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
    )


def test_validate_in_a_real_process():
    files = [str(MALFORMED / name) for name in SUBPROCESS_CASES]
    proc = _run("tasks", "validate", *files)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for name in SUBPROCESS_CASES:
        field, words = CASES[name]
        prefix = f"{MALFORMED / name}: {field}: "
        assert any(line.startswith(prefix) and words in line for line in proc.stdout.splitlines()), (name, proc.stdout)


@pytest.mark.parametrize("name", ["ours_first_stage_not_start.yaml", "official_no_stages.json"])
def test_validate_single_file_in_a_real_process(name):
    proc = _run("tasks", "validate", str(MALFORMED / name))
    field, words = CASES[name]
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{MALFORMED / name}: {field}: ")
    assert words in proc.stdout


def test_valid_folder_in_a_real_process():
    proc = _run("tasks", "validate", str(VALID))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK: 3 task(s) in 3 file(s), 9 stages, 6 triples"
