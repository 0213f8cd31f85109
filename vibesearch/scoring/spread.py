"""The intervals and spread of the score table (``aggregate.score_table``'s rows).

* ``avg_<m>_ci`` / ``best_<m>_ci``: 95% percentile-bootstrap intervals of Avg@N and Best@N, the
  tasks resampled with replacement (``_bootstrap``'s resample count and fixed seed, so a report is
  reproducible);
* ``sd_<m>``: the spread of a metric across a task's samples, pooled over tasks (the square root
  of the mean per-task variance, n − 1 denominator, over the tasks with at least two samples; None
  when none has two).
"""

from __future__ import annotations

from statistics import mean
from typing import Any, Iterable

from .bootstrap import LEVEL, RESAMPLES, SEED, bootstrap_mean


def interval_settings() -> dict[str, Any]:
    """How the score rows' intervals are made (for a report's reader to reproduce them)."""
    return {"method": "percentile bootstrap, tasks resampled with replacement", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL}


def pooled_sd(per_task: Iterable[list[float]]) -> float | None:
    """The spread of a metric across a task's samples, pooled over tasks: the square root of the
    mean of the per-task variances (n − 1 denominator) over tasks with at least two samples."""
    variances = []
    for values in per_task:
        if len(values) >= 2:
            m = mean(values)
            variances.append(sum((v - m) ** 2 for v in values) / (len(values) - 1))
    return mean(variances) ** 0.5 if variances else None


def spread_keys(m: str, per_task_avg: list[float], per_task_best: list[float], per_task_samples: list[list[float]]) -> dict[str, Any]:
    """``avg_<m>_ci`` / ``best_<m>_ci`` (bootstrap over tasks) and ``sd_<m>`` of one metric."""
    return {f"avg_{m}_ci": bootstrap_mean(per_task_avg), f"best_{m}_ci": bootstrap_mean(per_task_best),
            f"sd_{m}": pooled_sd(per_task_samples)}


def sample_spread(m: str, samples: list[list[float]]) -> dict[str, Any]:
    """``spread_keys`` of one metric from each task's samples (tasks in a fixed order): Avg@N per
    task is the samples' mean, Best@N their maximum (our profile's rules)."""
    return spread_keys(m, [mean(v) for v in samples], [max(v) for v in samples], samples)
