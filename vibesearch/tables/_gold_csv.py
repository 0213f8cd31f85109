"""Reading a gold table from a CSV file: our table tasks' ``gold`` file and WideSearch's
``widesearch_gold/<instance_id>.csv`` alike (both loaders import it from here)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .._files import InputFileError, read_text, short
from ..tasks import TaskProblem
from ..tasks.table import TableColumn
from ._normalise import norm_header, norm_text


def read_gold_csv(
    path: Path, columns: list[TableColumn], primary_key: list[str], *, task_id: str, field: str, duplicates_are_errors: bool
) -> tuple[list[dict[str, str]] | None, list[TaskProblem]]:
    """Gold rows keyed by column name. Headers match columns after normalisation."""
    problems: list[TaskProblem] = []
    try:
        table = list(csv.reader(io.StringIO(read_text(path), newline="")))
    except InputFileError as exc:
        return None, [TaskProblem(str(path), field, f"cannot read the gold CSV: {exc.message}", task_id)]
    except csv.Error as exc:
        return None, [TaskProblem(str(path), field, f"not a readable CSV: {str(exc)[:120]}", task_id)]
    if not table:
        return None, [TaskProblem(str(path), field, "the gold CSV is empty", task_id)]
    header = [norm_header(h) for h in table[0]]
    where: dict[str, int] = {}
    for col in columns:
        if col.key in header:
            where[col.name] = header.index(col.key)
        else:
            problems.append(TaskProblem(str(path), f"{field} header", f"no column {short(col.name)} (the header has {len(table[0])} columns)", task_id))
    if problems:
        return None, problems
    rows: list[dict[str, str]] = []
    seen: dict[tuple[str, ...], int] = {}
    for line_no, cells in enumerate(table[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if any("\x00" in c for c in cells):
            return None, [TaskProblem(f"{path}:{line_no}", field, "a cell holds a NUL character (\\u0000), which cannot be stored", task_id)]
        row = {name: (cells[i].strip() if i < len(cells) else "") for name, i in where.items()}
        key = tuple(norm_text(row[k]) for k in primary_key)
        if not all(key):
            problems.append(TaskProblem(f"{path}:{line_no}", field, "a primary-key cell is empty; row skipped", task_id, warning=not duplicates_are_errors))
            continue
        if key in seen:
            problems.append(
                TaskProblem(
                    f"{path}:{line_no}", field,
                    f"primary key {short(' | '.join(row[k] for k in primary_key))} repeats line {seen[key]}"
                    + ("" if duplicates_are_errors else "; the first row is kept"),
                    task_id, warning=not duplicates_are_errors,
                )
            )
            continue
        seen[key] = line_no
        rows.append(row)
    if not rows:
        problems.append(TaskProblem(str(path), field, "the gold CSV has no rows", task_id))
        return None, problems
    return rows, problems
