"""The noise floor split three ways: how much of a run's F1 the user (simulator), the agent and the
judge each move when nothing else changes.

A run's reported F1 (its latest judgement: ``aggregate.latest_scores``) is read as the task's level
under its configuration plus three independent errors: the user's, the agent's and the judge's.
Their variances are estimated by the method of moments (variance components) from the repeats
the data holds, each a pooled within-group variance (n − 1 denominators):

* **judge**: the K judgements of one graph that ``score --repeat K`` made together (a repeat set);
  a deterministic judge (``judges.registry``: the offline judge) is 0 by construction;
* **agent + judge**: runs of one task and configuration whose user cannot vary — a user that
  answers the same state the same way (``FIXED_USERS``) or a simulator with a shared seed;
* **user + agent + judge** (``combined``): all runs of one task and configuration.

Then user = combined − (agent + judge) and agent = (agent + judge) − judge, each floored at 0. A
part whose two sides are not both measured is ``None`` (null in JSON) with ``why``, never 0.
Each part is given as a standard deviation in F1 (0–1): the square root of its variance.

Intervals: a cluster bootstrap. The clusters are (configuration, profile, task) with their runs
and those runs' repeat sets; each resample draws clusters with replacement (``_bootstrap``'s
resample count and fixed seed) and recomputes the three parts; the 2.5th and 97.5th percentiles
over the resamples where the part is defined.

A difference between two configurations is *inside the combined noise* (a tie) when it is no
larger than ``noise_margin``: 1.96 standard errors of the noise alone on the mean per-task
difference, from the combined variance (or, when only the judge is measured, the judge's: a
lower bound).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np

from ..judges.registry import judge_for
from ..store.tables import Run
from .bootstrap import CHUNK_CELLS, LEVEL, RESAMPLES, SEED

FIXED_USERS = ("rules", "direct", "staged")  # users that answer the same state the same way
PARTS = ("user", "agent", "judge")
Z = 1.96  # the normal quantile of a two-sided 95% margin
UNIT = "standard deviation of one run's F1 (0-1)"


def judge_is_deterministic(judge: str | None) -> bool:
    """True for a judge whose repeated judgements of one graph are equal (no spread to measure)."""
    return judge is not None and judge_for(judge).deterministic


def run_seed(run: Run) -> int | None:
    """The run's configured seed (None without a stored configuration or seed)."""
    config = run.run_config()
    return config.seed if config is not None else None


def fixed_user_key(user: str | None, simulator_model: str | None, seed: int | None) -> tuple[Any, ...] | None:
    """Runs (of one task and configuration) with equal keys had a user that could not vary; None
    when the user may vary (a simulator without a seed, a person)."""
    if user in FIXED_USERS:
        return (user, simulator_model or "")
    if seed is not None:
        return (user, simulator_model or "", seed)
    return None


@dataclass(frozen=True)
class Observation:
    """One scored run: its cluster (configuration, profile, task), its user-fixed group inside
    the cluster (``fixed_user_key``), its F1, the F1 of every judgement of its score's repeat set
    (one or none when it was judged once) and whether its judge is deterministic."""

    cluster: tuple[Hashable, ...]
    fixed: tuple[Any, ...] | None
    f1: float
    judgements: tuple[float, ...] = ()
    deterministic: bool = False


def _ss(values: Sequence[float]) -> tuple[float, int]:
    """Sum of squares about the mean and its degrees of freedom (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0, 0
    m = statistics.fmean(values)
    return sum((v - m) ** 2 for v in values), len(values) - 1


def _cluster_sums(observations: Iterable[Observation]) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per cluster: [combined, user fixed, judge] sums of squares and degrees of freedom; and
    whether every judge is deterministic."""
    clusters: dict[tuple[Hashable, ...], list[Observation]] = defaultdict(list)
    deterministic = True
    for o in observations:
        clusters[o.cluster].append(o)
        deterministic = deterministic and o.deterministic
    ss = np.zeros((3, len(clusters)))
    dof = np.zeros((3, len(clusters)))
    for i, obs in enumerate(clusters.values()):
        parts: list[list[tuple[float, int]]] = [[_ss([o.f1 for o in obs])], [], []]
        fixed: dict[tuple[Any, ...], list[float]] = defaultdict(list)
        for o in obs:
            if o.fixed is not None:
                fixed[o.fixed].append(o.f1)
            parts[2].append(_ss(o.judgements))
        parts[1] = [_ss(v) for v in fixed.values()]
        for k, got in enumerate(parts):
            ss[k, i] = sum(s for s, _ in got)
            dof[k, i] = sum(d for _, d in got)
    return ss, dof, deterministic and bool(clusters)


def _components(ss: np.ndarray, dof: np.ndarray, deterministic: bool) -> dict[str, np.ndarray]:
    """The variance of each part (NaN where it cannot be estimated) from summed squares and
    degrees of freedom; arrays broadcast over resamples."""
    with np.errstate(divide="ignore", invalid="ignore"):
        combined, fixed, judge = (np.where(dof[k] > 0, ss[k] / np.where(dof[k] > 0, dof[k], 1), np.nan) for k in range(3))
    if deterministic:
        judge = np.where(np.isnan(judge), 0.0, judge)
    return {"combined": combined, "user": np.maximum(combined - fixed, 0.0), "agent": np.maximum(fixed - judge, 0.0), "judge": judge}


def _why(part: str, dof: np.ndarray, deterministic: bool) -> str | None:
    have = {"combined": dof[0].sum() > 0, "fixed": dof[1].sum() > 0, "judge": dof[2].sum() > 0 or deterministic}
    missing = {
        "combined": [] if have["combined"] else ["no task has two scored runs of one configuration"],
        "fixed": [] if have["fixed"] else ["no task has two scored runs with the user fixed (a rule-based user or a shared simulator seed)"],
        "judge": [] if have["judge"] else ["no graph was judged more than once (vibesearch score --repeat K)"],
    }
    needs = {"user": ("combined", "fixed"), "agent": ("fixed", "judge"), "judge": ("judge",), "combined": ("combined",)}[part]
    reasons = [r for n in needs for r in missing[n]]
    return "; ".join(reasons) or None


def noise_split(observations: Iterable[Observation], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> dict[str, Any]:
    """``{"user", "agent", "judge", "combined"}``, each ``{"estimate": sd | None, "interval":
    [low, high] | None, "variance": … | None, "why": reason it is None | None}``, with how it was
    made and what it rests on (clusters, repeat sets, degrees of freedom)."""
    ss, dof, deterministic = _cluster_sums(observations)
    point = _components(ss.sum(axis=1), dof.sum(axis=1), deterministic)
    n = ss.shape[1]
    boot: dict[str, np.ndarray] = {}
    if n:
        rng = np.random.default_rng(seed)
        chunks: list[dict[str, np.ndarray]] = []
        step = max(1, CHUNK_CELLS // n)  # resamples drawn a block at a time: memory stays bounded on many clusters
        for start in range(0, resamples, step):
            idx = rng.integers(0, n, size=(min(step, resamples - start), n))
            chunks.append(_components(ss[:, idx].sum(axis=2), dof[:, idx].sum(axis=2), deterministic))
        boot = {k: np.concatenate([c[k] for c in chunks]) if chunks else np.array([]) for k in (*PARTS, "combined")}
    tail = 100 * (1 - level) / 2
    out: dict[str, Any] = {}
    for part in (*PARTS, "combined"):
        value = float(point[part]) if n else math.nan
        if math.isnan(value):
            out[part] = {"estimate": None, "interval": None, "variance": None, "why": _why(part, dof, deterministic)}
            continue
        vals = boot[part][~np.isnan(boot[part])]
        interval = [math.sqrt(max(0.0, float(x))) for x in np.percentile(vals, [tail, 100 - tail])] if vals.size else None
        out[part] = {"estimate": math.sqrt(value), "interval": interval, "variance": value, "why": None}
    if out["judge"]["estimate"] == 0 and deterministic and not dof[2].sum():
        out["judge"]["note"] = "deterministic judge: its judgements of one graph are equal by construction"
    out["settings"] = {
        "unit": UNIT, "method": "variance components (method of moments), cluster bootstrap over (configuration, profile, task)",
        "resamples": resamples, "seed": seed, "level": level,
        "clusters": n, "dof": {"combined": int(dof[0].sum()), "user_fixed": int(dof[1].sum()), "judge": int(dof[2].sum())},
    }
    return out


def combined_variance(split: Mapping[str, Any]) -> float | None:
    """The variance of one run's F1 from all measured noise: the combined part, else the judge's
    alone (a lower bound); None when neither is measured."""
    for part in ("combined", "judge"):
        v = split[part]["variance"]
        if v is not None:
            return float(v)
    return None


def noise_margin(variance: float | None, runs_a: Sequence[int], runs_b: Sequence[int]) -> float | None:
    """How large a mean per-task difference the noise alone makes at 95% (``Z`` standard errors):
    ``runs_a[i]`` and ``runs_b[i]`` are the two sides' numbers of runs on the i-th shared task.
    None without a measured variance or shared tasks."""
    if variance is None or not runs_a or len(runs_a) != len(runs_b):
        return None
    per_task = sum(variance / a + variance / b for a, b in zip(runs_a, runs_b))
    return Z * math.sqrt(per_task) / len(runs_a)


def spread_of(judgements: Sequence[float]) -> float | None:
    """The standard deviation (n − 1) of one graph's repeated judgements; None for fewer than two."""
    return statistics.stdev(judgements) if len(judgements) >= 2 else None
