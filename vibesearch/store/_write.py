"""One writing statement in its own transaction, waiting out a busy database: the rule the small
tables (leases, stop requests, logins) share. SQLite says "database is locked" past its busy
timeout and PostgreSQL may report a deadlock; both are retried with a growing pause."""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

ATTEMPTS = 50


def is_busy(exc: OperationalError) -> bool:
    """A lock or deadlock another writer caused: worth another try."""
    return "locked" in str(exc) or "deadlock" in str(exc)


def write_statement(engine: Engine, lock: AbstractContextManager[Any], sql: str, params: dict[str, Any]) -> Any:
    """Run ``sql``: its rows when it returns some (``RETURNING``), else how many rows it changed."""
    for attempt in range(ATTEMPTS):
        try:
            with lock, engine.begin() as conn:
                result = conn.execute(text(sql), params)
                return result.fetchall() if result.returns_rows else result.rowcount
        except OperationalError as exc:
            if not is_busy(exc) or attempt >= ATTEMPTS - 1:
                raise
            time.sleep(0.01 * (attempt + 1))
    raise RuntimeError("unreachable")
