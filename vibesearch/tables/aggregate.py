"""Aggregating table scores over N runs per task (WideSearch's reporting).

For each task the N runs give: Avg@N (mean of the runs) of success, Row-F1 and Item-F1; Pass@N of
success (did any run succeed); Max@N (best run) of Row-F1 and Item-F1. The figures over a task set
are the means of these per-task figures, so every task weighs the same however often it ran.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from .models import TableScore


class TaskTableAggregate(BaseModel):
    task_id: str
    n_runs: int
    sr_avg: float
    sr_pass: float
    row_f1_avg: float
    row_f1_max: float
    item_f1_avg: float
    item_f1_max: float


class TableAggregate(BaseModel):
    n_tasks: int = 0
    n_runs: int = 0
    max_runs_per_task: int = 0
    sr_avg: float = 0.0  # Avg@N of success
    sr_pass: float = 0.0  # Pass@N of success
    row_f1_avg: float = 0.0
    row_f1_max: float = 0.0  # Max@N
    item_f1_avg: float = 0.0
    item_f1_max: float = 0.0
    row_precision_avg: float = 0.0
    row_recall_avg: float = 0.0
    item_precision_avg: float = 0.0
    item_recall_avg: float = 0.0
    per_task: list[TaskTableAggregate] = Field(default_factory=list)


def _group(scores: Mapping[str, Sequence[TableScore]] | Iterable[TableScore | tuple[str, TableScore]]) -> dict[str, list[TableScore]]:
    if isinstance(scores, Mapping):
        return {k: list(v) for k, v in scores.items() if len(v)}
    grouped: dict[str, list[TableScore]] = defaultdict(list)
    for item in scores:
        task_id, score = item if isinstance(item, tuple) else (item.task_id, item)
        grouped[task_id].append(score)
    return dict(grouped)


def aggregate_table_scores(
    scores: Mapping[str, Sequence[TableScore]] | Iterable[TableScore | tuple[str, TableScore]],
) -> TableAggregate:
    """Avg@N / Pass@N / Max@N over tasks. Accepts ``{task_id: [scores]}``, scores (grouped by
    their ``task_id``) or ``(task_id, score)`` pairs."""
    grouped = _group(scores)
    if not grouped:
        return TableAggregate()
    per_task = []
    for task_id, runs in sorted(grouped.items()):
        per_task.append(
            TaskTableAggregate(
                task_id=task_id,
                n_runs=len(runs),
                sr_avg=mean(1.0 if s.success else 0.0 for s in runs),
                sr_pass=1.0 if any(s.success for s in runs) else 0.0,
                row_f1_avg=mean(s.row_f1 for s in runs),
                row_f1_max=max(s.row_f1 for s in runs),
                item_f1_avg=mean(s.item_f1 for s in runs),
                item_f1_max=max(s.item_f1 for s in runs),
            )
        )
    all_runs = [s for runs in grouped.values() for s in runs]

    def over_tasks(attr: str) -> float:
        return mean(getattr(t, attr) for t in per_task)

    def per_task_mean(attr: str) -> float:
        return mean(mean(getattr(s, attr) for s in runs) for runs in grouped.values())

    return TableAggregate(
        n_tasks=len(per_task),
        n_runs=len(all_runs),
        max_runs_per_task=max(t.n_runs for t in per_task),
        sr_avg=over_tasks("sr_avg"),
        sr_pass=over_tasks("sr_pass"),
        row_f1_avg=over_tasks("row_f1_avg"),
        row_f1_max=over_tasks("row_f1_max"),
        item_f1_avg=over_tasks("item_f1_avg"),
        item_f1_max=over_tasks("item_f1_max"),
        row_precision_avg=per_task_mean("row_precision"),
        row_recall_avg=per_task_mean("row_recall"),
        item_precision_avg=per_task_mean("item_precision"),
        item_recall_avg=per_task_mean("item_recall"),
        per_task=per_task,
    )
