"""A table task as a normal ``Task``, so the session can run it like any persona task.

The persona has one ``start`` stage whose line is the request: the query, then (for our own
tasks) the column list and the required output - one Markdown table. WideSearch queries already
state both, so they are used as published. The graph is the gold table as triples
``(row key, column, value)``; the task's ``kind`` is ``"table"`` and its ``table`` part is the whole
table task, gold rows included, so a run's task snapshot can be scored without the original files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from pydantic import ValidationError

from ..tasks import Persona, Stage, Task, Trigger, Triple
from ..tasks.models import upgrade_task_data
from .models import TableTask, cell_text


def request_line(tt: TableTask) -> str:
    """What the user asks: the query plus the columns and the output format."""
    if tt.origin == "widesearch":
        return tt.query.strip()
    if tt.language == "zh":
        cols = "、".join(tt.column_names)
        notes = "".join(f"\n- {c.name}：{c.description}" for c in tt.columns if c.description)
        return (
            f"{tt.query.strip()}\n\n请只用一个 Markdown 表格作答（放在 ```markdown 代码块里），"
            f"列依次为：{cols}。每项占一行，不要输出其他表格。" + (f"\n列说明：{notes}" if notes else "")
        )
    cols = " | ".join(tt.column_names)
    notes = "".join(f"\n- {c.name}: {c.description}" for c in tt.columns if c.description)
    return (
        f"{tt.query.strip()}\n\nAnswer with exactly one Markdown table (inside a ```markdown block) whose "
        f"columns are, in this order: {cols}. One row per item, and no other table."
        + (f"\nColumn notes:{notes}" if notes else "")
    )


def gold_triples(tt: TableTask) -> list[Triple]:
    key_only = all(c.name in tt.primary_key for c in tt.columns)
    triples: list[Triple] = []
    for row in tt.gold_rows():
        key = tt.row_key(row)
        for col in tt.columns:
            if col.name in tt.primary_key and not key_only:
                continue
            value = cell_text(row[col.name])
            if value:
                triples.append(Triple(head=key, relation=col.name, tail=value))
    return triples


def table_task_to_task(tt: TableTask) -> Task:
    line = request_line(tt)
    background = (
        "我需要一张完整、准确的表格，每个单元格都要核实。" if tt.language == "zh"
        else "I need one complete, accurate table; every cell will be checked."
    )
    corpus = None
    if tt.corpus:
        base = Path(tt.source_file).parent if tt.source_file else Path(".")
        corpus = str((base / tt.corpus).resolve()) if not Path(tt.corpus).is_absolute() else tt.corpus
    return Task(
        id=tt.id,
        subset="daily",
        language=tt.language,
        domain="table",
        title=tt.title or tt.query.strip().splitlines()[0][:80],
        persona=Persona(
            background=background,
            initial_query=line,
            behavior="Wants the whole table in one Markdown table.",
            stages=[Stage(name="Table request", trigger=Trigger(kind="start", condition="conversation start"), line=line)],
        ),
        graph=gold_triples(tt),
        sources=list(tt.sources),
        corpus=corpus,
        final_query=line,
        kind="table",
        table=tt,
        source_file=tt.source_file,
    )


def table_task_from_task(task: Task | Mapping[str, Any]) -> TableTask:
    """The table part of a ``Task`` or of its stored JSON snapshot (runs stored before
    ``Task.kind`` existed included). Raises ``ValueError`` for any other task."""
    if isinstance(task, Task):
        if task.kind != "table" or task.table is None:
            raise ValueError("this task is not a table task (its kind is not 'table')")
        return task.table
    data = upgrade_task_data(task or {})
    part = data.get("table")
    if data.get("kind") != "table" or not isinstance(part, dict):
        raise ValueError("this task is not a table task (its kind is not 'table' or it has no table part)")
    try:
        return TableTask.model_validate(part)
    except ValidationError as exc:
        raise ValueError(f"the stored table part is not a valid table task: {exc.error_count()} problem(s), first: {exc.errors()[0]['msg']}") from None


def _md_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def gold_markdown(tt: TableTask) -> str:
    """The gold table as one Markdown table (the answer that scores SR = 1)."""
    lines = ["| " + " | ".join(_md_cell(c) for c in tt.column_names) + " |", "|" + "---|" * len(tt.columns)]
    for row in tt.gold_rows():
        lines.append("| " + " | ".join(_md_cell(row[c]) for c in tt.column_names) + " |")
    return "\n".join(lines)
