"""``vibesearch agent ask``: one turn printed live, stored only with --db."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vibesearch.cli.main import app
from vibesearch.store import Store

runner = CliRunner()


@pytest.fixture
def task_dir(small_task):
    from pathlib import Path

    return str(Path(small_task.source_file).parent)


def test_ask_baseline_prints_tools_and_reply_without_a_db(task_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["agent", "ask", "Who taught Leonhard Euler?", "--task", "tiny-en-mathematicians", "--tasks", task_dir])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "→ search" in out and "← search" in out and "→ visit" in out
    assert "https://example.org/euler" in out
    assert "Would you like more detail on" in out
    assert not list(tmp_path.glob("*.db"))  # nothing stored


def test_ask_with_db_and_graph_stores_the_turn(task_dir, tmp_path):
    db = tmp_path / "ask.db"
    result = runner.invoke(
        app, ["agent", "ask", "Where was Leonhard Euler born?", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--db", str(db), "--graph"]
    )
    assert result.exit_code == 0, result.output
    assert "Leonhard Euler" in result.output and "Basel" in result.output
    store = Store(db)
    (run,) = store.list_runs()
    assert (run.status, run.termination, run.agent, run.user) == ("finished", "answer", "baseline", "direct")
    kinds = [e.kind for e in store.events(run.id)]
    assert kinds[:2] == ["message", "message"] and kinds[-2:] == ["graph", "end"]
    assert kinds.count("tool_call") == 2
    graph = store.latest_graph(run.id)
    assert "Basel" in graph.triples_json


def test_ask_react_with_a_scripted_model(fake, task_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def handler(req):
        if not req.tool_results():
            return fake.Reply(tool_calls=[("search", {"query": "Euler teacher"})])
        return fake.Reply(content="Johann Bernoulli taught Euler.")

    model = fake.register("cli-react", handler)
    result = runner.invoke(app, ["agent", "ask", "Who taught Euler?", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--agent", "react", "--model", model])
    assert result.exit_code == 0, result.output
    assert '→ search {"query": "Euler teacher"}' in result.output
    assert "Johann Bernoulli taught Euler." in result.output
    assert "agent call" in result.output  # usage lines


def test_ask_errors_are_clear(task_dir):
    result = runner.invoke(app, ["agent", "ask", "hi", "--task", "no-such-task", "--tasks", task_dir])
    assert result.exit_code == 1 and "no such task" in result.output
    result = runner.invoke(app, ["agent", "ask", "hi", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--agent", "react"])
    assert result.exit_code == 1 and "needs a model" in result.output
    result = runner.invoke(app, ["agent", "ask", "hi", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--agent", "gpt"])
    assert result.exit_code == 1 and "--agent 'gpt'" in result.output
    result = runner.invoke(app, ["agent", "ask", "hi", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--search", "bing"])
    assert result.exit_code == 1 and "--search 'bing'" in result.output


def test_ask_reports_a_failing_model(fake, task_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_LLM_RETRIES", "0")
    from vibesearch.config import reset_settings

    reset_settings()
    try:
        model = fake.register("cli-broken", lambda req: fake.Reply(error="400"))
        db = tmp_path / "fail.db"
        result = runner.invoke(
            app, ["agent", "ask", "hi", "--task", "tiny-en-mathematicians", "--tasks", task_dir, "--agent", "react", "--model", model, "--db", str(db)]
        )
    finally:
        reset_settings()
    assert result.exit_code == 1
    assert "failed" in result.output
    (run,) = Store(db).list_runs()
    assert run.status == "failed" and run.termination == "error"
