"""Opening the SQLite database and writing to it.

* WAL mode, a busy timeout and ``synchronous=NORMAL``: several processes (the app, a batch) and
  many threads can write the same file.
* Every event is committed when it is appended, with a sequence number per run that is unique
  and gap-free (a process lock plus the ``(run_id, seq)`` unique constraint, retried on conflict
  so two processes cannot collide either).
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
from sqlmodel import Session, SQLModel, create_engine, select

from .events import EventData, GraphEvent, StoredEvent, parse_event, utcnow
from .tables import (
    SCHEMA_VERSION,
    EventRow,
    GraphRow,
    LabelRow,
    Meta,
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

    def __init__(self, path: str | Path):
        self.path = Path(path)
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
            SQLModel.metadata.create_all(self.engine)
            with Session(self.engine) as s:
                row = s.get(Meta, "schema_version")
                if row is None:
                    s.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
                    s.commit()
                elif int(row.value) > SCHEMA_VERSION:
                    raise SchemaError(
                        f"{self.path}: database schema version {row.value} is newer than this "
                        f"vibesearch understands ({SCHEMA_VERSION}); upgrade vibesearch or use another --db"
                    )

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
        **fields: Any,
    ) -> Run:
        run = Run(
            id=run_id or new_run_id(),
            task_id=task_id,
            task_json=json.dumps(task_json or {}, ensure_ascii=False),
            config_json=json.dumps(config or {}, ensure_ascii=False),
            meta_json=json.dumps(meta or {}, ensure_ascii=False),
            **fields,
        )
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
            return list(s.exec(q.order_by(Run.created_at.desc())))

    # ------------------------------------------------------------------ events
    def append(self, run_id: str, data: EventData) -> StoredEvent:
        """Write one event and commit it. Returns it with its sequence number.

        One ``INSERT … SELECT MAX(seq)+1 … RETURNING`` statement: SQLite runs it atomically, so
        the sequence stays unique and gap-free across threads and processes without a separate
        read; the ``(run_id, seq)`` constraint is the backstop.
        """
        payload = data.model_dump_json()
        ts = utcnow()
        is_graph = isinstance(data, GraphEvent)
        for attempt in range(50):
            try:
                with self._lock, self.engine.begin() as conn:
                    seq = conn.exec_driver_sql(_APPEND_SQL, (run_id, ts.strftime("%Y-%m-%d %H:%M:%S.%f"), data.kind, payload, run_id)).scalar_one()
                    if is_graph:
                        row = _graph_row(run_id, data)  # type: ignore[arg-type]
                        conn.execute(GraphRow.__table__.insert().values(**row.model_dump(exclude={"id"})))
                return StoredEvent(run_id=run_id, seq=seq, ts=ts, data=data)
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
                q = q.where(EventRow.kind.in_(list(kinds)))
            rows = s.exec(q.order_by(EventRow.seq)).all()
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
            q = select(GraphRow).where(GraphRow.run_id == run_id).order_by(GraphRow.id.desc())
            return s.exec(q).first()

    # ------------------------------------------------------------------ scores
    def add_score(self, score: ScoreRow, verdicts: list[VerdictRow]) -> ScoreRow:
        with self._lock, Session(self.engine) as s:
            s.add(score)
            s.flush()
            for v in verdicts:
                v.score_id = score.id  # type: ignore[assignment]
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
            return list(s.exec(q.order_by(ScoreRow.id)))

    def verdicts(self, score_id: int) -> list[VerdictRow]:
        with Session(self.engine) as s:
            q = select(VerdictRow).where(VerdictRow.score_id == score_id).order_by(VerdictRow.gt_index)
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

    def labels(self, run_id: str | None = None, annotator: str | None = None) -> list[LabelRow]:
        with Session(self.engine) as s:
            q = select(LabelRow)
            if run_id is not None:
                q = q.where(LabelRow.run_id == run_id)
            if annotator is not None:
                q = q.where(LabelRow.annotator == annotator)
            return list(s.exec(q.order_by(LabelRow.run_id, LabelRow.gt_index, LabelRow.annotator)))

    def session(self) -> Session:
        """A raw SQLModel session for queries this class does not offer."""
        return Session(self.engine)


_APPEND_SQL = (
    "INSERT INTO events (run_id, seq, ts, kind, data_json) "
    "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM events WHERE run_id = ? RETURNING seq"
)


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


def open_db(path: str | Path | None = None) -> Store:
    """The process' Store for a path (default: settings' ``db``). Same path, same object."""
    if path is None:
        from ..config import get_settings

        path = get_settings().db
    key = str(Path(path).resolve())
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = Store(path)
            _STORES[key] = store
        return store
