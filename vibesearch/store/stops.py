"""The stop-request methods of ``Store``: Stop pressed on one app server for a run another
server drives. Mixed into ``Store`` (``store.db``).

The asking server writes one row per run (``request_stop``); the server driving the run polls
for the requests of its own runs (``pending_stops``), cancels them the way a local Stop does and
marks the row done (``stop_done``). A row already done is taken over by a new request, so a run
continued later can be stopped again; a server starting (or continuing) a run clears any old
row first (``clear_stop``). Each is one SQL statement, atomic on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import time
from dataclasses import dataclass
from typing import Any, Iterable

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from ._write import write_statement


@dataclass(frozen=True)
class StopRequest:
    run_id: str
    requested_by: str
    requested_at: float
    done_at: float | None

    @property
    def pending(self) -> bool:
        return self.done_at is None


_REQUEST_SQL = (
    "INSERT INTO stop_requests (run_id, requested_by, requested_at, done_at) VALUES (:run_id, :by, :now, NULL) "
    "ON CONFLICT(run_id) DO UPDATE SET requested_by = excluded.requested_by, requested_at = excluded.requested_at, "
    "done_at = NULL WHERE stop_requests.done_at IS NOT NULL"
)
_PENDING_SQL = text(
    "SELECT run_id, requested_by, requested_at, done_at FROM stop_requests WHERE done_at IS NULL AND run_id IN :ids"
).bindparams(bindparam("ids", expanding=True))


class StopsMixin:
    """Needs the ``Store``'s ``engine``, ``_lock`` and ``read_only``."""

    engine: Engine
    _lock: AbstractContextManager[Any]
    read_only: bool

    def _stops_write(self, sql: str, params: dict[str, object]) -> int:
        return int(write_statement(self.engine, self._lock, sql, params) or 0)

    def request_stop(self, run_id: str, by: str) -> bool:
        """Ask the server driving ``run_id`` to stop it; False when a request is already pending."""
        return self._stops_write(_REQUEST_SQL, {"run_id": run_id, "by": by, "now": time.time()}) > 0

    def stop_request(self, run_id: str) -> StopRequest | None:
        """The run's stop request (pending or done), if any."""
        try:
            with self.engine.connect() as conn:
                row = conn.execute(
                    text("SELECT run_id, requested_by, requested_at, done_at FROM stop_requests WHERE run_id = :r"), {"r": run_id}
                ).fetchone()
        except OperationalError as exc:  # a read-only file from before stop requests
            if self.read_only and "no such table" in str(exc):
                return None
            raise
        return StopRequest(*row) if row is not None else None

    def pending_stops(self, run_ids: Iterable[str]) -> list[StopRequest]:
        """The pending stop requests among ``run_ids`` (one query)."""
        ids = sorted(set(run_ids))
        if not ids:
            return []
        with self.engine.connect() as conn:
            return [StopRequest(*row) for row in conn.execute(_PENDING_SQL, {"ids": ids})]

    def stop_done(self, run_id: str) -> None:
        """Mark the run's pending stop request as carried out."""
        self._stops_write("UPDATE stop_requests SET done_at = :now WHERE run_id = :r AND done_at IS NULL", {"now": time.time(), "r": run_id})

    def clear_stop(self, run_id: str) -> None:
        """Forget the run's stop request (a server is about to drive it afresh)."""
        self._stops_write("DELETE FROM stop_requests WHERE run_id = :r", {"r": run_id})
