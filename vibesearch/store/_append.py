"""Appending events: the statements and the one rule of numbering and guarding them
(``Store.append_many`` and ``Store.append_groups`` hold the transactions and the retries).

A run's events are numbered ``MAX(seq)+1, +2, …`` in order, in the statement that inserts them,
only while the run's lease guard holds (``store.leases``: the caller's lease, or nobody's).
On PostgreSQL the run's row is locked first (``SELECT … FOR UPDATE``), so appends to one run from
any process take turns; SQLite's single writer does the same for its statements.

``append_runs_on`` is the PostgreSQL form for the groups of many runs at once (the process's event
writer commits what all its runs made in a moment together): one statement locks every run's row,
one inserts every event of every run, each run numbered after its own last event. A run missing or
a lease not held there leaves rows uninserted; the caller then rolls everything back
(``GroupRefused``) and writes each group on its own, which says whose it was.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import DateTime, String, Text, bindparam, text
from sqlmodel import SQLModel

from ..run.events import EventData, GraphEvent, StoredEvent, WebEvent, utcnow
from .tables import GraphRow
from .web import write_web_blobs


class RunNotFound(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return f"no run with id {self.args[0]!r} in this database"


class GroupRefused(Exception):
    """A group of a many-run append was refused (a run not stored, a lease not held): nothing of
    that transaction is kept, and each group is written on its own to say whose it was."""


LOCK_RUN_SQL = text("SELECT id FROM runs WHERE id = :run_id FOR UPDATE")
RUN_EXISTS_SQL = text("SELECT 1 FROM runs WHERE id = :run_id")
# the next number of the run, only when ``guard`` (the lease check) holds; no row otherwise
_APPEND_SQL = (
    "INSERT INTO events (run_id, seq, ts, kind, data_json) "
    "SELECT :run_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = :run_id), :ts, :kind, :data_json "
    "WHERE {guard} RETURNING seq"
)
# typed, so PostgreSQL knows each parameter's type (it cannot tell from ``SELECT :run_id``)
_APPEND_TYPES = (bindparam("run_id", type_=String()), bindparam("ts", type_=DateTime(timezone=True)), bindparam("kind", type_=String()), bindparam("data_json", type_=Text()))
# PostgreSQL: every event of one append in one statement, numbered after the run's last one in order
_APPEND_MANY_SQL = (
    "INSERT INTO events (run_id, seq, ts, kind, data_json) "
    "SELECT :run_id, base.top + item.ord, :ts, item.kind, item.data_json "
    "FROM (SELECT COALESCE(MAX(seq), 0) AS top FROM events WHERE run_id = :run_id) AS base "
    "CROSS JOIN unnest(CAST(:kinds AS text[]), CAST(:payloads AS text[])) WITH ORDINALITY AS item(kind, data_json, ord) "
    "WHERE {guard} ORDER BY item.ord RETURNING seq"
)
_APPEND_STATEMENTS: dict[str, tuple[Any, Any]] = {}
# PostgreSQL, many runs: every run's row locked (in one order), then every event inserted, each
# run's numbered after its own last one, each only while its owner holds its lease
_LOCK_RUNS_SQL = text("SELECT id FROM runs WHERE id = ANY(CAST(:run_ids AS text[])) ORDER BY id FOR UPDATE")
_APPEND_RUNS_SQL = text(
    "INSERT INTO events (run_id, seq, ts, kind, data_json) "
    "SELECT item.run_id, base.top + item.ord, :ts, item.kind, item.data_json "
    "FROM unnest(CAST(:run_ids AS text[]), CAST(:ords AS int[]), CAST(:kinds AS text[]), CAST(:payloads AS text[]), "
    "CAST(:owners AS text[])) AS item(run_id, ord, kind, data_json, owner) "
    "CROSS JOIN LATERAL (SELECT COALESCE(MAX(seq), 0) AS top FROM events WHERE events.run_id = item.run_id) AS base "
    "WHERE EXISTS (SELECT 1 FROM leases WHERE leases.key = 'run:' || item.run_id AND leases.owner = item.owner) "
    "ORDER BY item.run_id, item.ord RETURNING run_id, seq"
).bindparams(bindparam("ts", type_=DateTime(timezone=True)))


def _append_statements(guard_sql: str) -> tuple[Any, Any]:
    """The one-event and the many-event append statements under ``guard_sql``, built once per
    guard (building one costs more than running it on SQLite)."""
    built = _APPEND_STATEMENTS.get(guard_sql)
    if built is None:
        one = text(_APPEND_SQL.format(guard=guard_sql)).bindparams(*_APPEND_TYPES)
        many = text(_APPEND_MANY_SQL.format(guard=guard_sql)).bindparams(*_APPEND_TYPES[:2])
        built = _APPEND_STATEMENTS[guard_sql] = (one, many)
    return built


def append_on(store: Any, conn: Any, run_id: str, items: list[EventData], lease: str | None) -> list[StoredEvent]:
    """The events of one run appended on ``conn``, inside the caller's transaction; ``LeaseLost`` /
    ``LeaseHeld`` / ``RunNotFound`` when refused (nothing of the transaction is then to be kept)."""
    from .leases import FREE_SQL, OWNS_SQL, LeaseHeld, LeaseLost, holder, run_key

    key = run_key(run_id)
    sql, many_sql = _append_statements(OWNS_SQL if lease is not None else FREE_SQL)
    rows = [(d.model_dump_json(), d) for d in items]
    lock_run = store.dialect == "postgresql"
    ts = utcnow()
    # PostgreSQL: the run's row lock orders the appends to one run (held to commit)
    if lock_run and conn.execute(LOCK_RUN_SQL, {"run_id": run_id}).first() is None:
        raise RunNotFound(run_id)
    guard = {"key": key, "owner": lease} if lease is not None else {"key": key, "now": time.time()}
    if lock_run:  # every event in one statement (a round trip per event cost more than the rest)
        params = {"run_id": run_id, "ts": ts, "kinds": [d.kind for _p, d in rows], "payloads": [p for p, _d in rows], **guard}
        seqs = sorted(conn.execute(many_sql, params).scalars())
    else:
        seqs = []
        for payload, data in rows:
            seq = conn.execute(sql, {"run_id": run_id, "ts": ts, "kind": data.kind, "data_json": payload, **guard}).scalar_one_or_none()
            if seq is None:
                break
            seqs.append(seq)
    if len(seqs) != len(rows):  # the guard said no (nothing of this transaction is kept)
        if not conn.execute(RUN_EXISTS_SQL, {"run_id": run_id}).first():
            raise RunNotFound(run_id)
        what = f"run {run_id}"
        raise LeaseLost(what, holder(store, key)) if lease is not None else LeaseHeld(what, holder(store, key))
    _side_rows(conn, run_id, items)
    return [StoredEvent(run_id=run_id, seq=seq, ts=ts, data=data) for seq, (_p, data) in zip(seqs, rows)]


def append_runs_on(conn: Any, groups: list[tuple[str, list[EventData], str | None]]) -> list[list[StoredEvent] | Exception]:
    """(PostgreSQL) The groups of many runs, each under its owner's lease, in two statements;
    ``GroupRefused`` when any event was not inserted. Each group's stored events, in order."""
    ts = utcnow()
    ords: dict[str, int] = {}
    run_ids: list[str] = []
    positions: list[int] = []
    rows: list[tuple[str, EventData]] = []
    owners: list[str] = []
    for run_id, items, lease in groups:
        for data in items:
            ords[run_id] = ords.get(run_id, 0) + 1
            run_ids.append(run_id)
            positions.append(ords[run_id])
            rows.append((data.model_dump_json(), data))
            owners.append(str(lease))
    wanted = sorted(ords)
    if [r for (r,) in conn.execute(_LOCK_RUNS_SQL, {"run_ids": wanted})] != wanted:
        raise GroupRefused("a run is not stored")
    params = {"ts": ts, "run_ids": run_ids, "ords": positions, "kinds": [d.kind for _p, d in rows],
              "payloads": [p for p, _d in rows], "owners": owners}
    seqs: dict[str, list[int]] = {}
    for run_id, seq in conn.execute(_APPEND_RUNS_SQL, params):
        seqs.setdefault(run_id, []).append(seq)
    for numbers in seqs.values():
        numbers.sort()  # RETURNING promises no order
    if any(len(seqs.get(run_id, ())) != n for run_id, n in ords.items()):
        raise GroupRefused("a lease is not held")
    out: list[list[StoredEvent] | Exception] = []
    taken: dict[str, int] = {}
    for run_id, items, _lease in groups:
        start = taken.get(run_id, 0)
        mine = seqs[run_id][start:start + len(items)]
        taken[run_id] = start + len(items)
        _side_rows(conn, run_id, items)
        out.append([StoredEvent(run_id=run_id, seq=seq, ts=ts, data=data) for seq, data in zip(mine, items)])
    return out


def _side_rows(conn: Any, run_id: str, items: list[EventData]) -> None:
    """The rows some events carry beside them: a graph's, a web page's blobs."""
    graphs = SQLModel.metadata.tables[GraphRow.__tablename__]
    for data in items:
        if isinstance(data, GraphEvent):
            conn.execute(graphs.insert().values(**graph_row(run_id, data).model_dump(exclude={"id"})))
        elif isinstance(data, WebEvent):
            write_web_blobs(conn, data)


def graph_row(run_id: str, graph: GraphEvent) -> GraphRow:
    return GraphRow(
        run_id=run_id,
        source=graph.source,
        triples_json=json.dumps(graph.triples, ensure_ascii=False),
        raw_text=graph.raw_text,
        repaired_json=json.dumps(graph.repaired, ensure_ascii=False),
        dropped_json=json.dumps(graph.dropped, ensure_ascii=False),
    )
