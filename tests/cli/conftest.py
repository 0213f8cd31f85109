"""Fixtures of the CLI tests (the helpers are in cli_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_harness import make_label_db


@pytest.fixture
def label_db(tmp_path: Path) -> Path:
    return make_label_db(tmp_path / "labels.db")
