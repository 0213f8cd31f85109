"""Recognising a database that went away under a run, and saying so in one line.

When the server stops, restarts or drops the connection, whatever the run was about to write is
lost, but everything written before is stored and the run can be continued (``vibesearch run
--resume``, ``vibesearch resume``). Such an error is therefore not the run's failure: the session
records no fatal error for it, and the batch reports the run as interrupted.

``database_unreachable(exc)`` gives the driver's own first line ("connection refused", "server
closed the connection unexpectedly", ...) and None for every other error. SQLAlchemy's rendering
of the error is never used for it: that text carries the statement, its bound parameters and a
link to its documentation.
"""

from __future__ import annotations

import re

from .._secrets import scrub

# the errors a DB-API driver raises for a connection that failed or was lost
_DRIVER_ERRORS = frozenset({"OperationalError", "InterfaceError"})
_DRIVERS = frozenset({"psycopg", "psycopg2", "sqlite3"})
# where SQLAlchemy's own additions to a message begin
_SQLALCHEMY_TAILS = ("[SQL:", "[parameters:", "(Background on this error")
_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]+@")


def database_unreachable(exc: BaseException | None) -> str | None:
    """The driver's first line when ``exc`` (or what it wraps: a failed part's ``cause``, the
    exception it was raised from) says the database could not be used; None otherwise."""
    for _ in range(6):  # a few links of the chain are plenty
        if exc is None:
            return None
        line = _driver_line(exc)
        if line is not None:
            return line
        inner = getattr(exc, "cause", None)
        exc = inner if isinstance(inner, BaseException) else exc.__cause__
    return None


def _driver_line(exc: BaseException) -> str | None:
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, sa_exc.DBAPIError):
        if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError)) or exc.connection_invalidated:
            return _first_line(exc.orig if exc.orig is not None else exc)
        return None
    if isinstance(exc, (sa_exc.DisconnectionError, sa_exc.PendingRollbackError)):
        return _first_line(exc)
    for cls in type(exc).__mro__:  # the driver's own exception, raised outside SQLAlchemy
        if cls.__name__ in _DRIVER_ERRORS and cls.__module__.split(".")[0] in _DRIVERS:
            return _first_line(exc)
    return None


def _first_line(error: BaseException) -> str:
    text = str(error)
    for tail in _SQLALCHEMY_TAILS:
        text = text.split(tail, 1)[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else type(error).__name__
    if line.startswith("(") and ") " in line:  # "(psycopg.OperationalError) …": the class is no news
        line = line.split(") ", 1)[1]
    line = _URL_PASSWORD.sub(r"\1***@", scrub(line))
    return line if len(line) <= 300 else line[:300] + "…"
