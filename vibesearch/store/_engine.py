"""Engines for the two kinds of database, and the schema check made when a ``Store`` opens one.

* SQLite: WAL mode, a busy timeout and ``synchronous=NORMAL`` (several processes and many threads
  write one file); a writable file is brought to the newest schema on open, under ``BEGIN
  IMMEDIATE`` so two processes opening a new file do not both create it. A read-only file is
  read as it is, through connections that never write (``store._columns``).
* PostgreSQL: a pool whose connections are checked before use when they sat idle; every session in UTC (the columns hold naive UTC
  times, as SQLite's do). The schema is upgraded only by ``vibesearch db upgrade``.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlmodel import create_engine

from . import migrations
from ._url import DbTarget, db_target
from ._write import retrying


PING_IDLE_S = 1.0  # a pooled PostgreSQL connection idle longer than this is checked before it is used


def make_engine(target: DbTarget, *, read_only: bool = False) -> Engine:
    if target.path is None:
        engine = create_engine(target.url, pool_size=10, max_overflow=20, connect_args={"options": "-c timezone=UTC"})
        sa_event.listen(engine, "checkin", _checked_in)
        dialect = engine.dialect
        sa_event.listen(engine, "checkout", lambda conn, record, _proxy: _ping_when_idle(dialect, conn, record))
        return engine
    if read_only:
        from ._columns import read_only_connect_as_new

        path = target.path
        return create_engine("sqlite://", creator=lambda: read_only_connect_as_new(path))
    if str(target.path) != ":memory:":
        target.path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(target.url, connect_args={"check_same_thread": False, "timeout": 30})
    sa_event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def prepare_schema(engine: Engine, target: DbTarget, *, read_only: bool = False) -> None:
    """Check (and for a writable SQLite file, upgrade) the schema; ``SchemaError`` when the
    database is newer than this code, or (PostgreSQL) behind it; ``DatabaseUnreachable`` when a
    PostgreSQL server does not answer."""
    with _connected(engine, target) as conn:
        try:
            rev = migrations.current(conn, target.shown)
        except OperationalError as exc:  # noqa: F841 - re-raised below with the file's name
            if read_only:
                from ._open import StoreOpenError

                raise StoreOpenError(f"{target.shown} is read-only and cannot be read: {exc.orig}") from None
            raise
        if read_only:
            if rev is None:
                from ._open import StoreOpenError

                raise StoreOpenError(f"{target.shown} is read-only and holds no vibesearch tables yet")
            return
        if rev == migrations.HEAD:
            return
        if not target.is_sqlite:
            raise migrations.SchemaError(migrations.behind_message(target.shown, rev))
        conn.rollback()

    def upgrade() -> None:
        with engine.connect() as conn:
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # one upgrader at a time; the others wait, then see HEAD
            migrations.upgrade(conn, target.shown)
            conn.commit()

    retrying(upgrade, what=f"upgrading the schema of {target.shown}")


@contextmanager
def _connected(engine: Engine, target: DbTarget) -> Iterator[Connection]:
    """A first connection to the database; a PostgreSQL server that refuses it is one clear error."""
    try:
        conn = engine.connect()
    except OperationalError as exc:
        if target.is_sqlite:
            raise
        from ._open import DatabaseUnreachable

        reason = " ".join(str(exc.orig).split()) or type(exc.orig).__name__
        raise DatabaseUnreachable(f"cannot reach the database {target.shown}: {reason}") from None
    with conn:
        yield conn


def upgrade_database(db: str | Path, *, on_jobs: Callable[[str | None, str], Any] | None = None) -> tuple[str | None, str]:
    """Bring a database to the newest schema (``vibesearch db upgrade``); (from, to) revisions.
    An SQLite file is checked first (``store._open``): damaged or read-only files are refused.
    A PostgreSQL database also gets the job engine's tables (``store._job_schema``) in the same
    transaction; ``on_jobs(from, to)`` is told their versions."""
    target = db_target(db)
    if target.path is not None and str(target.path) != ":memory:":
        from ._open import ReadOnlyDatabase, check_db_file

        if not check_db_file(target.path):
            raise ReadOnlyDatabase(f"{target.shown} is read-only: it cannot be upgraded")
    engine = make_engine(target)
    try:
        with engine.connect() as conn:
            if target.is_sqlite:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            moved = migrations.upgrade(conn, target.shown)
            if not target.is_sqlite:
                from ._job_schema import upgrade_job_schema

                jobs = upgrade_job_schema(conn)  # under the advisory lock migrations.upgrade took
                if on_jobs is not None:
                    on_jobs(*jobs)
            conn.commit()
        return moved
    finally:
        engine.dispose()


def _checked_in(_dbapi_conn: Any, record: Any) -> None:
    record.info["vs_idle_since"] = time.monotonic()


def _ping_when_idle(dialect: Any, dbapi_conn: Any, record: Any) -> None:
    """Check a pooled connection that sat idle (the server may have restarted meanwhile); a dead
    one is replaced (``DisconnectionError``: the pool opens a new connection and tries again).

    ``pool_pre_ping`` did this before every use: a round trip per transaction, about 20 a run,
    when a busy process's connections are never idle for more than moments. A connection that
    dies while in use or between two uses moments apart fails its statement instead, as one
    that dies mid-transaction always did: the session treats that as an outage (``_outage``)."""
    idle_since = record.info.get("vs_idle_since")
    if idle_since is None or time.monotonic() - idle_since < PING_IDLE_S:
        return
    try:
        record.info.pop("vs_idle_since", None)
        if not dialect.do_ping(dbapi_conn):
            raise DisconnectionError("the connection did not answer")
    except Exception as exc:
        raise DisconnectionError(f"a pooled connection is gone: {exc}") from exc


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
