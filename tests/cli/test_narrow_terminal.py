"""What the commands print stays whole and readable in an 80-column terminal.

``tasks show`` used to cut every Chinese text longer than a line with "…" (rich breaks lines only
at spaces, and Chinese has none), while English wrapped; the ``run`` summary squeezed the task id
into a column a few letters wide. Both run here as real subprocesses with ``COLUMNS`` set."""

from __future__ import annotations

import re

import pytest
from cli_harness import run_cli
from rich.cells import cell_len

from vibesearch.cli import wrap_lines
from vibesearch.config import BUNDLED_TASKS
from vibesearch.tasks import load_tasks

_FRAME = re.compile(r"[\s│╭╮╰╯─]")


def _bundled(task_id: str):
    return next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == task_id)


@pytest.mark.parametrize("task_id", ["daily-zh-traditional-festivals", "pro-zh-ancient-astronomy", "pro-en-analysis-history"])
def test_tasks_show_wraps_every_text_whole_at_80_columns(task_id):
    out = run_cli("tasks", "show", task_id, env={"COLUMNS": "80"}, timeout=60)
    assert out.code == 0, out.text
    lines = out.stdout.splitlines()
    assert lines and max(cell_len(line) for line in lines) <= 80
    task = _bundled(task_id)
    texts = [task.persona.background, task.persona.behavior, task.persona.initial_query]
    for stage in task.stages:
        texts += [stage.trigger.condition, stage.line, stage.fallback or ""]
    assert "…" not in out.stdout  # no bundled text holds one: any here is a cut
    # every text is there, character for character, once the frame and line breaks are taken out
    flat = _FRAME.sub("", out.stdout)
    for text in filter(None, texts):
        assert _FRAME.sub("", text) in flat, text[:40]
    # and a Chinese text really wraps: some stage takes more than one line at this width
    if task.language == "zh":
        assert any(cell_len(t) > 80 for t in texts)


def test_wrapped_lines_fit_keep_every_character_and_never_start_with_a_closing_mark():
    text = "我是一名31岁的上班族妈妈，女儿6岁，在上幼儿园大班。今年想带女儿把一年里的传统节日好好过一遍（春节、元宵节）：讲讲由来。Plain English words wrap between words."
    for width in (7, 12, 20, 33):
        lines = wrap_lines(text, width)
        assert all(cell_len(line) <= width for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert not any(line[:1] in "，。、）：" for line in lines), (width, lines)
        assert not any(line[-1:] in "（" for line in lines), (width, lines)
        assert "Plain" in "".join(lines) and not any(line.endswith("Pla") for line in lines)  # words stay whole


def test_run_summary_at_80_columns_keeps_each_field_readable(tmp_path):
    task_id = "daily-zh-traditional-festivals"
    out = run_cli("run", "-t", task_id, "--db", tmp_path / "v.db", env={"COLUMNS": "80"}, timeout=180, cwd=tmp_path)
    assert out.code == 0, out.text
    lines = out.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80, out.stdout
    header = next(i for i, line in enumerate(lines) if re.match(r"\s*run\s+task\s+status\s+stages", line))
    head = lines[header]
    task_at, status_at, stages_at = head.index("task"), head.index("status"), head.index("stages")
    rows = []
    for line in lines[header + 2:]:
        if not line.strip():
            break
        rows.append(line)
    run_id = rows[0][:task_at].strip()
    assert re.fullmatch(r"[0-9a-f]{12}", run_id), rows[0]  # the run id whole, on the row's first line
    # the task column, read down the row, is the task id and the run index, broken after hyphens
    pieces = [line[task_at:status_at].strip() for line in rows]
    assert "".join(pieces) == f"{task_id}#0"
    assert all(p.endswith("-") for p in pieces[:-1] if p), pieces
    status = " ".join(line[status_at:stages_at].strip() for line in rows).split()
    assert status[0] == "finished" and status[1].startswith("(")
    assert re.search(r"\b\d+/11\b", rows[0]), rows[0]  # the counts on the first line, beside the run id
