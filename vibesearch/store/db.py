"""Opening the SQLite database and writing to it.

* WAL mode, a busy timeout and ``synchronous=NORMAL``: several processes (the app, a batch) and
  many threads can write the same file.
* Every event is committed when it is appended, with a sequence number per run that is unique
  and gap-free (a process lock plus the ``(run_id, seq)`` unique constraint, retried on conflict
  so two processes cannot collide either).
* A run is driven by one process at a time: the append checks the run's lease in the same
  statement (``store.leases``), so a second driver cannot write.
* The schema version is recorded; a file written by a newer schema is refused with a clear message.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from sqlalchemy import event as sa_event
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, col, create_engine, select

from ..run.config import RunConfig
from ..run.events import EventData, GraphEvent, StoredEvent, parse_event, utcnow
from .tables import (
    SCHEMA_VERSION,
    EventRow,
    GraphRow,
    LabelRow,
    Meta,
    PredLabelRow,
    Run,
    ScoreRow,
    VerdictRow,
)


class SchemaError(RuntimeError):
    pass


class RunNotFound(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return f"no run with id {self.args[0]!r} in this database"


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


class Store:
    """One SQLite file. Thread-safe; share one Store per process and path."""

    def __init__(self, path: str | Path, *, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        if read_only:  # a file we may not write: read it, never touch it (``open_db`` decides)
            self.engine = create_engine("sqlite://", creator=lambda: _read_only_connect(self.path))
            self._lock = threading.RLock()
            self._check_schema()
            return
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_engine(
            f"sqlite:///{self.path}",
            connect_args={"check_same_thread": False, "timeout": 30},
        )
        sa_event.listen(self.engine, "connect", _sqlite_pragmas)
        self._lock = threading.RLock()
        self._init_schema()

    # ------------------------------------------------------------------ schema
    def _init_schema(self) -> None:
        with self._lock:
            for attempt in range(5):  # another process may be creating the same new file right now
                try:
                    SQLModel.metadata.create_all(self.engine)
                    break
                except OperationalError as exc:
                    if "already exists" not in str(exc) or attempt == 4:
                        raise
            _add_missing_columns(self.engine)
            with Session(self.engine) as s:
                row = s.get(Meta, "schema_version")
                if row is None:
                    s.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
                    try:
                        s.commit()
                    except IntegrityError:  # that other process wrote it first
                        s.rollback()
                elif int(row.value) > SCHEMA_VERSION:
                    raise SchemaError(
                        f"{self.path}: database schema version {row.value} is newer than this "
                        f"vibesearch understands ({SCHEMA_VERSION}); upgrade vibesearch or use another --db"
                    )

    def _check_schema(self) -> None:
        from ._open import StoreOpenError

        with Session(self.engine) as s:
            try:
                row = s.get(Meta, "schema_version")
            except OperationalError:
                raise StoreOpenError(f"{self.path} is read-only and holds no vibesearch tables yet") from None
        if row is not None and int(row.value) > SCHEMA_VERSION:
            raise SchemaError(f"{self.path}: database schema version {row.value} is newer than this vibesearch understands ({SCHEMA_VERSION})")

    def schema_version(self) -> int:
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
        with self._lock, Session(self.engine) as s:
            s.add(run)
            s.commit()
            s.refresh(run)
            return run

    def get_run(self, run_id: str) -> Run:
        with Session(self.engine) as s:
            run = s.get(Run, run_id)
            if run is None:
                raise RunNotFound(run_id)
            return run

    def update_run(self, run_id: str, **fields: Any) -> Run:
        with self._lock, Session(self.engine) as s:
            run = s.get(Run, run_id)
            if run is None:
                raise RunNotFound(run_id)
            for key, value in fields.items():
                if key in ("meta", "config"):
                    setattr(run, f"{key}_json", json.dumps(value, ensure_ascii=False))
                else:
                    setattr(run, key, value)
            run.updated_at = utcnow()
            s.add(run)
            s.commit()
            s.refresh(run)
            return run

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

        Each is one ``INSERT … SELECT MAX(seq)+1 … RETURNING`` statement: SQLite runs it
        atomically, so the sequence stays unique and gap-free across threads and processes
        without a separate read; the ``(run_id, seq)`` constraint is the backstop.

        The same statement checks the run's lease (``store.leases``): with ``lease`` (an owner
        id) the caller must hold it, else ``LeaseLost``; without, nobody else may hold a live
        one, else ``LeaseHeld``. So two drivers can never both write to a run.
        """
        from .leases import FREE_SQL, OWNS_SQL, LeaseHeld, LeaseLost, holder, run_key

        key = run_key(run_id)
        sql = _APPEND_SQL.format(guard=OWNS_SQL if lease is not None else FREE_SQL)
        rows = [(d.model_dump_json(), d) for d in items]
        for attempt in range(50):
            ts = utcnow()
            stamp = ts.strftime("%Y-%m-%d %H:%M:%S.%f")
            try:
                out: list[StoredEvent] = []
                with self._lock, self.engine.begin() as conn:
                    for payload, data in rows:
                        guard = (key, lease) if lease is not None else (key, time.time())
                        seq = conn.exec_driver_sql(sql, (run_id, run_id, stamp, data.kind, payload, *guard)).scalar_one_or_none()
                        if seq is None:
                            if not conn.exec_driver_sql("SELECT 1 FROM runs WHERE id = ?", (run_id,)).first():
                                raise RunNotFound(run_id)
                            what = f"run {run_id}"
                            raise LeaseLost(what, holder(self, key)) if lease is not None else LeaseHeld(what, holder(self, key))
                        if isinstance(data, GraphEvent):
                            row = _graph_row(run_id, data)
                            conn.execute(SQLModel.metadata.tables[GraphRow.__tablename__].insert().values(**row.model_dump(exclude={"id"})))
                        out.append(StoredEvent(run_id=run_id, seq=seq, ts=ts, data=data))
                return out
            except IntegrityError as exc:
                if "FOREIGN KEY" in str(exc):
                    raise RunNotFound(run_id) from None
                time.sleep(0.001 * (attempt + 1))  # another process took this number first
            except OperationalError as exc:  # database locked past the busy timeout
                if "locked" not in str(exc) or attempt >= 49:
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise RuntimeError(f"could not append an event to run {run_id}")

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
            row = _graph_row(run_id, graph)
            s.add(row)
            s.commit()
            s.refresh(row)
            return row

    def latest_graph(self, run_id: str) -> GraphRow | None:
        with Session(self.engine) as s:
            q = select(GraphRow).where(GraphRow.run_id == run_id).order_by(col(GraphRow.id).desc())
            return s.exec(q).first()

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

    # ------------------------------------------------------------------ labels
    def put_label(
        self,
        run_id: str,
        gt_index: int,
        annotator: str,
        covered: bool,
        evidence: list[int] | None = None,
        note: str = "",
        created_at: datetime | None = None,
    ) -> LabelRow:
        """Insert or replace the label of (run, ground-truth triple, annotator)."""
        with self._lock, Session(self.engine) as s:
            q = select(LabelRow).where(
                LabelRow.run_id == run_id, LabelRow.gt_index == gt_index, LabelRow.annotator == annotator
            )
            row = s.exec(q).first() or LabelRow(run_id=run_id, gt_index=gt_index, annotator=annotator, covered=covered)
            row.covered = covered
            row.evidence_json = json.dumps(evidence or [])
            row.note = note
            row.created_at = created_at or utcnow()
            s.add(row)
            s.commit()
            s.refresh(row)
            return row

    def put_labels(self, labels: list[dict[str, Any]]) -> int:
        """``put_label`` for many labels in one transaction: all of them are stored or none.
        Each dict has put_label's arguments (``run_id, gt_index, annotator, covered`` and optionally
        ``evidence, note, created_at``); a later one replaces an earlier one with the same key."""
        return self.put_both_labels(labels, [])[0]

    def put_pred_labels(self, labels: list[dict[str, Any]]) -> int:
        """Validity labels (one per predicted triple and annotator) in one transaction: all or none.
        Each dict has ``run_id, pred_index, annotator, valid`` and optionally ``evidence`` (the
        supporting ground-truth indices), ``note, created_at``; a later one replaces an earlier one."""
        return self.put_both_labels([], labels)[1]

    def put_both_labels(self, coverage: list[dict[str, Any]], validity: list[dict[str, Any]]) -> tuple[int, int]:
        """Coverage labels (``put_labels``' dicts) and validity labels (``put_pred_labels``' dicts)
        in one transaction: every one of them is stored, or on any error none is."""
        with self._lock, Session(self.engine) as s:
            for item in coverage:
                q = select(LabelRow).where(
                    LabelRow.run_id == item["run_id"], LabelRow.gt_index == item["gt_index"], LabelRow.annotator == item["annotator"]
                )
                row = s.exec(q).first() or LabelRow(run_id=item["run_id"], gt_index=item["gt_index"], annotator=item["annotator"], covered=item["covered"])
                row.covered = item["covered"]
                row.evidence_json = json.dumps(item.get("evidence") or [])
                row.note = item.get("note") or ""
                row.created_at = item.get("created_at") or utcnow()
                s.add(row)
                s.flush()  # the next item with the same key finds this row
            for item in validity:
                pq = select(PredLabelRow).where(
                    PredLabelRow.run_id == item["run_id"], PredLabelRow.pred_index == item["pred_index"], PredLabelRow.annotator == item["annotator"]
                )
                prow = s.exec(pq).first() or PredLabelRow(run_id=item["run_id"], pred_index=item["pred_index"], annotator=item["annotator"], valid=item["valid"])
                prow.valid = item["valid"]
                prow.evidence_json = json.dumps(item.get("evidence") or [])
                prow.note = item.get("note") or ""
                prow.created_at = item.get("created_at") or utcnow()
                s.add(prow)
                s.flush()
            s.commit()
        return len(coverage), len(validity)

    def pred_labels(self, run_id: str | None = None, annotator: str | None = None) -> list[PredLabelRow]:
        """Validity labels, ordered by run, predicted index and annotator."""
        with Session(self.engine) as s:
            q = select(PredLabelRow)
            if run_id is not None:
                q = q.where(PredLabelRow.run_id == run_id)
            if annotator is not None:
                q = q.where(PredLabelRow.annotator == annotator)
            try:
                return list(s.exec(q.order_by(col(PredLabelRow.run_id), col(PredLabelRow.pred_index), col(PredLabelRow.annotator))))
            except OperationalError as exc:  # a read-only file written before the table existed
                if self.read_only and "no such table" in str(exc):
                    return []
                raise

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
                        s.add(_graph_row(run.id, data))
            s.commit()
            for run, _ in runs:
                s.refresh(run)
        return [run for run, _ in runs]

    def labels(self, run_id: str | None = None, annotator: str | None = None) -> list[LabelRow]:
        with Session(self.engine) as s:
            q = select(LabelRow)
            if run_id is not None:
                q = q.where(LabelRow.run_id == run_id)
            if annotator is not None:
                q = q.where(LabelRow.annotator == annotator)
            return list(s.exec(q.order_by(col(LabelRow.run_id), col(LabelRow.gt_index), col(LabelRow.annotator))))

    def session(self) -> Session:
        """A raw SQLModel session for queries this class does not offer."""
        return Session(self.engine)


# the next number of the run, only when ``guard`` (the lease check) holds; no row otherwise
_APPEND_SQL = (
    "INSERT INTO events (run_id, seq, ts, kind, data_json) "
    "SELECT ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = ?), ?, ?, ? "
    "WHERE {guard} RETURNING seq"
)


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


# columns added after the first release: a file written before gets them (NULL) when opened for
# writing; the schema version does not change, since an older vibesearch reads such a file as before
ADDED_COLUMNS = {"runs": {"run_config_json": "TEXT"}, "scores": {"protocol": "TEXT", "prompt_source": "TEXT"}}


def _add_missing_columns(engine: Any) -> None:
    with engine.begin() as conn:
        for table, columns in ADDED_COLUMNS.items():
            have = {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}
            for name, sql_type in columns.items():
                if name not in have:
                    try:
                        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}")
                    except OperationalError as exc:  # another process added it a moment ago
                        if "duplicate column" not in str(exc):
                            raise


def _read_only_connect(path: Path) -> Any:
    """A read-only connection on which a file written before a column was added reads as if it
    had it (NULL): a temporary view of the same name stands in for the table."""
    from ._open import read_only_connect

    conn = read_only_connect(path)
    for table, columns in ADDED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")}
        missing = [name for name in columns if name not in have]
        if have and missing:
            nulls = ", ".join(f"NULL AS {name}" for name in missing)
            conn.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {nulls} FROM main.{table}")
    return conn


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _graph_row(run_id: str, graph: GraphEvent) -> GraphRow:
    return GraphRow(
        run_id=run_id,
        source=graph.source,
        triples_json=json.dumps(graph.triples, ensure_ascii=False),
        raw_text=graph.raw_text,
        repaired_json=json.dumps(graph.repaired, ensure_ascii=False),
        dropped_json=json.dumps(graph.dropped, ensure_ascii=False),
    )


def _stored(row: EventRow) -> StoredEvent:
    return StoredEvent(run_id=row.run_id, seq=row.seq, ts=row.ts, data=parse_event(row.data_json))


_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def open_db(path: str | Path | None = None, *, writes: bool = True) -> Store:
    """The process' Store for a path (default: settings' ``db``). Same path, same object.

    The first time, the file is checked without writing to it (``store._open``): a file that is
    not a whole vibesearch database raises ``DamagedDatabase``. A file we may not write is opened
    read-only for a caller that only reads (``writes=False``) and raises ``ReadOnlyDatabase``
    for one that writes."""
    from ._open import ReadOnlyDatabase, check_db_file

    if path is None:
        from ..config import get_settings

        path = get_settings().db
    key = str(Path(path).resolve())
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None or (writes and store.read_only):
            can_write = check_db_file(path) if str(path) != ":memory:" else True
            if not can_write and writes:
                raise ReadOnlyDatabase(f"{path} is read-only: this command writes to the database")
            store = Store(path, read_only=not can_write)
            _STORES[key] = store
        return store
