"""Many labels written at once: one transaction, a few statements whatever their number.

``Store.put_both_labels`` looks each label up and flushes it on its own (a round trip per row:
20,000 rows took 41 s). An import of a label file (``vibesearch labels import``, a meta-eval
folder) goes through ``put_labels_bulk`` instead, with the same meaning: every label is stored or
none is, and a label replaces the stored one with the same (run, index, annotator); when the
records themselves repeat a key the later one wins. In one attempt (``_write.retrying`` waits out
a busy database and tries the whole transaction again):

1. the keys already stored for the runs named are read (one ``SELECT`` per 500 runs);
2. the labels with a stored key are updated by row id, in one executemany ``UPDATE``;
3. the others are inserted in one executemany ``INSERT``.

Only SQLAlchemy Core on the store's engine: the same statements on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, bindparam, select
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from ..run.events import utcnow
from ._write import retrying
from .tables import LabelRow, PredLabelRow

if TYPE_CHECKING:
    from .db import Store

_RUNS_PER_SELECT = 500  # well under SQLite's limit of bound parameters in one statement

Key = tuple[str, int, str]


def put_labels_bulk(store: Store, coverage: list[dict[str, Any]], validity: list[dict[str, Any]] | None = None) -> tuple[int, int]:
    """Store coverage labels (``Store.put_labels`` dicts: ``run_id, gt_index, annotator, covered``
    and optionally ``evidence, note, created_at``) and validity labels (``Store.put_pred_labels``
    dicts: ``pred_index`` and ``valid`` instead) in one transaction. Returns how many of each were
    given, as ``Store.put_both_labels`` does."""
    validity = validity or []
    now = utcnow()
    cov = _last_of_each(coverage, "gt_index")
    val = _last_of_each(validity, "pred_index")

    def attempt() -> tuple[int, int]:
        with store._lock, store.engine.begin() as conn:
            _write(conn, _table(LabelRow), "gt_index", "covered", cov, now)
            _write(conn, _table(PredLabelRow), "pred_index", "valid", val, now)
        return len(coverage), len(validity)

    return retrying(attempt, what="label import")


def _table(model: type[LabelRow] | type[PredLabelRow]) -> Table:
    """The model's Core table."""
    return SQLModel.metadata.tables[str(model.__tablename__)]


def _last_of_each(items: list[dict[str, Any]], index: str) -> dict[Key, dict[str, Any]]:
    """The records by key, a later one replacing an earlier one (in the order first seen)."""
    out: dict[Key, dict[str, Any]] = {}
    for item in items:
        out[(item["run_id"], int(item[index]), item["annotator"])] = item
    return out


def _write(conn: Connection, table: Table, index: str, answer: str, items: dict[Key, dict[str, Any]], now: datetime) -> None:
    if not items:
        return
    runs = sorted({key[0] for key in items})
    stored: dict[Key, int] = {}
    for start in range(0, len(runs), _RUNS_PER_SELECT):
        chunk = runs[start : start + _RUNS_PER_SELECT]
        query = select(table.c.id, table.c.run_id, table.c[index], table.c.annotator).where(table.c.run_id.in_(chunk))
        for row_id, run_id, position, annotator in conn.execute(query):
            stored[(run_id, position, annotator)] = row_id
    updates: list[dict[str, Any]] = []
    inserts: list[dict[str, Any]] = []
    for key, item in items.items():
        values = {
            answer: bool(item[answer]),
            "evidence_json": json.dumps(item.get("evidence") or []),
            "note": item.get("note") or "",
            "created_at": item.get("created_at") or now,
        }
        if key in stored:
            updates.append({"row_id": stored[key], **values})
        else:
            inserts.append({"run_id": key[0], index: key[1], "annotator": key[2], **values})
    if updates:  # the SET clause is the values' columns; the row is picked by its id
        conn.execute(table.update().where(table.c.id == bindparam("row_id")), updates)
    if inserts:
        conn.execute(table.insert(), inserts)
