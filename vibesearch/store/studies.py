"""The study methods of ``Store``: studies for outside players and the one-time codes of their
links. Persistence only; what a study is and how a play goes live in ``vibesearch.app._studies``.
Mixed into ``Store`` (``store.db``).

A code is stored only as its sha256 (``code_digest``): a copy of the database opens no study.
Using a code (``claim_study_code``) is one UPDATE that succeeds for the first caller only, on
SQLite and PostgreSQL alike, so a code works once even when two browsers send it at once.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import hashlib
import time
from typing import Any, Sequence

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ._write import retrying, write_statement
from .tables import StudyCodeRow, StudyRow


class StudyExists(ValueError):
    """A study of that name is stored already."""


def code_digest(code: str) -> str:
    """What the database keeps of a study code (hex sha256)."""
    return hashlib.sha256(code.encode()).hexdigest()


class StudiesMixin:
    """Needs the ``Store``'s ``engine`` and ``_lock``."""

    engine: Engine
    _lock: AbstractContextManager[Any]

    def add_study(self, study: StudyRow, codes: Sequence[tuple[str, int, str]]) -> StudyRow:
        """Store a study and its codes (code, slot, task id) in one transaction."""
        now = time.time()

        def attempt() -> StudyRow:
            with self._lock, Session(self.engine) as s:
                s.add(study)
                s.flush()
                for code, slot, task_id in codes:
                    s.add(StudyCodeRow(code_sha256=code_digest(code), study_id=study.id, slot=slot, task_id=task_id, created_at=now))
                s.commit()
                s.refresh(study)
                return study

        try:
            return retrying(attempt, what=f"storing study {study.name!r}")
        except IntegrityError:
            raise StudyExists(f"a study named {study.name!r} exists already") from None

    def studies(self) -> list[StudyRow]:
        with Session(self.engine) as s:
            return list(s.exec(select(StudyRow).order_by(col(StudyRow.created_at))))

    def study(self, study_id: str) -> StudyRow | None:
        with Session(self.engine) as s:
            return s.get(StudyRow, study_id)

    def study_codes(self, study_id: str) -> list[StudyCodeRow]:
        with Session(self.engine) as s:
            q = select(StudyCodeRow).where(StudyCodeRow.study_id == study_id).order_by(col(StudyCodeRow.slot))
            return list(s.exec(q))

    def claim_study_code(self, study_id: str, code: str, player_prefix: str) -> StudyCodeRow | None:
        """Use a code of this study, once: the play it opens, its player now named
        ``player_prefix`` + its slot; None when the code is not one of this study's or was used."""
        digest = code_digest(code)
        changed = write_statement(
            self.engine, self._lock,
            "UPDATE study_codes SET used_at = :now, player = :prefix || CAST(slot AS TEXT) "
            "WHERE code_sha256 = :d AND study_id = :sid AND used_at IS NULL",
            {"now": time.time(), "prefix": player_prefix, "d": digest, "sid": study_id},
        )
        if not changed:
            return None
        with Session(self.engine) as s:
            return s.get(StudyCodeRow, digest)

    def study_play_of(self, player: str) -> StudyCodeRow | None:
        """The play a player login was made for (None: not a player)."""
        with Session(self.engine) as s:
            return s.exec(select(StudyCodeRow).where(StudyCodeRow.player == player)).first()

    def set_study_run(self, player: str, run_id: str) -> bool:
        """Record the run of a play; only the first run counts (False when it had one)."""
        return bool(write_statement(
            self.engine, self._lock,
            "UPDATE study_codes SET run_id = :r WHERE player = :p AND run_id IS NULL", {"r": run_id, "p": player},
        ))
