"""Loading table tasks: our own files and WideSearch's published layout.

Our format: one JSON/YAML file per task (or a list of tasks), the ``TableTask`` model serialised,
with the gold table inline (``rows``) or in a CSV beside it (``gold``; its header row names the
columns; extra CSV columns are ignored). WideSearch's layout (``widesearch.jsonl`` plus
``widesearch_gold/<instance_id>.csv``) is read unchanged by ``_widesearch.py``.

``load_table_tasks(paths)`` accepts files and folders of either layout. Walking folders, reading
files, collecting problems and the one-id-once rule are the task loader's (``tasks/loader.py``):
folders are searched recursively, ``corpus/`` and ``widesearch_gold/`` folders and hidden files
are skipped, and files inside a folder that are not table tasks are skipped with a warning.
Every problem names the file, the field and what is wrong; ``load_table_tasks`` raises
``TaskLoadError`` when any is an error. A loaded table task runs as a ``Task`` of kind
``"table"`` (``convert.table_task_to_task``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from .._files import is_regular_file
from ..tasks import CorpusDoc, TaskLoadError, TaskNotFound, TaskProblem, loader_field_problems
from ..tasks.loader import CORPUS_DIR, collect_tasks, join_path, problems_from_validation, read_corpus, read_records, walk_files
from ._gold_csv import read_gold_csv
from ._widesearch import parse_widesearch_records
from .models import TableTask

SKIP_DIRS = (CORPUS_DIR, "widesearch_gold")  # folders a scan never reads tasks from


def _our_record(record: dict[str, Any], path: Path, prefix: str) -> tuple[TableTask | None, list[TaskProblem]]:
    tid = record.get("id") if isinstance(record.get("id"), str) else None
    file = str(path)
    if record.get("gold") is not None and record.get("rows") is not None:
        return None, [TaskProblem(file, join_path(prefix, "gold"), "give the gold table either as 'gold' (a CSV) or as 'rows', not both", tid)]
    problems = loader_field_problems(record, file, tid, prefix)
    record = {**record, "source_file": file}
    try:
        tt = TableTask.model_validate(record)
    except ValidationError as exc:
        return None, problems + problems_from_validation(file, exc, tid, root=TableTask, prefix=prefix)
    if problems:
        return None, problems
    if tt.rows is None and tt.gold:
        csv_path = path.parent / tt.gold
        folder = path.parent.resolve()
        try:
            inside = csv_path.resolve().is_relative_to(folder)
        except (RuntimeError, OSError):  # pathlib's "Symlink loop"
            return None, [TaskProblem(str(csv_path), join_path(prefix, "gold"), "cannot read the gold CSV: its symbolic links loop", tid)]
        if not inside:  # absolute, '..' or a link out: never read
            return None, [TaskProblem(file, join_path(prefix, "gold"), "the gold CSV must be a file in the task file's folder (or below it)", tid)]
        rows, problems = read_gold_csv(
            csv_path, tt.columns, tt.primary_key, task_id=tt.id, field=join_path(prefix, "gold"), duplicates_are_errors=True
        )
        if rows is None or any(not p.warning for p in problems):
            return None, problems
        try:
            tt = TableTask.model_validate({**record, "rows": rows})
        except ValidationError as exc:
            return None, problems + problems_from_validation(str(csv_path), exc, tt.id, root=TableTask, prefix=join_path(prefix, "gold"))
    if tt.corpus and not is_regular_file(path.parent / tt.corpus):
        return None, problems + [TaskProblem(file, join_path(prefix, "corpus"), f"no such file: {path.parent / tt.corpus}", tt.id)]
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
        records, is_list = read_records(path)
    except TaskLoadError as exc:
        return [], exc.problems
    except OSError as exc:
        return [], [TaskProblem(str(path), "", f"cannot read: {exc.strerror or exc}")]
    kinds = {_kind(r) for r in records}
    if in_folder and kinds == {"other"}:
        return [], [TaskProblem(str(path), "", "not a table task; skipped", warning=True)]
    if "widesearch" in kinds:
        return parse_widesearch_records(path, records)
    tasks: list[TableTask] = []
    problems: list[TaskProblem] = []
    for i, record in enumerate(records):
        prefix = f"[{i}]" if is_list and len(records) > 1 else ""
        if not isinstance(record, dict):
            problems.append(TaskProblem(str(path), prefix, "expected a JSON object"))
            continue
        tt, probs = _our_record(record, path, prefix)
        problems.extend(probs)
        if tt is not None:
            tasks.append(tt)
    return tasks, problems


def load_table_tasks_with_problems(paths: Iterable[str | Path]) -> tuple[list[TableTask], list[TaskProblem]]:
    """Every table task under ``paths`` and every problem, collected by the task loader's rules
    (a missing path is a problem, each file is read once, a task id loads once)."""
    return collect_tasks(paths, lambda file, in_folder: parse_table_file(file, in_folder=in_folder), skip_dirs=SKIP_DIRS)


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
    for f, _ in walk_files([path], skip_dirs=SKIP_DIRS):
        try:
            records, _ = read_records(f)
        except (TaskLoadError, OSError):
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
    return read_corpus(path, tt.id)
