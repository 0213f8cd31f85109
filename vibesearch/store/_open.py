"""Checks made before a database file is used: is it ours, is it whole, may we write it?

``check_db_file`` looks at an existing file without writing anything (its header, then SQLite's
``PRAGMA quick_check`` through a read-only connection): a file that is not an SQLite database, is
truncated or has damaged pages is refused before any schema or run is written into it. It also
says whether the file can be written; a read-only file is opened read-only by the commands that
only read (``read_only_connect``) and refused by the ones that write.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreOpenError(RuntimeError):
    """The database file cannot be used; the message names it and says why (one line)."""


class DamagedDatabase(StoreOpenError):
    pass


class ReadOnlyDatabase(StoreOpenError):
    pass


class DatabaseUnreachable(StoreOpenError):
    """A PostgreSQL server that does not answer (down, restarting, a wrong host or port): the
    message names the database (never its password) and the server's reason."""


def _ro_uri(path: Path, immutable: bool) -> str:
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro"
    return uri + "&immutable=1" if immutable else uri


def read_only_connect(path: str | Path) -> sqlite3.Connection:
    """A read-only connection. A WAL database in a folder we cannot write needs ``immutable`` (no
    shared-memory file can be made there); it is tried when the plain read-only open fails."""
    path = Path(path)
    try:
        conn = sqlite3.connect(_ro_uri(path, False), uri=True, check_same_thread=False, timeout=30)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        return sqlite3.connect(_ro_uri(path, True), uri=True, check_same_thread=False, timeout=30)


def writable(path: Path) -> bool:
    """Whether SQLite can write this file (and make its -wal/-shm files beside it)."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK)


def check_db_file(path: str | Path) -> bool:
    """Refuse a file that is not a whole vibesearch database; return whether it can be written.

    A missing or empty file is fine (the schema is made on first use)."""
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        folder = path.parent if str(path.parent) else Path(".")
        if folder.exists() and not os.access(folder, os.W_OK):
            raise ReadOnlyDatabase(f"{path}: cannot create the database: its folder is read-only") from None
        return True
    except OSError as exc:
        raise StoreOpenError(f"{path}: cannot open the database: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreOpenError(f"{path} is a folder, not a database file")
    if not stat.S_ISREG(info.st_mode):
        raise StoreOpenError(f"{path} is not a regular file, so it cannot be a vibesearch database")
    if info.st_size == 0:
        return writable(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StoreOpenError(f"{path}: cannot read the database: {exc.strerror or exc}") from None
    if not header.startswith(SQLITE_MAGIC):
        raise DamagedDatabase(f"{path} is not a vibesearch database / is damaged: it is not an SQLite file")
    if len(header) < 100:
        raise DamagedDatabase(f"{path} is not a vibesearch database / is damaged: the file is truncated ({info.st_size} bytes)")
    try:
        conn = read_only_connect(path)
        try:
            found = conn.execute("PRAGMA quick_check(1)").fetchone()
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise DamagedDatabase(f"{path} is not a vibesearch database / is damaged: {exc}") from None
    if not found or found[0] != "ok":
        detail = str(found[0]) if found else "no answer"
        raise DamagedDatabase(f"{path} is not a vibesearch database / is damaged: {' '.join(detail.replace('*** in database main ***', '').split())[:200]}")
    if tables and not {"meta", "runs", "events"} <= tables:
        raise DamagedDatabase(f"{path} is not a vibesearch database: an SQLite file without vibesearch's tables")
    return writable(path)
