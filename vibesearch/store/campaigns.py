"""The campaign methods of ``Store``: labelling campaigns and the adjudications that settle
disagreements. Persistence only; the queue, progress and the rules of adjudication live in
``vibesearch.labels.campaigns``. Mixed into ``Store`` (``store.db``).

An item has one adjudication at a time. Settling it again replaces that row, and the row it
replaces is kept in ``adjudication_history`` (with when it was replaced and by whom), written in
the same transaction as the replacement, so either both are stored or neither is.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from typing import Any, Sequence

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from ..run.events import utcnow
from ._write import is_collision, retrying
from .tables import AdjudicationHistoryRow, AdjudicationRow, CampaignRow

# what a new adjudication sets on the stored one (the item's key stays)
_ADJUDICATION_FIELDS = ("label", "adjudicator", "comment", "campaign", "created_at")


class CampaignExists(ValueError):
    """A campaign of that name is already stored."""


class CampaignsMixin:
    """Needs the ``Store``'s ``engine``, ``_lock`` and ``read_only``."""

    engine: Engine
    _lock: AbstractContextManager[Any]
    read_only: bool

    def add_campaign(self, row: CampaignRow) -> CampaignRow:
        """Store a new campaign; ``CampaignExists`` when its name is taken."""
        with self._lock, Session(self.engine) as s:
            s.add(row)
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise CampaignExists(f"a campaign named {row.name!r} already exists") from None
            s.refresh(row)
            return row

    def campaign(self, name: str) -> CampaignRow | None:
        with Session(self.engine) as s:
            try:
                return s.exec(select(CampaignRow).where(CampaignRow.name == name)).first()
            except OperationalError as exc:  # a read-only file written before campaigns existed
                if self.read_only and "no such table" in str(exc):
                    return None
                raise

    def campaigns(self) -> list[CampaignRow]:
        with Session(self.engine) as s:
            try:
                return list(s.exec(select(CampaignRow).order_by(col(CampaignRow.name))))
            except OperationalError as exc:
                if self.read_only and "no such table" in str(exc):
                    return []
                raise

    def put_adjudication(self, row: AdjudicationRow) -> AdjudicationRow:
        """Insert the adjudication of (run, side, item), or replace the stored one; returns the
        stored row (a new object: ``row`` itself is only read).

        A replaced adjudication goes to ``adjudication_history`` as it was, with ``replaced_at``
        and ``replaced_by`` (the new adjudicator), in the replacement's own transaction: when any
        part fails (a value the table refuses, a lost connection) neither is stored. The stored
        row is read under the write lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT …
        FOR UPDATE``), so of two people settling an item at once the later one's history holds
        the earlier one's adjudication. When two first adjudications of an item race, the one
        that loses finds the winner's row on its next try and replaces it."""
        key = (row.run_id, row.side, row.item_index)
        values = {name: getattr(row, name) for name in _ADJUDICATION_FIELDS}

        def attempt() -> AdjudicationRow:
            with self._lock, Session(self.engine) as s:
                sqlite = self.engine.dialect.name == "sqlite"
                if sqlite:
                    s.connection().exec_driver_sql("BEGIN IMMEDIATE")
                q = select(AdjudicationRow).where(
                    AdjudicationRow.run_id == key[0], AdjudicationRow.side == key[1], AdjudicationRow.item_index == key[2]
                )
                if not sqlite:
                    q = q.with_for_update()
                old = s.exec(q).first()
                if old is None:
                    stored = AdjudicationRow(run_id=key[0], side=key[1], item_index=key[2], **values)
                else:
                    s.add(AdjudicationHistoryRow(
                        run_id=old.run_id, side=old.side, item_index=old.item_index, label=old.label,
                        adjudicator=old.adjudicator, comment=old.comment, campaign=old.campaign, created_at=old.created_at,
                        replaced_at=utcnow(), replaced_by=values["adjudicator"],
                    ))
                    for name, value in values.items():
                        setattr(old, name, value)
                    stored = old
                s.add(stored)
                s.commit()
                s.refresh(stored)
                return stored

        what = f"adjudicating {key[1]} #{key[2] + 1} of run {key[0]}"
        try:
            return retrying(attempt, what=what)
        except IntegrityError as exc:
            if not is_collision(exc):  # only an insert can collide: another first adjudication won
                raise
        return retrying(attempt, what=what)

    def adjudications(self, run_ids: Sequence[str] | None = None) -> list[AdjudicationRow]:
        """Adjudications (of these runs), ordered by run, side and item."""
        with Session(self.engine) as s:
            q = select(AdjudicationRow)
            if run_ids is not None:
                q = q.where(col(AdjudicationRow.run_id).in_(list(run_ids)))
            order = (col(AdjudicationRow.run_id), col(AdjudicationRow.side), col(AdjudicationRow.item_index))
            try:
                return list(s.exec(q.order_by(*order)))
            except OperationalError as exc:
                if self.read_only and "no such table" in str(exc):
                    return []
                raise

    def adjudication_history(self, run_id: str, side: str, item_index: int) -> list[AdjudicationHistoryRow]:
        """The adjudications of one item that were replaced, oldest first (the current one is
        ``adjudications``)."""
        q = select(AdjudicationHistoryRow).where(
            AdjudicationHistoryRow.run_id == run_id, AdjudicationHistoryRow.side == side,
            AdjudicationHistoryRow.item_index == item_index,
        )
        return self._history(q.order_by(col(AdjudicationHistoryRow.id)))

    def adjudication_histories(self, run_ids: Sequence[str] | None = None) -> list[AdjudicationHistoryRow]:
        """The replaced adjudications (of these runs), by run, side and item, each item's oldest first."""
        q = select(AdjudicationHistoryRow)
        if run_ids is not None:
            q = q.where(col(AdjudicationHistoryRow.run_id).in_(list(run_ids)))
        order = (col(AdjudicationHistoryRow.run_id), col(AdjudicationHistoryRow.side),
                 col(AdjudicationHistoryRow.item_index), col(AdjudicationHistoryRow.id))
        return self._history(q.order_by(*order))

    def _history(self, q: SelectOfScalar[AdjudicationHistoryRow]) -> list[AdjudicationHistoryRow]:
        with Session(self.engine) as s:
            try:
                return list(s.exec(q))
            except OperationalError as exc:  # a read-only file from before the history existed
                if self.read_only and "no such table" in str(exc):
                    return []
                raise
