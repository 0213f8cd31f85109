"""A small hand-written task used by the user tests (the bundled tasks are used where they fit)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vibesearch.tasks.models import Task

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _tea_task import TASK  # noqa: E402


@pytest.fixture
def tea_task() -> Task:
    return Task.model_validate(TASK)
