"""Fixtures of the vote tests (the helpers are in votes_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from votes_helpers import copy_to, make_template, runs_by_user


@pytest.fixture(scope="session")
def template_db(tmp_path_factory) -> Path:
    return make_template(tmp_path_factory.mktemp("votes") / "template.db")


@pytest.fixture
def voted_db(db_url: str, template_db: Path) -> tuple[str, dict[str, list[str]]]:
    """A copy of the template's runs on each engine, and its run ids by user kind."""
    copy_to(template_db, db_url)
    return db_url, runs_by_user(db_url)
