"""Which database engines a session test runs on.

``store`` and ``settings`` (tests/session/conftest.py) come from ``db_url`` (tests/conftest.py), so
every test that takes either runs twice: ``[sqlite]`` and ``[postgresql]``. A test that only makes
sense on an SQLite file says so with ``@sqlite_only("why")``; the reason is kept on the test as
the ``sqlite_only`` marker (``pytest -m sqlite_only --collect-only`` lists them)."""

from __future__ import annotations

from typing import Any, Callable

import pytest


def sqlite_only(reason: str) -> Callable[[Any], Any]:
    """Run the test on SQLite only: ``db_url``'s engines narrowed to ``sqlite``."""
    if not reason.strip():
        raise ValueError("say why the test is SQLite-only")

    def mark(test: Any) -> Any:
        test = pytest.mark.sqlite_only(reason=reason)(test)
        return pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)(test)

    return mark
