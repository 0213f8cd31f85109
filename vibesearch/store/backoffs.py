"""The providers' shared back-offs (``provider_backoff``): until when no queue worker calls a
provider that answered 429. Mixed into ``Store`` (``store.db``); the pacing that reads and writes
them is ``runner._pacing``. Each is one SQL statement, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

import time

from sqlalchemy import text
from sqlalchemy.engine import Engine

from ._write import write_statement

# a later back-off never shortens an earlier one
_BACK_OFF_SQL = (
    "INSERT INTO provider_backoff (provider, until, updated_at) VALUES (:p, :until, :now) "
    "ON CONFLICT (provider) DO UPDATE SET "
    "until = CASE WHEN excluded.until > provider_backoff.until THEN excluded.until ELSE provider_backoff.until END, "
    "updated_at = excluded.updated_at"
)


class BackoffsMixin:
    """Needs the ``Store``'s ``engine`` and ``_lock``."""

    engine: Engine
    _lock: AbstractContextManager[Any]

    def back_off(self, provider: str, until: float) -> None:
        """No call to ``provider`` before ``until`` (seconds since the epoch), unless one was already later."""
        write_statement(self.engine, self._lock, _BACK_OFF_SQL, {"p": provider, "until": until, "now": time.time()})

    def backoffs(self) -> dict[str, float]:
        """Every provider's back-off: until when (seconds since the epoch; past ones included)."""
        with self.engine.connect() as conn:
            return {p: float(u) for p, u in conn.execute(text("SELECT provider, until FROM provider_backoff"))}
