"""Turning ``--tasks`` values (files, folders or task ids) into tasks, table tasks included."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from .._files import short
from ..config import BUNDLED_TABLE_TASKS, Settings
from ..tables import is_table_task_path, load_table_tasks, table_task_to_task
from ..tasks import TaskLoadError, load_tasks_with_problems
from ..tasks.models import Task


class TaskArgError(ValueError):
    pass


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name the system refuses (too long ...) is no file
        return False


def _load_path(path: Path, warn: Callable[[Any], None] | None = None) -> list[Task]:
    if is_table_task_path(path):
        tasks, problems = load_tasks_with_problems([path]) if path.is_dir() else ([], [])
        table_tasks = load_table_tasks([path])
        return [*tasks, *(table_task_to_task(tt) for tt in table_tasks)]
    tasks, problems = load_tasks_with_problems([path])
    errors = [p for p in problems if not p.warning]
    if errors:
        raise TaskLoadError(errors)
    for problem in problems:
        if warn is not None:
            warn(problem)
    if not tasks:
        raise TaskArgError(f"{path}: no task found there")
    return tasks


def resolve_tasks(values: Iterable[str], settings: Settings, *, warn: Callable[[Any], None] | None = None) -> list[Task]:
    """Tasks named by paths or ids, in the order given, without duplicates (``warn`` is called
    with each warning of a task file named)."""
    out: list[Task] = []
    known: dict[str, Task] | None = None
    for value in values:
        for part in [v for v in value.split(",") if v.strip()]:
            part = part.strip()
            path = Path(part)
            if _exists(path):
                out.extend(_load_path(path, warn))
                continue
            if known is None:
                known = _known_tasks(settings)
            task = known.get(part)
            if task is None:
                sample = ", ".join(sorted(known)[:12]) or "none"
                raise TaskArgError(f"--tasks {short(part)}: no such file, folder or task id (known ids: {sample})")
            out.append(task)
    seen: set[str] = set()
    unique = []
    for t in out:
        if t.id not in seen:
            seen.add(t.id)
            unique.append(t)
    if not unique:
        raise TaskArgError("--tasks: no tasks given")
    return unique


def _known_tasks(settings: Settings) -> dict[str, Task]:
    tasks, _problems = load_tasks_with_problems([p for p in settings.task_paths() if Path(p).exists()])
    known = {t.id: t for t in tasks}
    if Path(BUNDLED_TABLE_TASKS).exists():
        try:
            for tt in load_table_tasks([BUNDLED_TABLE_TASKS]):
                known.setdefault(tt.id, table_task_to_task(tt))
        except TaskLoadError:  # a broken table folder must not hide persona tasks
            pass
    return known
