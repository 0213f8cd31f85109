"""The campaign methods of ``Store``: labelling campaigns and the adjudications that settle
disagreements. Persistence only; the queue, progress and the rules of adjudication live in
``vibesearch.scoring.campaigns``. Mixed into ``Store`` (``store.db``).
"""

from __future__ import annotations

import threading
from typing import Sequence

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from .tables import AdjudicationRow, CampaignRow


class CampaignExists(ValueError):
    """A campaign of that name is already stored."""


class CampaignsMixin:
    """Needs the ``Store``'s ``engine``, ``_lock`` and ``read_only``."""

    engine: Engine
    _lock: threading.RLock
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
        """Insert or replace the adjudication of (run, side, item)."""
        with self._lock, Session(self.engine) as s:
            q = select(AdjudicationRow).where(
                AdjudicationRow.run_id == row.run_id, AdjudicationRow.side == row.side, AdjudicationRow.item_index == row.item_index
            )
            old = s.exec(q).first()
            if old is not None:
                for name in ("label", "adjudicator", "comment", "campaign", "created_at"):
                    setattr(old, name, getattr(row, name))
                row = old
            s.add(row)
            s.commit()
            s.refresh(row)
            return row

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
