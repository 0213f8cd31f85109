"""Leases: a run (or a batch) is driven by one process at a time.

A lease is one row of the ``leases`` table: the key (``run:<id>`` / ``batch:<id>``), the owner
(host, pid and a random token, unique per claim) and when it expires. Every operation is one SQL
statement, which SQLite and PostgreSQL both make atomic across threads, processes and machines:

* ``claim`` inserts the row, or takes it over when it has expired or is already the caller's
  (an UPSERT whose update is guarded by that condition); it returns the holder when refused;
* ``renew`` pushes the expiry on, only while the caller still owns the row;
* ``release`` deletes the row, only when the caller owns it.

The event writer checks the lease in the same statement that appends an event
(``Store.append_many``), so a driver whose lease was taken over cannot write another event.
"""

from __future__ import annotations

import math
import os
import socket
import time
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import text
from sqlalchemy.engine import Engine
from ._write import write_statement


class Store(Protocol):
    """What the lease functions need of a ``store.db.Store``: its engine and its write lock
    (named here, not imported: ``store.db`` imports this module)."""

    @property
    def engine(self) -> Engine: ...

    @property
    def _lock(self) -> AbstractContextManager[Any]: ...


@dataclass(frozen=True)
class Lease:
    key: str
    owner: str
    pid: int
    host: str
    acquired_at: float
    expires_at: float

    def expires_in(self, now: float | None = None) -> float:
        return self.expires_at - (time.time() if now is None else now)


class LeaseHeld(RuntimeError):
    """Another process drives this run (or batch) and its lease has not expired."""

    def __init__(self, what: str, holder: Lease | None, doing: str = "driven"):
        self.what, self.holder = what, holder
        if holder is None:
            super().__init__(f"{what} is being {doing} by another process")
        else:
            left = max(0, math.ceil(holder.expires_in()))
            super().__init__(
                f"{what} is being {doing} by another process (pid {holder.pid}, host {holder.host}); "
                f"its lease expires in {left} s"
            )


class LeaseLost(RuntimeError):
    """This process' lease expired and another process took the run over: stop, write nothing."""

    def __init__(self, what: str, holder: Lease | None = None):
        self.what, self.holder = what, holder
        by = f" (pid {holder.pid}, host {holder.host})" if holder is not None else ""
        super().__init__(f"{what} was taken over by another process{by} after this process' lease expired; stopped without writing more")


def run_key(run_id: str) -> str:
    return f"run:{run_id}"


def batch_key(batch_id: str) -> str:
    return f"batch:{batch_id}"


def new_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


_CLAIM_SQL = (
    "INSERT INTO leases (key, owner, pid, host, acquired_at, expires_at) VALUES (:key, :owner, :pid, :host, :now, :expires) "
    "ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, "
    "acquired_at = excluded.acquired_at, expires_at = excluded.expires_at "
    "WHERE leases.expires_at <= excluded.acquired_at OR leases.owner = excluded.owner "
    "RETURNING owner"
)
_RENEW_SQL = "UPDATE leases SET expires_at = :expires WHERE key = :key AND owner = :owner"
_RELEASE_SQL = "DELETE FROM leases WHERE key = :key AND owner = :owner"
_GET_SQL = "SELECT key, owner, pid, host, acquired_at, expires_at FROM leases WHERE key = :key"


def _write(store: "Store", sql: str, params: dict[str, Any]) -> Any:
    """Run one writing statement in its own transaction, waiting out a locked database."""
    return write_statement(store.engine, store._lock, sql, params)


def _claim_params(key: str, owner: str, ttl_s: float) -> dict[str, Any]:
    now = time.time()
    host, pid = _host_pid(owner)
    return {"key": key, "owner": owner, "pid": pid, "host": host, "now": now, "expires": now + ttl_s}


def claim(store: "Store", key: str, owner: str, ttl_s: float) -> Lease | None:
    """Take the lease ``key`` for ``owner``; None when taken, else the live lease of another."""
    params = _claim_params(key, owner, ttl_s)
    rows = _write(store, _CLAIM_SQL, params)
    if rows and rows[0][0] == owner:
        return None
    return holder(store, key) or Lease(key, "?", 0, "?", params["now"], params["now"])


def claim_on(conn: Any, key: str, owner: str, ttl_s: float) -> bool:
    """``claim`` as one statement of the caller's transaction (``conn``): True when ``owner``
    now holds the lease ``key`` (the caller reads the holder with ``holder`` when refused)."""
    rows = conn.execute(text(_CLAIM_SQL), _claim_params(key, owner, ttl_s)).fetchall()
    return bool(rows) and rows[0][0] == owner


def renew(store: "Store", key: str, owner: str, ttl_s: float) -> bool:
    """Push the expiry on; False when ``owner`` no longer holds the lease."""
    return bool(_write(store, _RENEW_SQL, {"expires": time.time() + ttl_s, "key": key, "owner": owner}))


def release(store: "Store", key: str, owner: str) -> None:
    _write(store, _RELEASE_SQL, {"key": key, "owner": owner})


def release_on(conn: Any, key: str, owner: str) -> None:
    """``release`` as one statement of the caller's transaction (``conn``)."""
    conn.execute(text(_RELEASE_SQL), {"key": key, "owner": owner})


def holder(store: "Store", key: str, *, live_only: bool = True) -> Lease | None:
    """The lease row of ``key`` (None when there is none, or it expired and ``live_only``)."""
    with store.engine.connect() as conn:
        row = conn.execute(text(_GET_SQL), {"key": key}).fetchone()
    if row is None:
        return None
    lease = Lease(*row)
    if live_only and lease.expires_at <= time.time():
        return None
    return lease


def _host_pid(owner: str) -> tuple[str, int]:
    """``host:pid:token`` → (host, pid)."""
    host, _, rest = owner.rpartition(":")[0].rpartition(":")
    try:
        return host or owner, int(rest)
    except ValueError:
        return owner, 0


# the conditions the event writer adds to its INSERT (see Store.append_many)
# (named parameters: ``key`` with ``owner`` / ``now``)
OWNS_SQL = "EXISTS (SELECT 1 FROM leases WHERE key = :key AND owner = :owner)"
FREE_SQL = "NOT EXISTS (SELECT 1 FROM leases WHERE key = :key AND expires_at > :now)"
