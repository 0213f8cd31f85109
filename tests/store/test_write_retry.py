"""The one retry rule of the store's writes (``store._write.retrying``), exercised on real
databases: a write lock held by another connection is waited out by every write path, an error
that is not a busy database is raised at once, the attempts end after ``ATTEMPTS``, a taken
sequence number is tried again and a missing run is ``RunNotFound``.

The databases are made impatient (SQLite's busy timeout 0, PostgreSQL's ``lock_timeout`` 50 ms)
so that a lock surfaces as the error the rule handles instead of the database's own long wait.
The attempts are counted as connections checked out of the store's pool (one per attempt, in
the append and in ``write_statement``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import SQLModel

from vibesearch.run import GraphEvent, MessageEvent
from vibesearch.run.events import utcnow
from vibesearch.store import LeaseHeld, LeaseLost, RunNotFound, Store, upgrade_database
from vibesearch.store import _write, leases
from vibesearch.store import db_target
from vibesearch.store._write import is_busy, retrying, write_statement


def _set_for_new_sessions(url: str, setting: str, value: str) -> None:
    """(PostgreSQL) ``ALTER DATABASE … SET``: every session opened afterwards has it."""
    engine = create_engine(db_target(url).url)
    try:
        with engine.begin() as conn:
            name = conn.dialect.identifier_preparer.quote(make_url(db_target(url).url).database or "")
            conn.exec_driver_sql(f"ALTER DATABASE {name} SET {setting} = '{value}'")
    finally:
        engine.dispose()


def impatient_store(db_url: str) -> Store:
    """A Store whose database reports a lock held by another connection as an error at once
    (SQLite) or after 50 ms (PostgreSQL), instead of waiting for it itself."""
    if db_target(db_url).is_sqlite:
        store = Store(db_url)
        event.listen(store.engine, "connect", lambda dbapi_conn, _record: dbapi_conn.execute("PRAGMA busy_timeout = 0"))
        store.engine.dispose()  # the connections made so far wait 30 s
        return store
    _set_for_new_sessions(db_url, "lock_timeout", "50ms")
    return Store(db_url)


class Attempts:
    """Counts the connections taken from an engine's pool: one per attempt of a write."""

    def __init__(self, engine: Engine):
        self.count = 0
        self.started = threading.Event()
        self._engine = engine
        event.listen(engine, "checkout", self._checked_out)

    def _checked_out(self, *_args: object) -> None:
        self.count += 1
        self.started.set()

    def stop(self) -> None:
        event.remove(self._engine, "checkout", self._checked_out)


@contextmanager
def write_lock_held(db_url: str) -> Iterator[Callable[[], None]]:
    """Another connection holds the lock the store's writes need (SQLite: ``BEGIN IMMEDIATE``;
    PostgreSQL: the written tables locked ``EXCLUSIVE``, which still lets readers read). Yields
    the function that releases it (from any thread, at most once); released at the end anyway."""
    target = db_target(db_url)
    once = threading.Lock()
    done: list[bool] = []
    if target.is_sqlite:
        lite = sqlite3.connect(str(target.path), isolation_level=None, check_same_thread=False)
        lite.execute("BEGIN IMMEDIATE")

        def end() -> None:
            lite.execute("ROLLBACK")
            lite.close()
    else:
        engine = create_engine(target.url)
        conn = engine.connect()
        conn.exec_driver_sql("LOCK TABLE runs, events, graphs, leases, stop_requests, logins IN EXCLUSIVE MODE")

        def end() -> None:
            conn.rollback()
            conn.close()
            engine.dispose()

    def release() -> None:
        with once:
            if not done:
                done.append(True)
                end()

    try:
        yield release
    finally:
        release()


def _append(store: Store, run_id: str) -> object:
    return store.append(run_id, MessageEvent(role="user", content="hello")).seq


def _append_with_graph(store: Store, run_id: str) -> object:  # the graph row in the same transaction
    return store.append_many(run_id, [GraphEvent(triples=[{"head": "a", "relation": "b", "tail": "c"}])])[0].seq


def _claim(store: Store, run_id: str) -> object:
    return leases.claim(store, leases.run_key(run_id), leases.new_owner(), 60)


def _request_stop(store: Store, run_id: str) -> object:
    return store.request_stop(run_id, "someone")


WRITES = {"append": (_append, 1), "append with a graph": (_append_with_graph, 1), "lease claim": (_claim, None),
          "stop request": (_request_stop, True)}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_lock_held_by_another_connection_is_waited_out(db_url, write):
    store = impatient_store(db_url)
    run = store.create_run("t")
    do, expected = WRITES[write]
    attempts = Attempts(store.engine)
    with write_lock_held(db_url) as release:

        def release_later() -> None:  # the lock is held for 0.3 s after the write first tried
            if attempts.started.wait(10):
                time.sleep(0.3)
            release()

        releaser = threading.Thread(target=release_later)
        releaser.start()
        try:
            assert do(store, run.id) == expected
        finally:
            attempts.started.set()
            releaser.join()
    attempts.stop()
    assert attempts.count >= 2  # refused while the lock was held, then tried again


def test_an_error_that_is_not_a_busy_database_is_raised_at_once(db_url):
    store = Store(db_url)
    if db_target(db_url).is_sqlite:
        sql = "UPDATE no_such_table SET x = 1"  # "no such table": an OperationalError on SQLite
    else:  # a statement cancelled by its timeout: an OperationalError on PostgreSQL
        _set_for_new_sessions(db_url, "statement_timeout", "50ms")
        store.engine.dispose()
        sql = "SELECT pg_sleep(2)"
    attempts = Attempts(store.engine)
    with pytest.raises(OperationalError) as caught:
        write_statement(store.engine, store._lock, sql, {})
    attempts.stop()
    assert not is_busy(caught.value)
    assert attempts.count == 1


def test_an_append_whose_table_is_gone_is_not_tried_again(tmp_path):
    """An append's OperationalError that is no lock ("no such table") is raised at once."""
    store = Store(tmp_path / "test.db")
    run = store.create_run("t")
    with sqlite3.connect(tmp_path / "test.db") as other:
        other.execute("DROP TABLE events")
    attempts = Attempts(store.engine)
    with pytest.raises(OperationalError, match="no such table"):
        store.append(run.id, MessageEvent(role="user", content="hello"))
    attempts.stop()
    assert attempts.count == 1


@pytest.mark.parametrize("write", ["append", "lease claim"])
def test_the_attempts_end_with_the_last_busy_error(db_url, write, monkeypatch):
    monkeypatch.setattr(_write, "ATTEMPTS", 3)  # 50 would take 12 s of pauses
    store = impatient_store(db_url)
    run = store.create_run("t")
    attempts = Attempts(store.engine)
    with write_lock_held(db_url), pytest.raises(OperationalError) as caught:
        WRITES[write][0](store, run.id)
    attempts.stop()
    assert is_busy(caught.value)
    assert attempts.count == 3
    assert any("failed on attempt 3" in note for note in getattr(caught.value, "__notes__", []))


def _insert_event(store: Store, run_id: str, seq: int) -> int:
    """One transaction writing the event number ``seq`` of the run, as another writer might."""
    events = SQLModel.metadata.tables["events"]
    with store.engine.begin() as conn:
        conn.execute(events.insert().values(run_id=run_id, seq=seq, ts=utcnow(), kind="message", data_json="{}"))
    return seq


def test_a_taken_sequence_number_is_tried_again(db_url):
    store = Store(db_url)
    run = store.create_run("t")
    store.append(run.id, MessageEvent(role="user", content="first"))  # number 1 is taken
    numbers = iter([1, 2])  # the first attempt picks the number another writer took

    assert retrying(lambda: _insert_event(store, run.id, next(numbers)), what="test", not_found=lambda: RunNotFound(run.id)) == 2
    # without ``not_found`` (the small tables' writes) an IntegrityError is raised as it is
    attempts = Attempts(store.engine)
    with pytest.raises(IntegrityError):
        retrying(lambda: _insert_event(store, run.id, 1), what="test")
    attempts.stop()
    assert attempts.count == 1


def test_a_foreign_key_failure_is_the_callers_not_found(db_url):
    store = Store(db_url)
    with pytest.raises(RunNotFound):
        retrying(lambda: _insert_event(store, "no-such-run", 1), what="test", not_found=lambda: RunNotFound("no-such-run"))


@pytest.mark.parametrize("lease", [False, True])
def test_an_append_to_a_missing_run_is_run_not_found_at_once(db_url, lease):
    store = Store(db_url)
    attempts = Attempts(store.engine)
    with pytest.raises(RunNotFound):  # either lease guard: no row inserted, and no run either
        store.append("no-such-run", MessageEvent(role="user", content="hello"), lease=leases.new_owner() if lease else None)
    attempts.stop()
    assert attempts.count == 1


@pytest.mark.parametrize("error", [LeaseLost("run r"), LeaseHeld("run r", None), RunNotFound("r"), ValueError("no")])
def test_what_is_not_a_busy_database_or_a_collision_is_never_tried_again(error):
    calls: list[int] = []

    def attempt() -> None:
        calls.append(1)
        raise error

    with pytest.raises(type(error)):
        retrying(attempt, what="test", not_found=lambda: RunNotFound("r"))
    assert len(calls) == 1


def test_busy_is_read_off_the_driver_error_not_the_statement():
    def wrapped(statement: str, message: str) -> OperationalError:
        return OperationalError(statement, {}, Exception(message))  # a driver error with no code

    assert is_busy(wrapped("SELECT 1", "database is locked"))
    assert is_busy(wrapped("SELECT 1", "database table is locked"))
    assert is_busy(wrapped("SELECT 1", "deadlock detected"))
    assert is_busy(wrapped("SELECT 1", "could not serialize access due to concurrent update"))
    assert not is_busy(wrapped("UPDATE locked_rows SET deadlock = 1", "no such table: locked_rows"))
    lite = sqlite3.connect(":memory:")
    try:
        lite.execute("SELECT * FROM no_such_table")
    except sqlite3.OperationalError as exc:
        assert not is_busy(OperationalError("SELECT", {}, exc))
    finally:
        lite.close()


def test_a_serialization_failure_is_tried_again(pg_cluster):
    url = pg_cluster.new_database()
    upgrade_database(url)
    engine = create_engine(db_target(url).url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE counter (n integer)")
            conn.exec_driver_sql("INSERT INTO counter VALUES (0)")
        calls: list[int] = []

        def attempt() -> int:
            calls.append(1)
            with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn, conn.begin():
                conn.execute(text("SELECT n FROM counter")).scalar_one()  # the snapshot is taken here
                if len(calls) == 1:  # another writer changes the row meanwhile
                    with engine.begin() as other:
                        other.exec_driver_sql("UPDATE counter SET n = n + 10")
                conn.exec_driver_sql("UPDATE counter SET n = n + 1")
            return len(calls)

        assert retrying(attempt, what="test") == 2
        with engine.connect() as conn:
            assert conn.execute(text("SELECT n FROM counter")).scalar_one() == 11
    finally:
        engine.dispose()
