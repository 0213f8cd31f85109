"""The one retry rule of every write in ``store`` (``retrying``), and the one-statement write the
small tables share (``write_statement``: leases, stop requests, logins).

* Busy (``is_busy``): another writer holds what the transaction needs. SQLite says "database is
  locked" (past its busy timeout) or "database table is locked"; PostgreSQL reports a deadlock
  ("deadlock detected"), a serialization failure ("could not serialize access …") or a lock it
  could not get ("could not obtain lock …", "canceling statement due to lock timeout"). The
  attempt was rolled back whole, so it is made again after a growing pause.
* A collision (the event appends only): another writer took the same ``(run_id, seq)`` first;
  made again after a short pause. A foreign-key failure there means the run is not stored.
* Anything else (``LeaseLost``, ``LeaseHeld``, ``RunNotFound``, any other database error) is
  raised at once. After ``ATTEMPTS`` attempts the last error is raised.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any, Callable, TypeVar

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

T = TypeVar("T")

ATTEMPTS = 50
BUSY_PAUSE_S = 0.01  # after the n-th busy attempt the next waits n times this
COLLISION_PAUSE_S = 0.001  # the same for a sequence-number collision

# SQLite result codes (Python gives the extended code; its low byte is the primary one)
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6
_SQLITE_UNIQUE = (1555, 2067)  # SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
_SQLITE_FOREIGN_KEY = 787  # SQLITE_CONSTRAINT_FOREIGNKEY
# PostgreSQL SQLSTATEs: serialization_failure, deadlock_detected, lock_not_available
_PG_BUSY = ("40001", "40P01", "55P03")
_PG_UNIQUE, _PG_FOREIGN_KEY = "23505", "23503"
# for a driver error that carries no code: the words of the messages above
_BUSY_WORDS = ("database is locked", "database table is locked", "deadlock detected", "could not serialize access",
               "could not obtain lock", "lock timeout")


def _diagnosis(exc: BaseException) -> tuple[int | None, str | None, str]:
    """(SQLite result code, PostgreSQL SQLSTATE, message) of the driver's error under ``exc``."""
    orig = getattr(exc, "orig", None) or exc
    code = getattr(orig, "sqlite_errorcode", None)
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return (code if isinstance(code, int) else None), (state if isinstance(state, str) else None), str(orig)


def is_busy(exc: BaseException) -> bool:
    """A lock, deadlock or serialization conflict with another writer: worth another try."""
    code, state, message = _diagnosis(exc)
    if code is not None:
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    if state is not None:
        return state in _PG_BUSY
    return any(words in message for words in _BUSY_WORDS)


def is_collision(exc: BaseException) -> bool:
    """A unique key taken by another writer (for an event: its ``(run_id, seq)``)."""
    code, state, message = _diagnosis(exc)
    if code is not None:
        return code in _SQLITE_UNIQUE
    if state is not None:
        return state == _PG_UNIQUE
    return "UNIQUE constraint failed" in message or "violates unique constraint" in message


def is_foreign_key(exc: BaseException) -> bool:
    """A row that points at a row not stored (for an event: its run)."""
    code, state, message = _diagnosis(exc)
    if code is not None:
        return code == _SQLITE_FOREIGN_KEY
    if state is not None:
        return state == _PG_FOREIGN_KEY
    return "foreign key" in message.lower()


def retrying(work: Callable[[], T], *, what: str, not_found: Callable[[], BaseException] | None = None) -> T:
    """Call ``work`` (one whole transaction attempt, rolled back when it raises) until it returns
    and return what it returns; a busy database is waited out (pauses of 10, 20, 30 … ms).

    ``not_found`` is for the event appends: given, an ``IntegrityError`` that is a collision is
    tried again (pauses of 1, 2, 3 … ms) and a foreign-key failure raises ``not_found()``
    instead. Without it, as for every other error, an ``IntegrityError`` is raised at once.
    After ``ATTEMPTS`` attempts in all the last error is raised; one raised after a retry carries
    a note naming ``what``."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return work()
        except OperationalError as exc:
            if not is_busy(exc) or attempt >= ATTEMPTS:
                _note(exc, attempt, what)
                raise
            pause = BUSY_PAUSE_S * attempt
        except IntegrityError as exc:
            if not_found is not None and is_foreign_key(exc):
                raise not_found() from None
            if not_found is None or not is_collision(exc) or attempt >= ATTEMPTS:
                _note(exc, attempt, what)
                raise
            pause = COLLISION_PAUSE_S * attempt
        time.sleep(pause)


def _note(exc: Exception, attempt: int, what: str) -> None:
    """Say on an error raised after retries which write it ended (shown with its traceback)."""
    if attempt > 1:
        exc.add_note(f"{what}: failed on attempt {attempt} (at most {ATTEMPTS})")


def write_statement(engine: Engine, lock: AbstractContextManager[Any], sql: str, params: dict[str, Any]) -> Any:
    """Run ``sql`` in its own transaction (``retrying``): its rows when it returns some
    (``RETURNING``), else how many rows it changed."""

    def attempt() -> Any:
        with lock, engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return result.fetchall() if result.returns_rows else result.rowcount

    return retrying(attempt, what=" ".join(sql.split()[:3]))
