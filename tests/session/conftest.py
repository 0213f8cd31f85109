"""Fixtures for the session tests: the deterministic fake models and a few helpers.

``store`` and ``settings`` share one database from ``db_url`` (tests/conftest.py): each test
that takes them runs on SQLite and on PostgreSQL (see ``_engines.sqlite_only`` for the exceptions)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _session_fakes  # noqa: E402

from vibesearch.config import Settings  # noqa: E402
from vibesearch.store import Store  # noqa: E402


@pytest.fixture
def store(db_url: str) -> Store:
    return Store(db_url)


@pytest.fixture
def settings(db_url: str) -> Settings:
    """Settings for tests: the test's database (either engine), fast retries, bundled tasks only."""
    return Settings(db=db_url, llm_backoff_s=0.01, llm_backoff_max_s=0.05, tasks="")


@pytest.fixture
def fakes(fake, monkeypatch):
    """fake/agent, fake/agent-quiet, fake/sim, fake/sim-greedy registered with litellm."""
    monkeypatch.delenv("VIBESEARCH_TEST_FAKE_FAIL", raising=False)
    monkeypatch.delenv("VIBESEARCH_TEST_FAKE_DELAY", raising=False)
    for name, handler in (
        ("agent", _session_fakes.agent_handler),
        ("agent-quiet", lambda r: _session_fakes.agent_handler(r, quiet=True)),
        ("sim", _session_fakes.sim_handler),
        ("sim-greedy", lambda r: _session_fakes.sim_handler(r, greedy=True)),
    ):
        fake.register(name, handler)
    return _session_fakes


@pytest.fixture
def persona_tasks(bundled_tasks):
    """The bundled persona tasks (a task of our own when none are bundled)."""
    tasks = [t for t in bundled_tasks if t.kind != "table"]
    if tasks:
        return tasks
    from vibesearch.tasks.models import Task

    sys.path.insert(0, str(HERE.parent / "users"))
    from _tea_task import TASK

    task = Task.model_validate(TASK)
    _session_fakes.EXTRA_TASKS.append(task)
    return [task]
