"""The vote methods of ``Store``: pairwise preference votes between two runs of one task
(``votes``). Persistence only; what a vote may be (the same task, not a run against itself, a
name in its one form, one vote per voter and pair in either order) is checked by
``vibesearch.labels.votes`` before anything is stored. Mixed into ``Store`` (``store.db``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Sequence

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from ._write import is_collision, retrying
from .tables import VoteCampaignRow, VoteRow


class VoteExists(ValueError):
    """The voter has a stored vote on that pair (the ``uq_vote`` constraint)."""


class VoteCampaignExists(ValueError):
    """A vote campaign of that name is already stored."""


class VotesMixin:
    """Needs the ``Store``'s ``engine``, ``_lock`` and ``read_only``."""

    engine: Engine
    _lock: AbstractContextManager[Any]
    read_only: bool

    def add_votes(self, rows: Sequence[VoteRow]) -> int:
        """Store every vote in one transaction (all or none); ``VoteExists`` when one repeats a
        stored vote (the same voter, run A and run B). Returns how many were stored."""
        values = [r.model_dump(exclude={"id"}) for r in rows]

        def attempt() -> int:
            with self._lock, Session(self.engine) as s:
                s.add_all([VoteRow(**v) for v in values])
                s.commit()
                return len(values)

        try:
            return retrying(attempt, what=f"storing {len(values)} votes")
        except IntegrityError as exc:
            if is_collision(exc):
                raise VoteExists("a voter already voted on one of these pairs") from None
            raise

    def votes(self, *, campaign: str | None = None, voter: str | None = None) -> list[VoteRow]:
        """The stored votes (of one campaign, of one voter), oldest first; [] on a read-only
        file written before votes existed."""
        q = select(VoteRow)
        if campaign is not None:
            q = q.where(VoteRow.campaign == campaign)
        if voter is not None:
            q = q.where(VoteRow.voter == voter)
        with Session(self.engine) as s:
            try:
                return list(s.exec(q.order_by(col(VoteRow.id))))
            except OperationalError as exc:
                if self.read_only and "no such table" in str(exc):
                    return []
                raise

    def add_vote_campaign(self, row: VoteCampaignRow) -> VoteCampaignRow:
        """Store a new vote campaign; ``VoteCampaignExists`` when its name is taken."""
        with self._lock, Session(self.engine) as s:
            s.add(row)
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise VoteCampaignExists(f"a vote campaign named {row.name!r} already exists") from None
            s.refresh(row)
            return row

    def vote_campaigns(self) -> list[VoteCampaignRow]:
        """Every vote campaign, by name; [] on a read-only file written before they existed."""
        with Session(self.engine) as s:
            try:
                return list(s.exec(select(VoteCampaignRow).order_by(col(VoteCampaignRow.name))))
            except OperationalError as exc:
                if self.read_only and "no such table" in str(exc):
                    return []
                raise

    def vote_campaign(self, name: str) -> VoteCampaignRow | None:
        return next((c for c in self.vote_campaigns() if c.name == name), None)
