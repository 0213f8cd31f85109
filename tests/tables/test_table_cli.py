"""``vibesearch table list|gold|score``: text output, --json, and clear errors."""

from __future__ import annotations

import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from vibesearch.cli import table as table_cli
from vibesearch.cli.main import app
from vibesearch.config import BUNDLED_TABLE_TASKS
from vibesearch.tables import get_table_task, gold_markdown

runner = CliRunner()


@pytest.fixture
def wide_console(monkeypatch):
    """A colour terminal wide enough that cells are not wrapped."""
    console = Console(force_terminal=True, color_system="standard", width=220)
    monkeypatch.setattr(table_cli, "console", console)
    return console


@pytest.fixture
def answer_file(tmp_path):
    tt = get_table_task("galilean-moons")
    text = gold_markdown(tt).replace("| 5268 |", "| 6000 |")
    path = tmp_path / "answer.md"
    path.write_text("My table:\n\n" + text, encoding="utf-8")
    return path


def test_table_score_text_shows_metrics_and_red_wrong_cells(answer_file, wide_console):
    res = runner.invoke(app, ["table", "score", str(BUNDLED_TABLE_TASKS), "galilean-moons", str(answer_file)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "galilean-moons" in out and "SR 0" in out
    assert "Row-F1  75.0" in out and "(precision 75.0, recall 75.0)" in out
    assert "Item-F1 95.0" in out and "(precision 95.0, recall 95.0)" in out
    # the wrong cell is printed in red with its gold value; right cells in green
    assert "\x1b[31m6000 (gold: 5268)" in out
    assert "\x1b[32mIo" in out
    assert "wrong cell(s)" in out


def test_table_score_json(answer_file):
    res = runner.invoke(app, ["table", "score", str(BUNDLED_TABLE_TASKS / "galilean-moons.json"), "galilean-moons", str(answer_file), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("success", "row_precision", "row_recall", "row_f1", "item_precision", "item_recall", "item_f1", "reason"):
        assert key in data
    assert data["success"] is False
    assert data["row_f1"] == pytest.approx(0.75) and data["item_f1"] == pytest.approx(0.95)
    assert [c["column"] for c in data["cells"] if not c["right"]] == ["Mean diameter (km)"]


def test_table_score_gold_answer_succeeds_from_stdin():
    tt = get_table_task("tang-song-masters")
    res = runner.invoke(app, ["table", "score", str(BUNDLED_TABLE_TASKS), "tang-song-masters", "-", "--json"], input=gold_markdown(tt))
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["success"] is True


def test_table_score_errors(answer_file, tmp_path):
    res = runner.invoke(app, ["table", "score", str(BUNDLED_TABLE_TASKS), "ws_en_404", str(answer_file)])
    assert res.exit_code == 1 and "no table task with id 'ws_en_404'" in res.output and "galilean-moons" in res.output
    res = runner.invoke(app, ["table", "score", str(BUNDLED_TABLE_TASKS), "galilean-moons", str(tmp_path / "none.md")])
    assert res.exit_code == 1 and "no such answer file" in res.output
    res = runner.invoke(app, ["table", "score", str(tmp_path / "nowhere"), "galilean-moons", str(answer_file)])
    assert res.exit_code == 1 and "no such file or folder" in res.output


def test_table_score_widesearch_layout(widesearch_dir, tmp_path):
    answer = tmp_path / "a.md"
    answer.write_text(
        "| University | Founded | State |\n|---|---|---|\n| Harvard University | 1636 | Massachusetts |\n| Yale | 1701 | Connecticut |",
        encoding="utf-8",
    )
    res = runner.invoke(app, ["table", "score", str(widesearch_dir / "widesearch.jsonl"), "ws_en_999", str(answer), "--json"])
    data = json.loads(res.stdout)
    # Harvard aligned and right; "Yale" is not "Yale University" offline -> extra row
    # rows: P 1/2, R 1/4; items: right 3, P 3/6, R 3/12
    assert data["row_precision"] == pytest.approx(0.5) and data["row_recall"] == pytest.approx(0.25)
    assert data["item_precision"] == pytest.approx(0.5) and data["item_recall"] == pytest.approx(0.25)


def test_table_list_and_gold(widesearch_dir):
    res = runner.invoke(app, ["table", "list", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in json.loads(res.stdout)}
    assert rows["tang-song-masters"]["language"] == "zh" and rows["tang-song-masters"]["gold_rows"] == 8
    assert rows["university-groups"]["corpus_docs"] >= 8
    res = runner.invoke(app, ["table", "list", str(widesearch_dir)])
    assert res.exit_code == 0 and "ws_en_999" in res.output
    res = runner.invoke(app, ["table", "gold", str(BUNDLED_TABLE_TASKS), "galilean-moons"])
    assert res.exit_code == 0 and "| Io | Galileo Galilei | January 8, 1610 | 3643 | 1.769 |" in res.output
