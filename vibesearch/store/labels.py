"""The label methods of ``Store``: people's decisions on a run's triples, both sides.

Coverage labels (``labels``: one per ground-truth triple and annotator) and validity labels
(``pred_labels``: one per predicted triple and annotator). Mixed into ``Store`` (``store.db``);
callers use them as ``store.put_label(...)``, ``store.labels(...)`` and so on.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import json
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from ..run.events import utcnow
from .tables import LabelRow, PredLabelRow


class LabelsMixin:
    """Needs the ``Store``'s ``engine``, ``_lock`` and ``read_only``."""

    engine: Engine
    _lock: AbstractContextManager[Any]
    read_only: bool

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
                _upsert(s, LabelRow, "gt_index", "covered", item)
            for item in validity:
                _upsert(s, PredLabelRow, "pred_index", "valid", item)
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

    def labels(self, run_id: str | None = None, annotator: str | None = None) -> list[LabelRow]:
        with Session(self.engine) as s:
            q = select(LabelRow)
            if run_id is not None:
                q = q.where(LabelRow.run_id == run_id)
            if annotator is not None:
                q = q.where(LabelRow.annotator == annotator)
            return list(s.exec(q.order_by(col(LabelRow.run_id), col(LabelRow.gt_index), col(LabelRow.annotator))))


def _upsert(s: Session, table: type[LabelRow] | type[PredLabelRow], index: str, answer: str, item: dict[str, Any]) -> None:
    """Store one label (a later one with the same run, index and annotator replaces it)."""
    key = {"run_id": item["run_id"], index: item[index], "annotator": item["annotator"]}
    q = select(table).where(*(getattr(table, k) == v for k, v in key.items()))
    row = s.exec(q).first() or table(**key, **{answer: item[answer]})
    setattr(row, answer, item[answer])
    row.evidence_json = json.dumps(item.get("evidence") or [])
    row.note = item.get("note") or ""
    row.created_at = item.get("created_at") or utcnow()
    s.add(row)
    s.flush()  # the next item with the same key finds this row
