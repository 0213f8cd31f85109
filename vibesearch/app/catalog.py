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
        try:
            from ..tables import load_table_tasks_with_problems, table_task_to_task
        except ImportError:  # the table package is optional for the app
            return 0
        tts, problems = load_table_tasks_with_problems([Path(p) for p in paths])
        self.problems += [str(p) for p in problems if not getattr(p, "warning", False)]
        return self._add([table_task_to_task(tt) for tt in tts])

    def add_folder(self, folder: str) -> str:
        """Load a folder typed in the browser (persona tasks, else table tasks). Returns a message."""
        path = Path(folder).expanduser()
        if not folder.strip():
            return "Type a folder (or file) path first."
        if not path.exists():
            return f"No such file or folder: {path}"
        before = len(self.problems)
        n = self.add_persona_paths([path])
        if n == 0:
            persona_problems = self.problems[before:]
            del self.problems[before:]
            n = self.add_table_paths([path])
            if n == 0:
                self.problems += persona_problems
        new_problems = self.problems[before:]
        msg = f"Loaded {n} task(s) from {path}."
        if new_problems:
            msg += " Problems:\n" + "\n".join(f"- {p}" for p in new_problems[:20])
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
    return task.extra.get("kind") == "table"


def label(task: Task) -> str:
    kind = "table" if is_table(task) else task.subset
    title = f" — {task.title}" if task.title else ""
    return f"{task.id}{title} ({kind}/{task.language})"
