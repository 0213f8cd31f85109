"""What every tab needs: settings, the store, the task catalog and the run manager.

One ``AppContext`` is built inside ``build_app()`` and handed to the tab builders, whose event
handlers capture it. It holds no person's data (but which login an export file is served to): per-person state lives in ``gr.State`` /
``gr.BrowserState`` values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..store import Run, Store, TaskSnapshotError
from ..tasks.models import Task
from ._access import Access, Who
from .catalog import TaskCatalog
from .live import RunManager


@dataclass
class AppContext:
    settings: Settings
    store: Store
    catalog: TaskCatalog
    manager: RunManager
    access: Access
    # files served to one login only (an export's copy in Gradio's cache -> its login); the front
    # door (``_guard``) answers anyone else as if the file did not exist
    private_files: dict[str, str] = field(default_factory=dict)
    # the handlers a study's player may call (the player view's and the page's loads; ``ui``)
    player_fns: set[int] = field(default_factory=set)

    def serve_privately(self, path: str, login: str | None) -> None:
        if login:
            self.private_files[os.path.realpath(path)] = login

    def who(self, request, token=None) -> Who:
        return self.access.who(request, token)

    def readable(self, who: Who, run: Run) -> bool:
        return self.access.may_read(who, run.owner)

    def task_of_run(self, run: Run) -> Task | None:
        """The task stored with a run (``Run.task()``); the catalog's task of that id when the
        snapshot cannot be read or has no ground truth (an imported trajectory without its task)."""
        try:
            task = run.task()
            if task.graph:
                return task
        except TaskSnapshotError:
            pass
        return self.catalog.tasks.get(run.task_id)


@dataclass
class RunView:
    """A per-browser view of one run (kept in ``gr.State``): what was read and shown already."""

    run_id: str | None = None
    seq: int = 0
    events: list = field(default_factory=list)
    shown: dict[str, Any] = field(default_factory=dict)  # output name → last signature

    def reset(self, run_id: str | None) -> "RunView":
        return RunView(run_id=run_id)

    def changed(self, name: str, signature: Any) -> bool:
        """True (and remembered) when the output's signature differs from what was last sent."""
        if self.shown.get(name) == signature:
            return False
        self.shown[name] = signature
        return True

    def pull(self, store: Store) -> bool:
        """Read events stored since the last pull. True when there were any."""
        if not self.run_id:
            return False
        new = store.events(self.run_id, after=self.seq)
        if new:
            self.events.extend(new)
            self.seq = new[-1].seq
        return bool(new)
