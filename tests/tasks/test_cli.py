"""`vibesearch tasks list | show | validate | export`: output shapes and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from vibesearch.config import BUNDLED_TASKS, reset_settings
from vibesearch.tasks import get_task, load_corpus, load_tasks

DATA = Path(__file__).resolve().parent / "data"
VALID = DATA / "valid"
LIST_KEYS = {"id", "subset", "language", "stages", "triples", "corpus_docs"}


def test_list_json_shape(cli):
    result = cli("tasks", "list", VALID, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["id"] for r in rows] == ["mini-ours", "mini-ours-yaml", "mini_official"]
    for row in rows:
        assert set(row) == LIST_KEYS
        task = get_task(row["id"], [VALID])
        assert row == {
            "id": task.id, "subset": task.subset, "language": task.language,
            "stages": task.stage_count(), "triples": len(task.graph), "corpus_docs": len(load_corpus(task)),
        }
    assert rows[0]["corpus_docs"] == 2


def test_list_table(cli):
    result = cli("tasks", "list", VALID)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    row = next(line for line in lines if line.strip().startswith("mini-ours "))
    assert row.split() == ["mini-ours", "daily", "en", "3", "2", "2"]
    assert any("language" in line and "stages" in line and "triples" in line for line in lines)


def test_list_defaults_to_bundled_and_env(cli, monkeypatch, tmp_path):
    bundled = {t.id for t in load_tasks([BUNDLED_TASKS])}
    (tmp_path / "x.json").write_text((VALID / "mini-ours.json").read_text().replace('"corpus": "corpus/mini-ours.jsonl"', '"corpus": null'))
    monkeypatch.setenv("VIBESEARCH_TASKS", str(tmp_path))
    reset_settings()
    try:
        result = cli("tasks", "list", "--json")
    finally:
        monkeypatch.delenv("VIBESEARCH_TASKS")
        reset_settings()
    assert result.exit_code == 0, result.output
    assert {r["id"] for r in json.loads(result.stdout)} == bundled | {"mini-ours"}


def test_list_reports_broken_files(cli, tmp_path):
    (tmp_path / "good.json").write_text((VALID / "mini_official.json").read_text())
    (tmp_path / "bad.yaml").write_text("id: [")
    result = cli("tasks", "list", tmp_path, "--json")
    assert result.exit_code == 1
    assert [r["id"] for r in json.loads(result.stdout)] == ["mini_official"]
    assert f"{tmp_path / 'bad.yaml'}: line 1: invalid YAML" in result.stderr


def test_show_json_is_the_model(cli):
    result = cli("tasks", "show", "mini-ours", "--tasks", VALID, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == get_task("mini-ours", [VALID]).model_dump(mode="json")


def test_show_card_and_stages(cli):
    result = cli("tasks", "show", "mini_official", "--tasks", VALID)
    assert result.exit_code == 0, result.output
    out = result.stdout
    task = get_task("mini_official", [VALID])
    for i, stage in enumerate(task.stages, start=1):
        assert f"Stage {i}" in out and stage.name in out and stage.trigger.kind in out
    assert "asks" in out and "start" in out
    assert "hobby stargazer" in out  # background
    assert "Which planets are up?" in out  # a fallback
    cues = cli("tasks", "show", "mini-ours", "--tasks", VALID).stdout
    assert "cues" in cues and "Jupiter" in cues and "2 documents" in cues


def test_export_writes_official_format(cli, tmp_path):
    out = tmp_path / "sub" / "mini.json"
    result = cli("tasks", "export", "mini-ours", "--out", out, "--tasks", VALID)
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text())
    assert record["task_id"] == "mini-ours"
    assert {"task_id", "final_query", "user_persona", "nodes", "triples", "language"} <= set(record)
    back = load_tasks([out])[0]
    orig = get_task("mini-ours", [VALID])
    assert back.persona == orig.persona and back.graph == orig.graph
    jsonl = tmp_path / "mini.jsonl"
    assert cli("tasks", "export", "mini-ours", "-o", jsonl, "--tasks", VALID).exit_code == 0
    assert len(jsonl.read_text().splitlines()) == 1
    assert load_tasks([jsonl])[0].persona == orig.persona


def test_errors_are_one_liners(cli, tmp_path):
    cases = [
        (("tasks", "show", "nope", "--tasks", VALID), "no task with id 'nope'"),
        (("tasks", "export", "nope", "--out", tmp_path / "x.json", "--tasks", VALID), "no task with id 'nope'"),
        (("tasks", "list", tmp_path / "missing"), "no such file or folder"),
        (("tasks", "show", "mini-ours", "--tasks", tmp_path / "missing"), "no such file or folder"),
        (("tasks", "export", "mini-ours", "--out", tmp_path, "--tasks", VALID), "is a folder; give a file name"),
    ]
    for args, words in cases:
        result = cli(*args)
        assert result.exit_code == 1, args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, result.stderr)
        assert "Traceback" not in result.output


def test_commands_do_not_import_heavy_libraries():
    code = f"""
import sys, typer
from vibesearch.cli import tasks
app = typer.Typer()
tasks.register(app)
@app.callback()
def main(): pass
for args in (["tasks", "list", {str(VALID)!r}, "--json"], ["tasks", "show", "mini-ours", "--tasks", {str(VALID)!r}],
             ["tasks", "validate", {str(VALID)!r}], ["tasks", "export", "mini-ours", "--out", sys.argv[1], "--tasks", {str(VALID)!r}]):
    try:
        app(args)
    except SystemExit as exc:
        assert not exc.code, (args, exc.code)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "gradio", "openai", "sqlmodel"))
print("HEAVY", heavy)
"""
    with_tmp = Path(subprocess.run([sys.executable, "-c", "import tempfile; print(tempfile.mkdtemp())"], capture_output=True, text=True).stdout.strip())
    proc = subprocess.run([sys.executable, "-c", code, str(with_tmp / "x.json")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout
