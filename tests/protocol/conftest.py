"""Fixtures of the official-profile session tests (helpers in ``_official_session``)."""

from __future__ import annotations

import pytest

from _official_session import TASK
from vibesearch.tasks.models import Task


@pytest.fixture
def task() -> Task:
    return Task.model_validate(TASK)


@pytest.fixture
def zh_task() -> Task:
    return Task.model_validate({**TASK, "id": "test-zh-tea", "language": "zh"})
