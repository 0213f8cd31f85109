"""How a message names what it is about: an error on one line, a database without its password.

A top-level helper so that the CLI and the runner (which refuses a batch with one line the CLI
prints) say it the same way.
"""

from __future__ import annotations


def db_shown(value: object) -> str:
    """The database as messages name it: a path, or a URL with its password hidden."""
    from ._secrets import scrub
    from .store import db_target

    try:
        return db_target(str(value)).shown
    except ValueError:
        return scrub(str(value))


def one_line(error: BaseException | str) -> str:
    """An error message on one line: the first line, and how many more there were (for a task
    file with several problems ``vibesearch tasks validate`` lists them all)."""
    errors = getattr(error, "errors", None)
    if callable(errors) and hasattr(error, "title") and hasattr(error, "error_count"):
        # a pydantic ValidationError (a run's config built from options and settings ...): its
        # first line says only "1 validation error for RunConfig"; name the field and the rule,
        # never the value (it may be long, or a key)
        first = errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "value"
        more = error.error_count() - 1
        message = str(first["msg"]).removeprefix("Value error, ")
        return f"{error.title} {where}: {message}" + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
    lines = [line for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
    more = len(lines) - 1
    return lines[0] + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
