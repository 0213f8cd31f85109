"""Fixtures for the task tests: the data folder, small valid tasks in both formats, the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parent / "data"
MALFORMED = DATA / "malformed"
VALID = DATA / "valid"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def ours_task() -> dict:
    """A small valid task of our own format, as a fresh dict."""
    return copy.deepcopy(json.loads((VALID / "mini-ours.json").read_text(encoding="utf-8")) | {"corpus": None})


@pytest.fixture
def official_record() -> dict:
    """A small valid official record, as a fresh dict."""
    return copy.deepcopy(json.loads((VALID / "mini_official.json").read_text(encoding="utf-8")))


@pytest.fixture
def cli():
    """Run ``vibesearch ...`` in-process; returns the click Result (stdout and stderr kept apart)."""
    from vibesearch.cli.main import app

    runner = CliRunner()

    def invoke(*args: str, env: dict | None = None):
        return runner.invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)

    return invoke

