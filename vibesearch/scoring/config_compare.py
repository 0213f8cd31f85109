"""Is configuration B better than A? Per-task F1 differences, a paired bootstrap interval, and the
noise floor of each configuration (``vibesearch compare --a key=value … --b key=value …``).

* A configuration is the finished persona runs whose fields match (``CONFIG_KEYS``); each run's
  F1 is its newest score (of ``judge`` when given).
* The difference is taken per task (each side's runs averaged first) on the tasks both played,
  and its interval resamples the tasks (``_bootstrap.bootstrap_mean``).
* The **noise floor** of a configuration with two or more runs of a task: the pooled within-task
  standard deviation of F1, and the part of it left when the user is fixed — runs of one task whose
  user cannot vary (the rule-based, direct or staged user) or that share a simulator seed — so the
  rest is what the simulator's sampling adds.
* A difference whose interval contains 0 lies inside the noise: it is reported as such, not ranked.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from ..store import Store
from ..store.tables import Run
from ._bootstrap import bootstrap_mean, bootstrap_settings

CONFIG_KEYS = ("agent", "agent_model", "user", "simulator_model", "search_backend", "batch_id", "protocol", "task")
FIXED_USERS = ("rules", "direct", "staged")  # users that answer the same state the same way


class ConfigCompareError(ValueError):
    """A comparison that cannot be made (the message says why, in one line)."""


def _field(run: Run, key: str) -> str:
    if key == "protocol":
        config = run.run_config()
        return config.protocol if config is not None else "vibesearch"
    if key == "task":
        return run.task_id
    value = getattr(run, key)
    return "" if value is None else str(value)


def matching_runs(store: Store, spec: dict[str, str]) -> list[Run]:
    unknown = sorted(set(spec) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigCompareError(f"unknown key {unknown[0]!r} (one of {', '.join(CONFIG_KEYS)})")
    return [
        r for r in store.list_runs(status="finished")
        if r.kind == "persona" and r.source == "live" and all(_field(r, k) == v for k, v in spec.items())
    ]


def _f1(store: Store, run_id: str, judge: str | None) -> float | None:
    rows = [s for s in store.scores(run_id) if judge is None or s.judge == judge]
    return max(rows, key=lambda s: (s.created_at, s.id or 0)).f1 if rows else None


def _seed(run: Run) -> int | None:
    config = run.run_config()
    return config.seed if config is not None else None


def _pooled_sd(groups: list[list[float]]) -> float | None:
    """The pooled within-group standard deviation over groups of two or more values."""
    squares = dof = 0.0
    for values in groups:
        if len(values) >= 2:
            mean = statistics.fmean(values)
            squares += sum((v - mean) ** 2 for v in values)
            dof += len(values) - 1
    return math.sqrt(squares / dof) if dof else None


def noise_floor(store: Store, runs: list[Run], judge: str | None) -> dict[str, Any]:
    by_task: dict[str, list[float]] = defaultdict(list)
    fixed: dict[tuple[str, str, str, int | None], list[float]] = defaultdict(list)
    for run in runs:
        f1 = _f1(store, run.id, judge)
        if f1 is None:
            continue
        by_task[run.task_id].append(f1)
        seed = _seed(run)
        if run.user in FIXED_USERS or seed is not None:
            fixed[(run.task_id, run.user, run.simulator_model or "", seed if run.user not in FIXED_USERS else None)].append(f1)
    total = _pooled_sd(list(by_task.values()))
    agent_only = _pooled_sd(list(fixed.values()))
    return {
        "tasks_with_repeats": sum(1 for v in by_task.values() if len(v) >= 2),
        "sd": total,
        "sd_user_fixed": agent_only,
        # the share of the variance the user adds (None when either part is unknown or no spread)
        "user_share": (max(0.0, 1 - (agent_only**2) / (total**2)) if total and agent_only is not None else None),
    }


def compare_configs(store: Store, a: dict[str, str], b: dict[str, str], *, judge: str | None = None) -> dict[str, Any]:
    runs_a, runs_b = matching_runs(store, a), matching_runs(store, b)
    for name, spec, runs in (("A", a, runs_a), ("B", b, runs_b)):
        if not runs:
            raise ConfigCompareError(f"configuration {name} ({_shown(spec)}) has no finished persona run")
    means: dict[str, dict[str, list[float]]] = {"a": defaultdict(list), "b": defaultdict(list)}
    for side, runs in (("a", runs_a), ("b", runs_b)):
        for run in runs:
            f1 = _f1(store, run.id, judge)
            if f1 is not None:
                means[side][run.task_id].append(f1)
    tasks = sorted(set(means["a"]) & set(means["b"]))
    if not tasks:
        raise ConfigCompareError("the two configurations share no scored task (vibesearch score --all first)")
    rows: list[dict[str, Any]] = []
    diffs: list[float] = []
    for t in tasks:
        ma, mb = statistics.fmean(means["a"][t]), statistics.fmean(means["b"][t])
        diffs.append(mb - ma)
        rows.append({"task": t, "a": ma, "b": mb, "b_minus_a": mb - ma, "runs_a": len(means["a"][t]), "runs_b": len(means["b"][t])})
    ci = bootstrap_mean(diffs)
    assert ci is not None
    mean = statistics.fmean(diffs)
    if ci[0] <= 0 <= ci[1]:
        verdict = "inside the noise floor: the interval contains 0, so neither is ranked above the other"
    else:
        verdict = "B scores higher than A" if mean > 0 else "A scores higher than B"
    return {
        "a": {"spec": a, "runs": len(runs_a), "noise": noise_floor(store, runs_a, judge)},
        "b": {"spec": b, "runs": len(runs_b), "noise": noise_floor(store, runs_b, judge)},
        "judge": judge,
        "tasks": rows,
        "difference": {"b_minus_a": mean, "ci": ci, "tasks": len(rows)},
        "inside_noise": bool(ci[0] <= 0 <= ci[1]),
        "verdict": verdict,
        "bootstrap": bootstrap_settings(),
    }


def _shown(spec: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in spec.items()) or "every run"
