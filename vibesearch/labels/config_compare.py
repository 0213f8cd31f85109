"""Is configuration B better than A? Per-task F1 differences, a paired bootstrap interval, and the
noise floor of each configuration (``vibesearch compare --a key=value … --b key=value …``).

* A configuration is the finished persona runs whose fields match (``CONFIG_KEYS``); each run's
  F1 is its newest score (of ``judge`` when given).
* The difference is taken per task (each side's runs averaged first) on the tasks both played,
  and its interval resamples the tasks (``_bootstrap.bootstrap_mean``).
* The **noise floor** of a configuration with two or more runs of a task: the pooled within-task
  standard deviation of F1, and the part of it left when the user is fixed — runs of one task whose
  user cannot vary (the rule-based, direct or staged user) or that share a simulator seed — so the
  rest is what the simulator's sampling adds; and ``split``, the three-way split of the same runs
  (``noise_split``: user, agent, judge, each with its interval; the judge's part from the repeat
  sets of ``score --repeat K``).
* A difference whose interval contains 0, or that is no larger than the combined noise's margin
  (``noise_split.noise_margin`` over both sides' runs), lies inside the noise: it is reported as
  such, not ranked; so is one over fewer than ``MIN_SHARED_TASKS`` shared tasks (the leaderboard's rule).
* ``judge_trust``: for each judge × profile whose scores were used, its measured agreement with
  the stored human labels (``judge_trust``) or "not measured"; ``marked`` says whether the
  figures rest on a judge below ``min_agreement`` (or unmeasured).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any, Callable

from ..store import Store
from ..store.tables import Run, ScoreRow
from ..scoring.bootstrap import bootstrap_mean, bootstrap_settings
from .judge_trust import Threshold, judge_trust
from ..scoring.noise_rank import MIN_SHARED_TASKS
from ..scoring.noise_split import Observation, combined_variance, fixed_user_key, judge_is_deterministic, noise_margin, noise_split, run_seed
from ..scoring.profile import profile_label
from ..results.analysis import scored_funnel

CONFIG_KEYS = ("agent", "agent_model", "user", "simulator_model", "search_backend", "batch_id", "protocol", "task")


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


MayRead = Callable[[Run], bool]
# the fields that make one configuration in the app's list (the leaderboard's grouping, and the profile)
LISTED_KEYS = ("agent", "agent_model", "user", "simulator_model", "protocol")


def _comparable(store: Store, may_read: MayRead | None) -> list[Run]:
    return [r for r in store.list_runs(status="finished")
            if r.kind == "persona" and r.source == "live" and (may_read is None or may_read(r))]


def matching_runs(store: Store, spec: dict[str, str], may_read: MayRead | None = None) -> list[Run]:
    """The finished live persona runs whose fields match ``spec`` (and that ``may_read`` accepts)."""
    unknown = sorted(set(spec) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigCompareError(f"unknown key {unknown[0]!r} (one of {', '.join(CONFIG_KEYS)})")
    return [r for r in _comparable(store, may_read) if all(_field(r, k) == v for k, v in spec.items())]


def configurations(store: Store, may_read: MayRead | None = None) -> list[tuple[dict[str, str], int]]:
    """Every configuration (its ``LISTED_KEYS`` fields; "" for one a run leaves empty, such as no
    simulator model) with its number of runs, most runs first: what the app offers to compare."""
    counts: dict[tuple[tuple[str, str], ...], int] = defaultdict(int)
    for run in _comparable(store, may_read):
        counts[tuple((k, _field(run, k)) for k in LISTED_KEYS)] += 1
    return [(dict(key), n) for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _newest(store: Store, run_id: str, judge: str | None) -> ScoreRow | None:
    rows = [s for s in store.scores(run_id) if judge is None or s.judge == judge]
    return max(rows, key=lambda s: (s.created_at, s.id or 0)) if rows else None


def _pooled_sd(groups: list[list[float]]) -> float | None:
    """The pooled within-group standard deviation over groups of two or more values."""
    squares = dof = 0.0
    for values in groups:
        if len(values) >= 2:
            mean = statistics.fmean(values)
            squares += sum((v - mean) ** 2 for v in values)
            dof += len(values) - 1
    return math.sqrt(squares / dof) if dof else None


def _observations(store: Store, runs: list[Run], judge: str | None, side: str) -> list[Observation]:
    """The runs' newest scores as ``noise_split`` observations, with their repeat sets' judgements."""
    out = []
    for run in runs:
        newest = _newest(store, run.id, judge)
        if newest is None:
            continue
        judgements = tuple(s.f1 for s in store.scores(run.id) if newest.repeat_set is not None and s.repeat_set == newest.repeat_set)
        out.append(Observation(cluster=(side, run.task_id), fixed=fixed_user_key(run.user, run.simulator_model, run_seed(run)),
                               f1=newest.f1, judgements=judgements, deterministic=judge_is_deterministic(newest.judge)))
    return out


def noise_floor(store: Store, runs: list[Run], judge: str | None) -> dict[str, Any]:
    by_task: dict[str, list[float]] = defaultdict(list)
    fixed: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    observations = _observations(store, runs, judge, "")
    for o in observations:
        task = str(o.cluster[1])
        by_task[task].append(o.f1)
        if o.fixed is not None:
            fixed[(task, *o.fixed)].append(o.f1)
    total = _pooled_sd(list(by_task.values()))
    agent_only = _pooled_sd(list(fixed.values()))
    return {
        "tasks_with_repeats": sum(1 for v in by_task.values() if len(v) >= 2),
        "sd": total,
        "sd_user_fixed": agent_only,
        # the share of the variance the user adds (None when either part is unknown or no spread)
        "user_share": (max(0.0, 1 - (agent_only**2) / (total**2)) if total and agent_only is not None else None),
        "split": noise_split(observations),  # user, agent, judge (and combined), each with its interval
    }


def compare_configs(
    store: Store, a: dict[str, str], b: dict[str, str], *, judge: str | None = None, may_read: MayRead | None = None,
    min_agreement: Threshold = None,
) -> dict[str, Any]:
    """B against A (``may_read``: only the runs it accepts count, as if the others did not exist;
    also for the labels that measure the judges)."""
    runs_a, runs_b = matching_runs(store, a, may_read), matching_runs(store, b, may_read)
    for name, spec, runs in (("A", a, runs_a), ("B", b, runs_b)):
        if not runs:
            raise ConfigCompareError(f"configuration {name} ({shown(spec)}) has no finished persona run")
    means: dict[str, dict[str, list[float]]] = {"a": defaultdict(list), "b": defaultdict(list)}
    used: dict[str, list[tuple[str, str]]] = {"a": [], "b": []}  # the judge × profile of each score taken
    graded: dict[str, list[tuple[str, int]]] = {"a": [], "b": []}  # (run, score) of each score taken
    for side, runs in (("a", runs_a), ("b", runs_b)):
        for run in runs:
            newest = _newest(store, run.id, judge)
            if newest is not None:
                means[side][run.task_id].append(newest.f1)
                used[side].append((newest.judge, profile_label(newest.protocol, newest.prompt_source)))
                if newest.id is not None:
                    graded[side].append((run.id, newest.id))
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
    # the combined noise of both sides' runs (point estimate only), as a margin on the mean difference
    both = _observations(store, runs_a, judge, "a") + _observations(store, runs_b, judge, "b")
    margin = noise_margin(combined_variance(noise_split(both, resamples=0)), [r["runs_a"] for r in rows], [r["runs_b"] for r in rows])
    too_few = len(tasks) < MIN_SHARED_TASKS  # one task's difference has no spread to judge it by
    within_margin = margin is not None and abs(mean) <= margin
    if too_few:
        verdict = f"not ranked: {len(tasks)} shared task (at least {MIN_SHARED_TASKS} are needed to tell them apart)"
    elif ci[0] <= 0 <= ci[1]:
        verdict = "inside the noise floor: the interval contains 0, so neither is ranked above the other"
    elif within_margin and margin is not None:  # (within_margin implies it; said for the type checker)
        verdict = f"inside the noise floor: |B − A| is within the combined noise (±{100 * margin:.2f} F1 points), so neither is ranked above the other"
    else:
        verdict = "B scores higher than A" if mean > 0 else "A scores higher than B"
    keep_run = None
    if may_read is not None:
        allowed = {r.id for r in store.list_runs() if may_read(r)}
        keep_run = allowed.__contains__
    trust = judge_trust(store, threshold=min_agreement, keep_run=keep_run)
    return {
        "judge_trust": trust.rows(sorted(set(used["a"] + used["b"]))),
        "marked": {side: any(trust.flagged(*key) for key in set(keys)) for side, keys in used.items()},
        "footnote": trust.footnote(),
        "a": {"spec": a, "runs": len(runs_a), "noise": noise_floor(store, runs_a, judge)},
        "b": {"spec": b, "runs": len(runs_b), "noise": noise_floor(store, runs_b, judge)},
        "judge": judge,
        "tasks": rows,
        # which bucket each side loses its ground-truth facts in (docs/analysis.md)
        "funnel": {side: scored_funnel(store, side.upper(), graded[side]) for side in ("a", "b")},
        "difference": {"b_minus_a": mean, "ci": ci, "tasks": len(rows), "noise_margin": margin},
        "inside_noise": bool(too_few or ci[0] <= 0 <= ci[1] or within_margin),
        "verdict": verdict,
        "bootstrap": bootstrap_settings(),
    }


def shown(spec: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in spec.items() if v) or "every run"
