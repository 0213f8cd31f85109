"""Opening the database (an SQLite file or a PostgreSQL URL) and writing to it.

* Same tables and code on both engines (``store._engine`` makes the engine and checks the
  schema: see ``store.migrations``).
* Every event is committed when it is appended, with a sequence number per run that is unique
  and gap-free across threads, processes and machines: on PostgreSQL the append first locks the
  run's row (``SELECT … FOR UPDATE``), on SQLite the write lock of the statement serialises it;
  the ``(run_id, seq)`` unique constraint is the backstop, retried on conflict. A busy database
  is waited out the way every write here does (``store._write.retrying``).
* A run is driven by one process at a time: the append checks the run's lease in the same
  statement (``store.leases``), so a second driver cannot write.
* A database written by a newer schema is refused with a clear message.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Iterable, Iterator

from sqlalchemy import bindparam, func, insert, text, update
from sqlmodel import Session, col, select

from ..run.config import RunConfig
from ..run.events import EventData, GraphEvent, StoredEvent, parse_event, utcnow
from ._append import LOCK_RUN_SQL, RUN_EXISTS_SQL, GroupRefused, RunNotFound, append_on, append_runs_on, graph_row
from ._engine import make_engine, prepare_schema
from ._url import DbTarget, db_target
from ._write import retrying
from .backoffs import BackoffsMixin
from .campaigns import CampaignsMixin
from .labels import LabelsMixin
from .logins import LoginFailuresMixin, LoginsMixin
from .studies import StudiesMixin
from .stops import StopsMixin
from .votes import VotesMixin
from .web import WebMixin
from .migrations import SchemaError
from .tables import SCHEMA_VERSION, EventRow, GraphRow, Meta, Run, ScoreRow, VerdictRow

__all__ = ["RunNotFound", "RunState", "SchemaError", "Store", "build_run", "new_run_id", "open_db"]


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


class Store(LabelsMixin, CampaignsMixin, StopsMixin, LoginsMixin, LoginFailuresMixin, StudiesMixin, BackoffsMixin, VotesMixin, WebMixin):
    """One database: an SQLite file (a path or ``sqlite:///path``) or a PostgreSQL URL
    (``postgresql+psycopg://user@host:port/db``). Thread-safe; share one Store per process and
    database (``open_db``).

    ``path`` is the SQLite file, or for PostgreSQL the URL with its password hidden."""

    def __init__(self, path: str | Path, *, read_only: bool = False):
        self.target: DbTarget = db_target(path)
        self.path: Path | str = self.target.path if self.target.path is not None else self.target.shown
        self.read_only = read_only and self.target.is_sqlite
        self.engine = make_engine(self.target, read_only=self.read_only)
        self.dialect = self.engine.dialect.name
        # SQLite has one writer at a time: this process's writes take turns here rather than wait out
        # its busy timeout. PostgreSQL orders concurrent writers itself (an append locks its run's
        # row), so writes from one process go out at once, as those of several processes do.
        self._lock: AbstractContextManager[Any] = threading.RLock() if self.target.is_sqlite else nullcontext()
        with self._lock:
            prepare_schema(self.engine, self.target, read_only=self.read_only)

    def schema_version(self) -> int:
        """The ``meta.schema_version`` an older vibesearch reads (revisions: ``store.migrations``)."""
        with Session(self.engine) as s:
            row = s.get(Meta, "schema_version")
            return int(row.value) if row else SCHEMA_VERSION

    # ------------------------------------------------------------------ runs
    def create_run(
        self,
        task_id: str,
        *,
        task_json: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        run_id: str | None = None,
        run_config: RunConfig | None = None,
        **fields: Any,
    ) -> Run:
        run = build_run(task_id, task_json=task_json, config=config, meta=meta, run_id=run_id, run_config=run_config, **fields)
        with self._lock, Session(self.engine, expire_on_commit=False) as s:  # the row is as built: not read back
            s.add(run)
            s.commit()
            return run

    def open_run(self, run: Run, *, lease: str, claim_ttl: float | None = None, events: list[EventData] | None = None) -> list[StoredEvent]:
        """Store a new run's row (``build_run``) and its first ``events`` in one transaction,
        under the lease ``lease`` (an owner id): claimed here for ``claim_ttl`` seconds when
        given (``LeaseHeld``, and nothing stored, when another process holds it), else the
        caller's. All or nothing: a run is never left without what it was opened with.
        Returns the events as stored."""
        from .leases import LeaseHeld, claim_on, holder, run_key

        key = run_key(run.id)
        values = {name: getattr(run, name) for name in Run.model_fields}

        def attempt() -> list[StoredEvent]:
            with self._lock, self.engine.begin() as conn:
                if claim_ttl is not None and not claim_on(conn, key, lease, claim_ttl):
                    raise _Refused
                conn.execute(insert(Run), values)
                return append_on(self, conn, run.id, list(events or ()), lease) if events else []

        try:
            return retrying(attempt, what=f"opening run {run.id}")
        except _Refused:
            raise LeaseHeld(f"run {run.id}", holder(self, key)) from None

    def get_run(self, run_id: str) -> Run:
        with Session(self.engine) as s:
            run = s.get(Run, run_id)
            if run is None:
                raise RunNotFound(run_id)
            return run

    def run_state(self, run_id: str) -> RunState:
        """Where the run stands (status, termination, meta) without its large JSON columns: what
        a driver reads before it opens, continues or closes a run. ``RunNotFound`` when missing."""
        with self.engine.connect() as conn:
            row = conn.execute(_RUN_STATE_SQL, {"run_id": run_id}).first()
        if row is None:
            raise RunNotFound(run_id)
        return RunState(status=row[0], termination=row[1], meta_json=row[2] or "{}")

    def update_run(self, run_id: str, *, lease: str | None = None, release: bool = False, **fields: Any) -> None:
        """Set fields of the run's row (``meta`` and ``config`` as their JSON columns), and its
        ``updated_at``: one ``UPDATE``, the row never read. With ``lease`` (an owner id, as
        ``append_many`` takes it) the caller must still hold the run's lease, checked in the same
        statement (the row is locked first on PostgreSQL), else ``LeaseLost`` and nothing is
        changed; ``RunNotFound`` when there is no such run. ``release`` (with ``lease``): the
        lease is let go in the same transaction (a run's last write: its end)."""
        from .leases import OWNS_SQL, LeaseLost, holder, release_on, run_key

        if release and lease is None:
            raise TypeError("update_run: release= needs the lease it lets go")

        values: dict[str, Any] = {}
        for name, value in fields.items():
            if name in ("meta", "config"):
                values[f"{name}_json"] = json.dumps(value, ensure_ascii=False)
            elif name in Run.model_fields:
                values[name] = value
            else:
                raise TypeError(f"update_run: runs have no field {name!r}")
        values["updated_at"] = utcnow()
        key = run_key(run_id)
        statement = _update_statement(tuple(values), guarded=lease is not None, owns_sql=OWNS_SQL)
        params = {"row_id": run_id, **{f"new_{name}": value for name, value in values.items()}}
        if lease is not None:
            params.update(lease_key=key, lease_owner=lease)

        def attempt() -> None:
            with self._lock, self.engine.begin() as conn:
                if lease is not None and self.dialect == "postgresql" and conn.execute(LOCK_RUN_SQL, {"run_id": run_id}).first() is None:
                    raise RunNotFound(run_id)
                if conn.execute(statement, params).rowcount:
                    if release and lease is not None:
                        release_on(conn, key, lease)
                    return
                if not conn.execute(RUN_EXISTS_SQL, {"run_id": run_id}).first():
                    raise RunNotFound(run_id)
                raise LeaseLost(f"run {run_id}", holder(self, key))

        retrying(attempt, what=f"updating run {run_id}")

    def list_runs(self, **filters: Any) -> list[Run]:
        with Session(self.engine) as s:
            q = select(Run)
            for key, value in filters.items():
                if value is not None:
                    q = q.where(getattr(Run, key) == value)
            return list(s.exec(q.order_by(col(Run.created_at).desc())))

    # ------------------------------------------------------------------ events
    def append(self, run_id: str, data: EventData, *, lease: str | None = None) -> StoredEvent:
        """Write one event and commit it. Returns it with its sequence number (see ``append_many``)."""
        return self.append_many(run_id, [data], lease=lease)[0]

    def append_many(self, run_id: str, items: list[EventData], *, lease: str | None = None) -> list[StoredEvent]:
        """Write events in one transaction (all or none) and return them with their numbers.

        On SQLite each event is one ``INSERT … SELECT MAX(seq)+1 … RETURNING`` statement, run
        atomically (one writer at a time). On PostgreSQL the transaction first locks the run's row
        (``SELECT … FOR UPDATE``), so appends to one run from any process or machine take their
        turns and each reads the numbers committed before it; then one statement inserts them all,
        numbered ``MAX(seq)+1, +2, …`` in order. Both go through SQLAlchemy with the same lease
        guard, retries and errors. The sequence stays unique and
        gap-free without a separate read; the ``(run_id, seq)`` constraint is the backstop.

        The same statement checks the run's lease (``store.leases``): with ``lease`` (an owner
        id) the caller must hold it, else ``LeaseLost``; without, nobody else may hold a live
        one, else ``LeaseHeld``. So two drivers can never both write to a run.
        """

        def attempt() -> list[StoredEvent]:
            with self._lock, self.engine.begin() as conn:
                return append_on(self, conn, run_id, items, lease)

        return retrying(attempt, what=f"appending to run {run_id}", not_found=lambda: RunNotFound(run_id))

    def append_groups(self, groups: list[tuple[str, list[EventData], str | None]]) -> list[list[StoredEvent] | Exception]:
        """Write the event groups of several runs (``(run_id, events, lease)``, in order) in one
        transaction, each as ``append_many`` would, and return each group's stored events, or the
        error that refused it. A process driving many runs commits once for all the groups its
        runs made in a moment rather than once per group.

        When any group is refused (its lease, a missing run, any error that is not a busy
        database) nothing of that transaction is kept and each group is written on its own, so
        one run's refusal never costs another run its events; the groups after a refused group
        of the same run are not written (they get its error)."""
        if len(groups) == 1:
            run_id, items, lease = groups[0]
            try:
                return [self.append_many(run_id, items, lease=lease)]
            except Exception as exc:  # noqa: BLE001 - the caller gets each group's error
                return [exc]
        # PostgreSQL locks each run's row: in one order across transactions (a run's groups stay in theirs)
        order = sorted(range(len(groups)), key=lambda i: groups[i][0])

        def attempt() -> list[list[StoredEvent] | Exception]:
            out: list[list[StoredEvent] | Exception] = [[] for _ in groups]
            with self._lock, self.engine.begin() as conn:
                if self.dialect == "postgresql" and all(lease is not None for _r, _i, lease in groups):
                    return append_runs_on(conn, groups)  # two statements for them all
                for i in order:
                    run_id, items, lease = groups[i]
                    out[i] = append_on(self, conn, run_id, items, lease)
            return out

        try:
            return retrying(attempt, what=f"appending to {len(groups)} runs", not_found=GroupRefused)
        except Exception:  # noqa: BLE001 - rolled back whole: each group on its own says which was refused
            pass
        results: list[list[StoredEvent] | Exception] = []
        refused: dict[str, Exception] = {}
        for run_id, items, lease in groups:
            if run_id in refused:
                results.append(refused[run_id])
                continue
            try:
                results.append(self.append_many(run_id, items, lease=lease))
            except Exception as exc:  # noqa: BLE001 - this group's error, for its run
                refused[run_id] = exc
                results.append(exc)
        return results

    def events(self, run_id: str, *, after: int = 0, kinds: Iterable[str] | None = None) -> list[StoredEvent]:
        with Session(self.engine) as s:
            q = select(EventRow).where(EventRow.run_id == run_id, EventRow.seq > after)
            if kinds is not None:
                q = q.where(col(EventRow.kind).in_(list(kinds)))
            rows = s.exec(q.order_by(col(EventRow.seq))).all()
            return [_stored(r) for r in rows]

    def iter_events(self, run_id: str) -> Iterator[StoredEvent]:
        yield from self.events(run_id)

    def last_seq(self, run_id: str) -> int:
        with Session(self.engine) as s:
            last = s.exec(select(func.max(EventRow.seq)).where(EventRow.run_id == run_id)).one()
            return last or 0

    # ------------------------------------------------------------------ graphs
    def add_graph(self, run_id: str, graph: GraphEvent) -> GraphRow:
        with self._lock, Session(self.engine) as s:
            row = graph_row(run_id, graph)
            s.add(row)
            s.commit()
            s.refresh(row)
            return row

    def latest_graph(self, run_id: str, *, source: str | None = None) -> GraphRow | None:
        """The run's newest graph (``source``: of that source only, e.g. "extraction", the run's own)."""
        with Session(self.engine) as s:
            q = select(GraphRow).where(GraphRow.run_id == run_id)
            if source is not None:
                q = q.where(GraphRow.source == source)
            return s.exec(q.order_by(col(GraphRow.id).desc())).first()

    # ------------------------------------------------------------------ scores
    def add_score(self, score: ScoreRow, verdicts: list[VerdictRow]) -> ScoreRow:
        with self._lock, Session(self.engine) as s:
            s.add(score)
            s.flush()
            if score.id is None:
                raise RuntimeError("the database gave the new score no id")
            for v in verdicts:
                v.score_id = score.id
                v.run_id = score.run_id
                s.add(v)
            s.commit()
            s.refresh(score)
            return score

    def scores(self, run_id: str | None = None) -> list[ScoreRow]:
        with Session(self.engine) as s:
            q = select(ScoreRow)
            if run_id is not None:
                q = q.where(ScoreRow.run_id == run_id)
            return list(s.exec(q.order_by(col(ScoreRow.id))))

    def verdicts(self, score_id: int | None) -> list[VerdictRow]:
        """The verdicts of a stored score (``score_id``: its row's id, None only before it is stored)."""
        if score_id is None:
            raise ValueError("a score that was never stored has no verdicts")
        with Session(self.engine) as s:
            q = select(VerdictRow).where(VerdictRow.score_id == score_id).order_by(col(VerdictRow.gt_index))
            return list(s.exec(q))

    # ------------------------------------------------------------------ imports
    def import_runs(self, runs: list[tuple[Run, list[EventData]]]) -> list[Run]:
        """Write whole runs, each with its events numbered from 1 (and their graphs), in one
        transaction: every run is stored complete, or on any error nothing is stored."""
        with self._lock, Session(self.engine) as s:
            for run, events in runs:
                s.add(run)
                s.flush()
                for seq, data in enumerate(events, start=1):
                    s.add(EventRow(run_id=run.id, seq=seq, ts=utcnow(), kind=data.kind, data_json=data.model_dump_json()))
                    if isinstance(data, GraphEvent):
                        s.add(graph_row(run.id, data))
            s.commit()
            for run, _ in runs:
                s.refresh(run)
        return [run for run, _ in runs]

    def session(self) -> Session:
        """A raw SQLModel session for queries this class does not offer."""
        return Session(self.engine)


_UPDATES: dict[tuple[tuple[str, ...], bool], Any] = {}


class _Refused(Exception):
    """(``Store.open_run``) the lease was refused: the transaction is rolled back, then said."""


def _update_statement(columns: tuple[str, ...], *, guarded: bool, owns_sql: str) -> Any:
    """The ``UPDATE`` of these columns of a run's row (``guarded``: only while ``:owner`` holds
    the lease ``:key``), built once per set of columns: building one per call cost more than
    running it (a run's row is updated a few times, by hundreds of runs at once). Values are
    bound at execution (``row_id``, ``new_<column>``, ``lease_key``, ``lease_owner``)."""
    built = _UPDATES.get((columns, guarded))
    if built is None:
        built = update(Run).where(col(Run.id) == bindparam("row_id")).values({c: bindparam(f"new_{c}") for c in columns})
        if guarded:  # its parameters renamed: ``owner`` is a column of runs too (reserved for its SET)
            built = built.where(text(owns_sql.replace(":owner", ":lease_owner").replace(":key", ":lease_key")))
        _UPDATES[(columns, guarded)] = built
    return built


_RUN_STATE_SQL = text("SELECT status, termination, meta_json FROM runs WHERE id = :run_id")


@dataclass(frozen=True)
class RunState:
    """A run's status, termination and meta (``Store.run_state``)."""

    status: str
    termination: str | None
    meta_json: str

    def meta(self) -> dict[str, Any]:
        value = json.loads(self.meta_json)
        return value if isinstance(value, dict) else {}


def build_run(
    task_id: str,
    *,
    task_json: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
    run_id: str | None = None,
    run_config: RunConfig | None = None,
    **fields: Any,
) -> Run:
    """A run row (not yet stored): ``create_run`` and ``import_runs`` store it. ``config`` is the
    settings snapshot, ``run_config`` the run's own description."""
    return Run(
        id=run_id or new_run_id(),
        task_id=task_id,
        task_json=json.dumps(task_json or {}, ensure_ascii=False),
        config_json=json.dumps(config or {}, ensure_ascii=False),
        meta_json=json.dumps(meta or {}, ensure_ascii=False),
        run_config_json=run_config.model_dump_json() if run_config is not None else None,
        **fields,
    )


def _stored(row: EventRow) -> StoredEvent:
    return StoredEvent(run_id=row.run_id, seq=row.seq, ts=row.ts, data=parse_event(row.data_json))


_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def open_db(path: str | Path | None = None, *, writes: bool = True) -> Store:
    """The process' Store for a database (default: settings' ``db``). Same database, same object.

    The first time, an SQLite file is checked without writing to it (``store._open``): a file
    that is not a whole vibesearch database raises ``DamagedDatabase``. A file we may not write is
    opened read-only for a caller that only reads (``writes=False``) and raises
    ``ReadOnlyDatabase`` for one that writes. A PostgreSQL URL is opened as it is."""
    from ._open import ReadOnlyDatabase, check_db_file

    if path is None:
        from ..config import get_settings

        path = get_settings().db
    target = db_target(path)
    with _STORES_LOCK:
        store = _STORES.get(target.key)
        if store is None or (writes and store.read_only):
            can_write = True
            if target.path is not None and str(target.path) != ":memory:":
                can_write = check_db_file(target.path)
            if not can_write and writes:
                raise ReadOnlyDatabase(f"{target.shown} is read-only: this command writes to the database")
            store = Store(target.url if target.path is None else target.path, read_only=not can_write)
            _STORES[target.key] = store
        return store
