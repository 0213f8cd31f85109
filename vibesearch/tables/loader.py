"""Loading table tasks: our own files and WideSearch's published layout.

Our format: one JSON/YAML file per task (or a list of tasks), the ``TableTask`` model serialised,
with the gold table inline (``rows``) or in a CSV beside it (``gold``; its header row names the
columns; extra CSV columns are ignored). WideSearch's layout (``widesearch.jsonl`` plus
``widesearch_gold/<instance_id>.csv``) is read unchanged by ``_widesearch.py``.

``load_table_tasks(paths)`` accepts files and folders of either layout. Folders are searched
recursively; ``corpus/`` and ``widesearch_gold/`` folders are skipped, and files inside a folder
that are not table tasks are skipped with a warning. Every problem names the file, the field and
what is wrong; ``load_table_tasks`` raises ``TaskLoadError`` when any is an error.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from .._files import InputFileError, is_regular_file, parse_json, parse_jsonl, parse_yaml, read_text, short

from ..tasks import CorpusDoc, TaskLoadError, TaskNotFound, TaskProblem
from ._normalise import norm_header, norm_text
from .models import TableColumn, TableTask

TABLE_SUFFIXES = {".json", ".yaml", ".yml", ".jsonl"}
SKIP_DIRS = {"corpus", "widesearch_gold"}


def _loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def validation_problems(file: str, exc: ValidationError, task_id: str | None, prefix: str = "") -> list[TaskProblem]:
    out = []
    for err in exc.errors(include_url=False, include_context=False, include_input=False):
        msg = err["msg"].removeprefix("Value error, ")
        out.append(TaskProblem(file=file, field=prefix + _loc(err["loc"]), message=msg, task_id=task_id))
    return out


# ---------------------------------------------------------------------- files
def read_records(path: Path) -> list[Any]:
    """The records of one file (JSON object or list, JSONL, YAML); raises TaskLoadError.

    The file is read with the product's one rule for input files (``vibesearch._files``)."""
    try:
        text = read_text(path)
        if path.suffix == ".jsonl":
            return [record for _, record in parse_jsonl(text, path)]
        data = parse_json(text, path) if path.suffix == ".json" else parse_yaml(text, path)
    except InputFileError as exc:
        raise TaskLoadError([TaskProblem(str(path), exc.field, exc.message)]) from None
    if data is None:
        raise TaskLoadError([TaskProblem(str(path), "", "the file is empty")])
    return data if isinstance(data, list) else [data]


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


def _our_record(record: dict[str, Any], path: Path, prefix: str) -> tuple[TableTask | None, list[TaskProblem]]:
    tid = record.get("id") if isinstance(record.get("id"), str) else None
    file = str(path)
    if record.get("gold") is not None and record.get("rows") is not None:
        return None, [TaskProblem(file, prefix + "gold", "give the gold table either as 'gold' (a CSV) or as 'rows', not both", tid)]
    try:
        tt = TableTask.model_validate(record)
    except ValidationError as exc:
        return None, validation_problems(file, exc, tid, prefix)
    problems: list[TaskProblem] = []
    if tt.rows is None and tt.gold:
        csv_path = path.parent / tt.gold
        folder = path.parent.resolve()
        if not csv_path.resolve().is_relative_to(folder):  # absolute, '..' or a link out: never read
            return None, [TaskProblem(file, prefix + "gold", "the gold CSV must be a file in the task file's folder (or below it)", tid)]
        rows, problems = read_gold_csv(
            csv_path, tt.columns, tt.primary_key, task_id=tt.id, field=prefix + "gold", duplicates_are_errors=True
        )
        if rows is None or any(not p.warning for p in problems):
            return None, problems
        try:
            tt = TableTask.model_validate({**record, "rows": rows})
        except ValidationError as exc:
            return None, problems + validation_problems(str(csv_path), exc, tt.id, prefix + "gold ")
    if tt.corpus and not is_regular_file(path.parent / tt.corpus):
        return None, problems + [TaskProblem(file, prefix + "corpus", f"no such file: {path.parent / tt.corpus}", tt.id)]
    tt._file = file
    return tt, problems


def _kind(record: Any) -> str:
    if isinstance(record, dict):
        if "instance_id" in record and "evaluation" in record:
            return "widesearch"
        if "columns" in record or "primary_key" in record:
            return "ours"
    return "other"


def parse_table_file(path: Path, *, in_folder: bool = False) -> tuple[list[TableTask], list[TaskProblem]]:
    """Tasks of one file. In a folder scan, files that hold no table task are skipped (warning)."""
    path = Path(path)
    try:
        records = read_records(path)
    except TaskLoadError as exc:
        return [], exc.problems
    kinds = {_kind(r) for r in records}
    if in_folder and kinds == {"other"}:
        return [], [TaskProblem(str(path), "", "not a table task; skipped", warning=True)]
    if "widesearch" in kinds:
        from ._widesearch import parse_widesearch_records

        return parse_widesearch_records(path, records)
    tasks: list[TableTask] = []
    problems: list[TaskProblem] = []
    for i, record in enumerate(records):
        prefix = f"[{i}]." if len(records) > 1 else ""
        if not isinstance(record, dict):
            problems.append(TaskProblem(str(path), prefix.rstrip("."), "expected a JSON object"))
            continue
        tt, probs = _our_record(record, path, prefix)
        problems.extend(probs)
        if tt is not None:
            tasks.append(tt)
    return tasks, problems


def iter_table_files(paths: Iterable[str | Path]) -> list[tuple[Path, bool]]:
    out: list[tuple[Path, bool]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p).parts[:-1]
                if f.is_file() and f.suffix in TABLE_SUFFIXES and not SKIP_DIRS.intersection(rel):
                    out.append((f, True))
        elif p.exists():
            out.append((p, False))
    return out


def load_table_tasks_with_problems(paths: Iterable[str | Path]) -> tuple[list[TableTask], list[TaskProblem]]:
    paths = list(paths)
    tasks: list[TableTask] = []
    problems: list[TaskProblem] = [TaskProblem(str(p), "", "no such file or folder") for p in paths if not Path(p).exists()]
    seen: dict[str, str] = {}
    for file, in_folder in iter_table_files(paths):
        got, probs = parse_table_file(file, in_folder=in_folder)
        problems.extend(probs)
        for tt in got:
            if tt.id in seen:
                problems.append(TaskProblem(str(file), "id", f"duplicate task id {short(tt.id)} (also in {seen[tt.id]})", tt.id))
                continue
            seen[tt.id] = str(file)
            tasks.append(tt)
    return tasks, problems


def load_table_tasks(paths: Iterable[str | Path] | str | Path | None = None) -> list[TableTask]:
    """Every table task under ``paths`` (default: the bundled ``tables/``); raises on any error."""
    if paths is None:
        from ..config import BUNDLED_TABLE_TASKS

        paths = [BUNDLED_TABLE_TASKS]
    elif isinstance(paths, (str, Path)):
        paths = [paths]
    tasks, problems = load_table_tasks_with_problems(paths)
    errors = [p for p in problems if not p.warning]
    if errors:
        raise TaskLoadError(errors)
    return tasks


def get_table_task(task_id: str, paths: Iterable[str | Path] | str | Path | None = None) -> TableTask:
    tasks = load_table_tasks(paths)
    for tt in tasks:
        if tt.id == task_id:
            return tt
    known = ", ".join(t.id for t in tasks[:20]) or "none"
    raise TaskNotFound(f"no table task with id {task_id!r} (known: {known})")


def is_table_task_path(path: str | Path) -> bool:
    """True when a file or folder holds table tasks (so a caller can pick this loader)."""
    files = iter_table_files([path])
    for f, _ in files:
        try:
            records = read_records(f)
        except TaskLoadError:
            continue
        if any(_kind(r) != "other" for r in records):
            return True
    return False


def load_table_corpus(tt: TableTask) -> list[CorpusDoc]:
    """The task's offline documents ([] when it has none)."""
    if not tt.corpus:
        return []
    base = Path(tt.source_file).parent if tt.source_file else Path(".")
    path = Path(tt.corpus) if Path(tt.corpus).is_absolute() else base / tt.corpus
    docs: list[CorpusDoc] = []
    try:
        lines = read_text(path).splitlines()
    except InputFileError as exc:
        raise TaskLoadError([TaskProblem(str(path), exc.field, f"cannot read the corpus: {exc.message}", tt.id)]) from None
    for i, line in enumerate(lines, start=1):
        if line.strip():
            try:
                docs.append(CorpusDoc.model_validate_json(line))
            except ValidationError as exc:
                raise TaskLoadError(validation_problems(f"{path}:{i}", exc, tt.id)) from None
    return docs
