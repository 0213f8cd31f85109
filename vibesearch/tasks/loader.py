"""Loading tasks from files and folders.

``load_tasks(paths)`` reads every task file under the given files/folders (our JSON/YAML format;
the official format is recognised by its keys). Problems are collected as ``TaskProblem``s that
name the file, the field path and what is wrong; a file with a problem loads nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from .models import CorpusDoc, Task

TASK_SUFFIXES = {".json", ".yaml", ".yml", ".jsonl"}


@dataclass
class TaskProblem:
    file: str
    field: str
    message: str
    task_id: str | None = None
    stage: int | None = None
    warning: bool = False

    def __str__(self) -> str:
        where = self.field or "-"
        extra = []
        if self.task_id:
            extra.append(f"task {self.task_id}")
        if self.stage is not None:
            extra.append(f"stage {self.stage}")
        suffix = f" ({', '.join(extra)})" if extra else ""
        return f"{self.file}: {where}: {self.message}{suffix}"


class TaskLoadError(ValueError):
    def __init__(self, problems: list[TaskProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class TaskNotFound(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def _loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def problems_from_validation(file: str, exc: ValidationError, task_id: str | None = None) -> list[TaskProblem]:
    return [TaskProblem(file=file, field=_loc(err["loc"]), message=err["msg"], task_id=task_id) for err in exc.errors()]


def read_records(path: Path) -> list[dict[str, Any]]:
    """Raw records of one file: a JSON object or list, JSONL, or YAML."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        records = []
        for i, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise TaskLoadError([TaskProblem(str(path), f"line {i}", f"invalid JSON: {exc.msg}")]) from None
        return records
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise TaskLoadError([TaskProblem(str(path), f"line {exc.lineno}", f"invalid JSON: {exc.msg}")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise TaskLoadError([TaskProblem(str(path), where, f"invalid YAML: {getattr(exc, 'problem', exc)}")]) from None
    if data is None:
        raise TaskLoadError([TaskProblem(str(path), "", "the file is empty")])
    if isinstance(data, list):
        return data
    if not isinstance(data, dict):
        raise TaskLoadError([TaskProblem(str(path), "", f"expected an object or a list of objects, got {type(data).__name__}")])
    return [data]


def is_official(record: dict[str, Any]) -> bool:
    return "task_id" in record and ("triples" in record or "nodes" in record)


def parse_task_file(path: Path) -> tuple[list[Task], list[TaskProblem]]:
    """Parse one file into tasks. On any error the file yields no task, only problems."""
    path = Path(path)
    try:
        records = read_records(path)
    except TaskLoadError as exc:
        return [], exc.problems
    except OSError as exc:
        return [], [TaskProblem(str(path), "", f"cannot read: {exc.strerror or exc}")]
    tasks: list[Task] = []
    problems: list[TaskProblem] = []
    for i, record in enumerate(records):
        prefix = f"[{i}]." if len(records) > 1 else ""
        if not isinstance(record, dict):
            problems.append(TaskProblem(str(path), prefix.rstrip(".") or "", "expected a JSON object"))
            continue
        if is_official(record):
            from .official import official_to_task

            task, probs = official_to_task(record, str(path))
            problems.extend(probs)
            if task is not None and not any(not p.warning for p in probs):
                tasks.append(task)
            continue
        try:
            task = Task.model_validate(record)
        except ValidationError as exc:
            for p in problems_from_validation(str(path), exc, record.get("id") if isinstance(record.get("id"), str) else None):
                p.field = prefix + p.field
                problems.append(p)
            continue
        task._file = str(path)
        tasks.append(task)
    if any(not p.warning for p in problems):
        return [], problems
    return tasks, problems


def iter_task_files(paths: Iterable[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix in TASK_SUFFIXES and "corpus" not in f.relative_to(p).parts[:-1]:
                    files.append(f)
        elif p.exists():
            files.append(p)
    return files


def load_tasks_with_problems(paths: Iterable[str | Path]) -> tuple[list[Task], list[TaskProblem]]:
    """Every task under ``paths`` and every problem found; duplicate ids are a problem."""
    tasks: list[Task] = []
    problems: list[TaskProblem] = []
    seen: dict[str, str] = {}
    for path in paths:
        if not Path(path).exists():
            problems.append(TaskProblem(str(path), "", "no such file or folder"))
    for file in iter_task_files(paths):
        got, probs = parse_task_file(file)
        problems.extend(probs)
        for task in got:
            if task.id in seen:
                problems.append(TaskProblem(str(file), "id", f"duplicate task id {task.id!r} (also in {seen[task.id]})", task.id))
                continue
            seen[task.id] = str(file)
            tasks.append(task)
    return tasks, problems


def load_tasks(paths: Iterable[str | Path] | None = None) -> list[Task]:
    """Every valid task under ``paths`` (default: bundled personas plus VIBESEARCH_TASKS).

    Raises ``TaskLoadError`` listing every problem when any file is invalid.
    """
    if paths is None:
        from ..config import get_settings

        paths = get_settings().task_paths()
    tasks, problems = load_tasks_with_problems(list(paths))
    errors = [p for p in problems if not p.warning]
    if errors:
        raise TaskLoadError(errors)
    return tasks


def get_task(task_id: str, paths: Iterable[str | Path] | None = None) -> Task:
    for task in load_tasks(paths):
        if task.id == task_id:
            return task
    raise TaskNotFound(f"no task with id {task_id!r} (looked in the bundled personas/ and VIBESEARCH_TASKS)")


def task_dir(task: Task) -> Path | None:
    file = task.source_file
    return Path(file).parent if file else None


def load_corpus(task: Task) -> list[CorpusDoc]:
    """The task's offline documents ([] when it has no corpus)."""
    if not task.corpus:
        return []
    base = task_dir(task) or Path(".")
    path = (base / task.corpus) if not Path(task.corpus).is_absolute() else Path(task.corpus)
    docs: list[CorpusDoc] = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                docs.append(CorpusDoc.model_validate_json(line))
            except ValidationError as exc:
                raise TaskLoadError(problems_from_validation(f"{path}:{i}", exc, task.id)) from None
    return docs
