"""How a CLI command reports while it runs: warnings as one line each (``plain_logs``) and a
database that cannot be reached as one error line (``database_errors``)."""

from __future__ import annotations

import logging
import os
import sys
from contextlib import contextmanager
from typing import Iterator

from ._common import fail, printable


@contextmanager
def database_errors(doing: str) -> Iterator[None]:
    """A database that could not be reached ends the command with one line (the driver's words,
    never the statement); any other error goes on."""
    from ..session import database_unreachable

    try:
        yield
    except Exception as exc:  # noqa: BLE001 - only the database's own errors are turned into a line
        why = database_unreachable(exc)
        if why is None:
            raise
        fail(f"the database could not be reached ({why}): {doing}")


class _OneLineLogs(logging.Formatter):
    """A log record as one line: its level and the first line of its message, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        from .._secrets import scrub

        lines = [line for line in record.getMessage().splitlines() if line.strip()] or [""]
        return printable(scrub(f"{record.levelname.lower()}: {lines[0]}"))


@contextmanager
def plain_logs() -> Iterator[None]:
    """While a command runs, warnings from vibesearch or a library (SQLAlchemy's pool, asyncio)
    are one line each on stderr instead of Python's default of a traceback. Left alone when the
    caller configured logging. ``VIBESEARCH_DEBUG=1``: vibesearch's own records from DEBUG up,
    tracebacks included."""
    root = logging.getLogger()
    if root.handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    ours = logging.getLogger("vibesearch")
    before = ours.level
    if os.environ.get("VIBESEARCH_DEBUG", "").strip().lower() in ("1", "true", "yes"):
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        ours.setLevel(logging.DEBUG)
    else:
        handler.setFormatter(_OneLineLogs())
        handler.setLevel(logging.WARNING)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        ours.setLevel(before)
