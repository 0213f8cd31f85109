"""Start through the queue (``VIBESEARCH_APP_QUEUE=1``): the app hands a simulated run to the queue
workers (``vibesearch worker``, any host) instead of driving it in the server process.

* Only where it can: the database is PostgreSQL with the queue's tables, the run's user is
  simulated (a person's turns come through this server, so a "me" run is driven here), and no
  endpoint key was typed (a key typed in the form is never stored, and a job's arguments are
  stored). Otherwise Start drives the run here as always.
* The run is a one-run queued batch of the Start's owner; its id is chosen when it is queued, so
  the Play tab follows it from the store from the first tick ("queued" until a worker opens it).
* When a worker has finished it, the app scores it with the run's judge (once, in the server, as
  it scores the runs it drives), so the Play screen shows the score as it does for a run of its own.
* Stop cancels its batch (``runner.queued_batches.cancel_batch``): a job still waiting never starts, a
  running one is stopped by its worker.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..config import Settings
from ..store import Store
from ..tasks.models import Task
from ..users.registry import is_person
from ._failure import score_failure
from ._policy import RunRequest, check_request

log = logging.getLogger(__name__)
QUEUE_TIMEOUT_S = 60.0


@dataclass
class QueuedRun:
    """A run this server queued: its batch, and where its scoring stands."""

    run_id: str
    batch_id: str
    owner: str
    judge: str
    scoring: bool = False
    scored: bool = False
    score_error: str | None = None
    cancelled: bool = False  # Stop cancelled its job before a worker took it: the run never opened

    @property
    def settled(self) -> bool:
        """Nothing more to wait for: scored (or nothing to score), or cancelled before it started."""
        return self.scored or self.cancelled


class QueuedStarts:
    """The runs this server's Start queued (for Stop and for scoring them once they finish)."""

    def __init__(self, store: Store, db: str, loop: Callable[[], asyncio.AbstractEventLoop], score: Callable[[str, str], Any]):
        self.store, self.db = store, db
        self._loop, self._score = loop, score
        self._runs: dict[str, QueuedRun] = {}
        self._lock = threading.Lock()

    def available(self, req: RunRequest) -> bool:
        """Whether this Start goes to the queue (see the module's docstring)."""
        from ..runner.queued_batches import has_queue

        if req.endpoint_key or is_person(req.config.user.kind):
            return False
        return self.store.dialect == "postgresql" and has_queue(self.store)

    def queue(self, req: RunRequest, task: Task, owner: str, settings: Settings) -> QueuedRun:
        from ..runner.batch import BatchSpec
        from ..runner.queued import queue_batch
        from ..session.preflight import check_config_credentials

        if not owner:
            raise ValueError("a run needs an owner token (reload the page)")
        check_request(req, settings)
        check_config_credentials(req.config, settings, judge=True)  # a worker needs the same keys; say so now
        spec = BatchSpec(tasks=[task], config=req.config, runs=1, owner=owner)
        future = asyncio.run_coroutine_threadsafe(queue_batch(self.db, spec, {}), self._loop())
        [run_id] = future.result(QUEUE_TIMEOUT_S)
        entry = QueuedRun(run_id=run_id, batch_id=spec.batch_id, owner=owner, judge=req.config.judge.name or "offline")
        with self._lock:
            self._runs[run_id] = entry
        return entry

    def get(self, run_id: str) -> QueuedRun | None:
        with self._lock:
            return self._runs.get(run_id)

    def settle(self, run_id: str, status: str, has_graph: bool) -> QueuedRun | None:
        """Called on each look at a queued run: once it finished with a graph, score it (once, in
        the background). The entry, or None for a run this server did not queue."""
        entry = self.get(run_id)
        if entry is None or entry.scoring or entry.scored:
            return entry
        if status in ("running", "queued"):
            return entry
        if status != "finished" or not has_graph:
            entry.scored = True  # nothing to score: the run ended another way
            return entry
        entry.scoring = True
        threading.Thread(target=self._score_now, args=(entry,), daemon=True, name=f"score-{run_id}").start()
        return entry

    def _score_now(self, entry: QueuedRun) -> None:
        try:
            self._score(entry.run_id, entry.judge)
        except Exception as exc:  # noqa: BLE001 - shown beside the finished run, which stays
            entry.score_error = score_failure(exc)  # nothing was stored
            log.exception("scoring queued run %s failed", entry.run_id)
        finally:
            entry.scored = True
            entry.scoring = False

    def cancel(self, entry: QueuedRun, by: str) -> tuple[int, int]:
        """Cancel the run's batch: (jobs cancelled before they started, runs asked to stop)."""
        from ..runner.queued_batches import cancel_batch

        future = asyncio.run_coroutine_threadsafe(cancel_batch(self.store, self.db, entry.batch_id, by), self._loop())
        cancelled, stopping = future.result(QUEUE_TIMEOUT_S)
        if cancelled:
            entry.cancelled = True
        return cancelled, stopping
