"""The tasks the app offers: bundled personas, ``VIBESEARCH_TASKS`` folders, bundled table tasks
(``tables/``, when ``vibesearch.tables`` is present) and folders a person loads in the browser.

A catalog is plain data; the app keeps the startup catalog for everyone and, per browser
session, a copy extended with the folders that session loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..config import BUNDLED_TABLE_TASKS, Settings
from ..tables import load_table_tasks_with_problems, table_task_to_task
from ..tasks import Task, load_tasks_with_problems


@dataclass
class TaskCatalog:
    tasks: dict[str, Task] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, settings: Settings) -> "TaskCatalog":
        cat = cls()
        cat.add_persona_paths(settings.task_paths())
        if BUNDLED_TABLE_TASKS.exists():
            cat.add_table_paths([BUNDLED_TABLE_TASKS])
        return cat

    def copy(self) -> "TaskCatalog":
        return TaskCatalog(tasks=dict(self.tasks), problems=list(self.problems))

    def add_persona_paths(self, paths: Iterable[str | Path]) -> int:
        tasks, problems = load_tasks_with_problems([Path(p) for p in paths])
        self.problems += [str(p) for p in problems if not p.warning]
        return self._add(tasks)

    def add_table_paths(self, paths: Iterable[str | Path]) -> int:
        tts, problems = load_table_tasks_with_problems([Path(p) for p in paths])
        self.problems += [str(p) for p in problems if not p.warning]
        return self._add([table_task_to_task(tt) for tt in tts])

    def add_folder(self, folder: str, settings: Settings, owner: str | None = None) -> str:
        """Load a folder typed in the browser (persona tasks, else table tasks). Returns a message.

        Only folders inside the load roots are read, and they are parsed in a limited worker
        process (see ``_loading``)."""
        from ._loading import LoadRefused, load_typed

        try:
            loaded, _ = load_typed(folder or "", settings, owner)
        except LoadRefused as exc:
            return str(exc)
        return self.add_loaded(loaded, (folder or "").strip())

    def add_loaded(self, loaded, where: str) -> str:
        n = self._add(loaded.tasks)
        self.problems += loaded.problems
        msg = f"Loaded {n} task(s) from {where[:200]}."
        if loaded.problems:
            msg += " Problems:\n" + "\n".join(f"- {p}" for p in loaded.problems[:20])
        return msg

    def _add(self, tasks: Iterable[Task]) -> int:
        n = 0
        for t in tasks:
            if t.id in self.tasks:
                continue
            self.tasks[t.id] = t
            n += 1
        return n

    # ------------------------------------------------------------------ views
    def get(self, task_id: str) -> Task:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise KeyError(f"no task with id {task_id!r} in the app's task list") from None

    def choices(self) -> list[tuple[str, str]]:
        return [(label(t), t.id) for t in self.tasks.values()]

    def default_id(self) -> str | None:
        """The first task the offline baseline can play (it needs a corpus)."""
        for t in self.tasks.values():
            if t.corpus and not is_table(t):
                return t.id
        return next(iter(self.tasks), None)


def is_table(task: Task) -> bool:
    return task.kind == "table"


def label(task: Task) -> str:
    kind = "table" if is_table(task) else task.subset
    title = f" — {task.title}" if task.title else ""
    return f"{task.id}{title} ({kind}/{task.language})"
