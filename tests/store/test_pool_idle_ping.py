"""PostgreSQL connections that sat idle in the pool are checked before use (``store._engine``):
one the server dropped meanwhile is replaced without the caller seeing an error; connections in
steady use are not pinged at all (a round trip saved per transaction)."""

from __future__ import annotations

import psycopg
import pytest

from vibesearch.store import Store, upgrade_database
from vibesearch.store import _engine


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _pids(store: Store) -> set[int]:
    """The server process ids of the connections idle in the store's pool (each checked out once)."""
    conns = [store.engine.connect() for _ in range(store.engine.pool.checkedin())]
    try:
        return {c.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() for c in conns}
    finally:
        for c in conns:
            c.close()


def _terminate(url: str, pid: int) -> None:
    """End a server process and wait until it is gone (pg_terminate_backend only signals it)."""
    import time

    with psycopg.connect(_libpq(url), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 30
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, f"backend {pid} did not end"
            time.sleep(0.02)


def test_an_idle_connection_the_server_dropped_is_replaced(pg_cluster, monkeypatch):
    url = pg_cluster.new_database()
    upgrade_database(url)
    store = Store(url)
    run = store.create_run("t")
    [pid] = _pids(store)
    _terminate(url, pid)
    monkeypatch.setattr(_engine, "PING_IDLE_S", 0.0)  # the pooled connection counts as idle now
    assert store.get_run(run.id).id == run.id  # no error: the dead connection was replaced
    assert pid not in _pids(store)
    store.engine.dispose()


def test_a_connection_in_steady_use_is_not_pinged(pg_cluster, monkeypatch):
    url = pg_cluster.new_database()
    upgrade_database(url)
    store = Store(url)
    run = store.create_run("t")
    pings: list[object] = []
    real = store.engine.dialect.do_ping
    monkeypatch.setattr(store.engine.dialect, "do_ping", lambda conn: pings.append(conn) or real(conn))
    for _ in range(20):
        store.get_run(run.id)
    assert pings == []  # used moments apart: never idle long enough to be checked
    monkeypatch.setattr(_engine, "PING_IDLE_S", 0.0)
    store.get_run(run.id)
    assert len(pings) == 1
    store.engine.dispose()


def test_a_dropped_connection_used_moments_later_fails_its_statement(pg_cluster, monkeypatch):
    """What the check leaves to the session's outage handling: a connection dropped between two
    uses moments apart raises (the caller never gets a wrong answer)."""
    from sqlalchemy.exc import OperationalError

    url = pg_cluster.new_database()
    upgrade_database(url)
    store = Store(url)
    run = store.create_run("t")
    monkeypatch.setattr(_engine, "PING_IDLE_S", 3600.0)  # "moments" however slow the machine
    [pid] = _pids(store)
    _terminate(url, pid)
    with pytest.raises(OperationalError):
        store.get_run(run.id)
    assert store.get_run(run.id).id == run.id  # the pool let the dead connection go
    store.engine.dispose()
