"""The official VibeSearchBench task format (being built)."""

from __future__ import annotations

from typing import Any

from .loader import TaskProblem
from .models import Task


def official_to_task(record: dict[str, Any], file: str) -> tuple[Task | None, list[TaskProblem]]:
    return None, [TaskProblem(file, "", "the official format is not supported yet")]
