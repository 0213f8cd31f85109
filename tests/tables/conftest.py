"""Fixtures of the table-task tests (helpers live in _table_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _table_fixtures import make_widesearch_dir, planets_task

from vibesearch.tables import TableTask


@pytest.fixture
def planets() -> TableTask:
    return planets_task()


@pytest.fixture
def widesearch_dir(tmp_path: Path) -> Path:
    return make_widesearch_dir(tmp_path)
