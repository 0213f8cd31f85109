"""The login methods of ``Store``: the app's logins (``VIBESEARCH_AUTH``), shared by the app
servers of one database so a person logged in on one is known to all. Mixed into ``Store``
(``store.db``).

A login is the random token the browser holds as a cookie and the name it was given to. The
database keeps only the token's sha256 (``login_digest``): a copy of the database logs no one in.
Every login expires (``ttl_s`` when it is made); an expired row counts for nothing and is deleted
by the next login made (``put_login``) or by ``purge_expired_logins``. Each write is one SQL
statement, atomic on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Mapping

from sqlalchemy import text
from sqlalchemy.engine import Engine

from ._write import write_statement

_COLUMNS = "token_sha256, username, created_at, expires_at"


def login_digest(token: str) -> str:
    """What the database keeps of a login token (hex sha256)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class StoredLogin:
    token_sha256: str
    username: str
    created_at: float
    expires_at: float


class LoginsMixin:
    """Needs the ``Store``'s ``engine`` and ``_lock``."""

    engine: Engine
    _lock: AbstractContextManager[Any]

    def _logins_write(self, sql: str, params: dict[str, object]) -> int:
        return int(write_statement(self.engine, self._lock, sql, params) or 0)

    def _logins_read(self, where: str, params: Mapping[str, object]) -> list[StoredLogin]:
        params = {**params, "now": time.time()}
        with self.engine.connect() as conn:
            rows = conn.execute(text(f"SELECT {_COLUMNS} FROM logins WHERE expires_at > :now AND {where}"), params)
            return [StoredLogin(*row) for row in rows]

    def put_login(self, token: str, username: str, ttl_s: float) -> StoredLogin:
        """Record a login (its token's digest) for ``ttl_s`` seconds; drops the expired ones."""
        if not token or ttl_s <= 0:
            raise ValueError("a login needs a token and a positive lifetime")
        now = time.time()
        row = StoredLogin(login_digest(token), username, now, now + ttl_s)
        self.purge_expired_logins()
        self._logins_write(
            "INSERT INTO logins (token_sha256, username, created_at, expires_at) VALUES (:d, :u, :c, :e) "
            "ON CONFLICT(token_sha256) DO UPDATE SET username = excluded.username, "
            "created_at = excluded.created_at, expires_at = excluded.expires_at",
            {"d": row.token_sha256, "u": username, "c": row.created_at, "e": row.expires_at},
        )
        return row

    def login_user(self, token: str) -> str | None:
        """The login name of a token, if it is a login that has not expired."""
        got = self._logins_read("token_sha256 = :d", {"d": login_digest(token)})
        return got[0].username if got else None

    def logins(self, username: str | None = None) -> list[StoredLogin]:
        """The logins that have not expired (of one person, or everyone's), oldest first."""
        where, params = ("username = :u", {"u": username}) if username is not None else ("1 = 1", {})
        return sorted(self._logins_read(where, params), key=lambda r: (r.created_at, r.token_sha256))

    def delete_login(self, token: str) -> bool:
        """End one login (by its token); False when there was none."""
        return self.delete_login_digest(login_digest(token))

    def delete_login_digest(self, token_sha256: str) -> bool:
        """End one login by its stored digest (a ``StoredLogin`` read back); False when there was none."""
        return self._logins_write("DELETE FROM logins WHERE token_sha256 = :d", {"d": token_sha256}) > 0

    def delete_logins_of(self, username: str) -> int:
        """End every login of one person (logged out everywhere); how many there were."""
        return self._logins_write("DELETE FROM logins WHERE username = :u", {"u": username})

    def purge_expired_logins(self) -> int:
        """Delete the logins past their expiry; how many."""
        return self._logins_write("DELETE FROM logins WHERE expires_at <= :now", {"now": time.time()})


@dataclass(frozen=True)
class LoginThrottle:
    """How failed logins slow a key down: ``free`` failures cost nothing, then each further one
    locks the key for ``base_s`` doubling per failure up to ``max_s``; a key quiet for ``max_s``
    starts again from nothing."""

    free: int = 5
    base_s: float = 2.0
    max_s: float = 900.0

    def lock_for(self, failures: int) -> float:
        if failures <= self.free:
            return 0.0
        return min(self.max_s, self.base_s * 2.0 ** min(failures - self.free - 1, 40))


class LoginFailuresMixin:
    """Failed logins per key (``login:<name>``, ``addr:<address>``) in ``login_failures``, the
    same for every app server of the database. Needs the ``Store``'s ``engine`` and ``_lock``."""

    engine: Engine
    _lock: AbstractContextManager[Any]

    def login_locked_until(self, keys: list[str]) -> float:
        """The latest time any of ``keys`` is refused until (0.0: none is)."""
        if not keys:
            return 0.0
        names = {f"k{i}": k for i, k in enumerate(keys)}
        with self.engine.connect() as conn:
            row = conn.execute(
                text(f"SELECT MAX(locked_until) FROM login_failures WHERE key IN ({', '.join(':' + n for n in names)})"), names
            ).fetchone()
        return float(row[0] or 0.0) if row else 0.0

    def record_login_failure(self, keys: list[str], policy: LoginThrottle) -> float:
        """Count one failure under each key (one statement each, so failures on two servers at
        once both count); returns until when the most locked of them is refused. A key quiet for
        longer than ``policy.max_s`` starts again from one."""
        until = 0.0
        for key in keys:
            now = time.time()
            rows = write_statement(
                self.engine, self._lock,
                "INSERT INTO login_failures (key, failures, last_at, locked_until) VALUES (:k, 1, :t, 0) "
                "ON CONFLICT(key) DO UPDATE SET failures = CASE WHEN :t - login_failures.last_at > :quiet THEN 1 "
                "ELSE login_failures.failures + 1 END, last_at = :t RETURNING failures",
                {"k": key, "t": now, "quiet": policy.max_s},
            )
            failures = int(rows[0][0])
            lock_s = policy.lock_for(failures)
            if lock_s:
                write_statement(self.engine, self._lock,
                                "UPDATE login_failures SET locked_until = :u WHERE key = :k AND locked_until < :u",
                                {"k": key, "u": now + lock_s})
                until = max(until, now + lock_s)
        return until

    def clear_login_failures(self, keys: list[str]) -> None:
        """Forget the failures of ``keys`` (a successful login), and every key long quiet."""
        for key in keys:
            write_statement(self.engine, self._lock, "DELETE FROM login_failures WHERE key = :k", {"k": key})
        write_statement(self.engine, self._lock, "DELETE FROM login_failures WHERE last_at < :old AND locked_until < :now",
                        {"old": time.time() - 86_400.0, "now": time.time()})
