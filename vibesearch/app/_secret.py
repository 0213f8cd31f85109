"""The secret under which this server signs its owner tokens (``_access``).

``VIBESEARCH_SECRET_KEY`` when it is set (the servers of one database share it). Unset, the
secret is made once and kept in a file beside the database (``<db>.secret``, mode 600), so a
restarted server still honours the tokens it issued: a person continues their own run after a
restart. For a PostgreSQL database (no file of its own) the file is kept in the user's state
folder, named after the database (its address without the password). The secret never goes into
the database, a log or a message; only the file's path is named.

A folder the server may not write (a read-only demo) gets a secret of this process alone, and a
warning that tokens will not outlive it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import stat
import time
from pathlib import Path

from ..config import Settings
from ..store import db_target

log = logging.getLogger(__name__)
SECRET_BYTES = 32


def secret_file(db: str | Path) -> Path:
    """Where the generated secret of the database ``db`` is kept."""
    target = db_target(db)
    if target.path is not None and str(target.path) != ":memory:":
        return target.path.with_name(target.path.name + ".secret")
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "vibesearch"
    return state / ("db-" + hashlib.sha256(target.shown.encode()).hexdigest()[:16] + ".secret")


def server_secret(settings: Settings) -> bytes:
    """The bytes the owner tokens are signed with (see the module's docstring)."""
    key = settings.secret_key.get_secret_value() if settings.secret_key is not None else ""
    if key:
        return hashlib.sha256(b"vibesearch owner tokens\0" + key.encode()).digest()
    if str(settings.db) == ":memory:":
        return secrets.token_bytes(SECRET_BYTES)
    path = secret_file(settings.db)
    try:
        return _kept(path)
    except OSError as exc:
        log.warning(
            "cannot keep this server's secret in %s (%s): people's runs cannot be continued after a restart; "
            "set VIBESEARCH_SECRET_KEY to keep them", path, exc.strerror or type(exc).__name__,
        )
        return secrets.token_bytes(SECRET_BYTES)


def _kept(path: Path) -> bytes:
    """The secret in ``path``, made there first if there is none (two servers starting at once
    agree: the file is created exclusively, and the loser reads the winner's)."""
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    made = secrets.token_hex(SECRET_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(made + "\n")
    return bytes.fromhex(made)


def _read(path: Path) -> bytes:
    for _ in range(40):  # a file another server has just made may not be written yet
        with open(path, encoding="ascii") as f:
            if stat.S_IMODE(os.fstat(f.fileno()).st_mode) & 0o077:
                os.chmod(path, 0o600)  # a copy that lost its mode: only this user reads it again
            text = f.read().strip()
        if text:
            break
        time.sleep(0.05)
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) < 16:
        raise OSError(0, f"{path.name} does not hold a secret (delete it to make a new one)")
    return value
