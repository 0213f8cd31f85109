"""Where the database is: a plain SQLite path, an ``sqlite:///path`` URL or a PostgreSQL URL
(``postgresql+psycopg://user@host:port/db``), as ``VIBESEARCH_DB`` / ``--db`` give it.

A URL that went through ``pathlib.Path`` lost one of its two slashes (the ``--db`` options are
text, but a caller may pass a ``Path``); ``db_target`` puts a PostgreSQL URL's back. ``sqlite:///x``
is the relative file x and ``sqlite:////x`` the absolute /x, as in SQLAlchemy.
"""

from __future__ import annotations

import errno
import re
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

_PG = re.compile(r"^(postgres(?:ql)?(?:\+\w+)?):/+(.*)$", re.IGNORECASE)
_SQLITE = re.compile(r"^sqlite(?:\+\w+)?:(/*)(.*)$", re.IGNORECASE)
_OTHER_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://")


@dataclass(frozen=True)
class DbTarget:
    """``url``: the SQLAlchemy URL; ``path``: the SQLite file (None for PostgreSQL);
    ``shown``: what messages name (the password hidden)."""

    url: str
    path: Path | None
    shown: str

    @property
    def is_sqlite(self) -> bool:
        return self.path is not None

    @property
    def key(self) -> str:
        """One key per database (the process keeps one Store per key)."""
        if self.path is None:
            return self.url
        return self.url if str(self.path) == ":memory:" else str(self.path.resolve())


def is_url(value: str | Path) -> bool:
    return bool(_PG.match(str(value)) or _SQLITE.match(str(value)))


def db_target(value: str | Path) -> DbTarget:
    text = str(value).strip()
    pg = _PG.match(text)
    if pg:
        scheme = pg.group(1).lower()
        if scheme in ("postgres", "postgresql"):
            scheme = "postgresql+psycopg"  # the driver vibesearch installs
        url = f"{scheme}://{pg.group(2)}"
        try:
            parsed = make_url(url)
            shown = parsed.render_as_string(hide_password=True)
        except Exception:  # noqa: BLE001 - a malformed URL is named as given
            raise ValueError(f"{text}: not a database URL vibesearch understands") from None
        from ._open import StoreOpenError

        try:  # a driver SQLAlchemy has no plugin for, or one not installed, is one line here
            parsed.get_dialect().import_dbapi()
        except Exception:  # noqa: BLE001 - NoSuchModuleError, ImportError
            raise StoreOpenError(f"{shown}: no PostgreSQL driver {parsed.drivername!r} here (use postgresql+psycopg://)") from None
        return DbTarget(url=url, path=None, shown=shown)
    lite = _SQLITE.match(text)
    if lite:
        slashes, rest = lite.groups()
        # sqlite:///rel.db → rel.db, sqlite:////abs.db → /abs.db; a Path-mangled "sqlite:/x" → /x
        raw = rest if len(slashes) == 3 else ("/" + rest if len(slashes) in (1, 4) else rest)
        path = Path(raw or ":memory:")
    elif _OTHER_URL.match(text):  # mysql://…, http://…: never a file of that name in a folder called "mysql:"
        from ._open import StoreOpenError

        scheme = text.split(":", 1)[0]
        raise StoreOpenError(f"{scheme}://…: not a database vibesearch can use (an SQLite file, sqlite:///path, or a postgresql:// URL)")
    else:
        path = Path(text)
    _refuse_link_loop(path)
    return DbTarget(url=f"sqlite:///{path}", path=path, shown=str(path))


def _refuse_link_loop(path: Path) -> None:
    """A path whose symbolic links lead round in a circle names no file: one line, not the
    ``RuntimeError`` pathlib raises when it is resolved."""
    if str(path) == ":memory:":
        return
    if path.is_symlink() and not path.exists() and not path.parent.joinpath(path.readlink()).is_symlink():
        from ._open import StoreOpenError  # (a link to a missing file: SQLite cannot make the file through it)

        raise StoreOpenError(f"{path}: not a database file (a symbolic link to {path.readlink()}, which does not exist)")
    try:
        path.resolve()
    except (RuntimeError, OSError) as exc:
        from ._open import StoreOpenError

        reason = "its symbolic links loop" if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP else str(exc)
        raise StoreOpenError(f"{path}: not a database file ({reason})") from None
