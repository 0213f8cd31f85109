"""Ranking configurations only where the data can tell them apart.

Within one profile the configurations are ordered by their mean per-task F1; each is compared
with the one below it on the tasks both ran: the paired differences of per-task mean F1 (a
task's runs averaged first), with a 95% percentile-bootstrap interval (``_bootstrap``). When the
interval contains 0 the two are *inside the noise*: the order between them is not a ranking. So
are two whose mean difference is no larger than the combined noise's margin (``noise_split``: the
user's, the agent's and the judge's variance measured on the two configurations' repeats, as
``compare`` measures it; 1.96 standard errors of the noise alone on that mean). Fewer than two shared tasks cannot be told apart either. The leaderboard shows the mark beside
each configuration's "all" row; ``vibesearch compare --a … --b …`` gives the same answer for any
two configurations, with each side's noise floor.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, Callable, Iterable

from .bootstrap import bootstrap_mean
from .aggregate import RunRecord
from .noise_split import Observation, combined_variance, fixed_user_key, judge_is_deterministic, noise_margin, noise_split

MIN_SHARED_TASKS = 2


def _task_means(records: Iterable[RunRecord]) -> dict[str, float]:
    by_task: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.f1 is not None and not r.left_out:
            by_task[r.task_id].append(r.f1)
    return {t: statistics.fmean(v) for t, v in by_task.items()}


def _task_runs(records: Iterable[RunRecord]) -> dict[str, list[str]]:
    by_task: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r.f1 is not None and not r.left_out:
            by_task[r.task_id].append(r.run_id)
    return {t: sorted(v) for t, v in by_task.items()}


def record_observations(records: Iterable[RunRecord]) -> list[Observation]:
    """The scored samples as ``noise_split`` observations (cluster: configuration, profile, task)."""
    return [
        Observation(cluster=(r.config, r.profile, r.task_id), fixed=fixed_user_key(r.user, r.simulator_model, r.seed), f1=r.f1,
                    judgements=tuple(r.judgements), deterministic=judge_is_deterministic(r.judge))
        for r in records if r.f1 is not None and not r.left_out
    ]


def noise_of(records: Iterable[RunRecord]) -> dict[str, Any]:
    """The three-way noise split (user, agent, judge, combined) of these records' scores."""
    return noise_split(record_observations(records))


def pair_comparisons(records: list[RunRecord]) -> list[dict[str, Any]]:
    """Within each profile, each configuration against every one ranked below it that shares a task
    with it, and always against the next one down (``adjacent``: the pair behind the leaderboard's
    mark): the shared tasks with each side's mean F1 (and run ids), the mean paired difference with
    its interval and the combined noise's margin (``noise_margin``; None when no noise is
    measured), and ``standing``: "above", "inside the noise" (the interval holds 0, or the
    difference is within the margin) or "not ranked" (too few shared tasks)."""
    groups: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.scored:
            groups[(r.config, r.profile)].append(r)
    out: list[dict[str, Any]] = []
    for profile in sorted({p for _, p in groups}):
        means = {cfg: _task_means(rs) for (cfg, p), rs in groups.items() if p == profile}
        runs = {cfg: _task_runs(rs) for (cfg, p), rs in groups.items() if p == profile}
        order = sorted(means, key=lambda c: (-statistics.fmean(means[c].values()) if means[c] else 0.0, c))
        pairs = [(a, b, j == i + 1) for i, a in enumerate(order) for j, b in enumerate(order) if j > i]
        for upper, lower, adjacent in pairs:
            shared = sorted(set(means[upper]) & set(means[lower]))
            if not shared and not adjacent:
                continue
            diffs = [means[upper][t] - means[lower][t] for t in shared]
            ci = bootstrap_mean(diffs) if len(shared) >= MIN_SHARED_TASKS else None
            # the two configurations' own noise (as ``compare`` measures it); the margin needs the point estimate only
            variance = combined_variance(noise_split(record_observations(groups[(upper, profile)] + groups[(lower, profile)]), resamples=0))
            margin = noise_margin(variance, [len(runs[upper][t]) for t in shared], [len(runs[lower][t]) for t in shared])
            if ci is None:
                standing = "not ranked"
            else:
                inside = ci[0] <= 0 <= ci[1] or (margin is not None and abs(statistics.fmean(diffs)) <= margin)
                standing = "inside the noise" if inside else "above"
            out.append({
                "profile": profile, "upper": upper, "lower": lower, "adjacent": adjacent, "shared_tasks": len(shared),
                "delta_f1": statistics.fmean(diffs) if diffs else None, "ci": ci, "noise_margin": margin, "standing": standing,
                "tasks": [{"task": t, "upper_f1": means[upper][t], "lower_f1": means[lower][t], "difference": means[upper][t] - means[lower][t],
                           "upper_runs": runs[upper][t], "lower_runs": runs[lower][t]} for t in shared],
            })
    return out


def rank_marks(records: list[RunRecord], say: Callable[[str], str] = str) -> dict[tuple[str, str], str]:
    """(configuration, profile label) -> how it stands against the configuration ranked next below
    it in the same profile ("" for the last one). ``say``: each fixed wording (a template with
    ``{name}`` fields) as it is to be shown (the app's Leaderboard passes its translation)."""
    marks: dict[tuple[str, str], str] = {}
    for c in pair_comparisons(records):
        if not c["adjacent"]:
            continue
        upper, lower, profile = c["upper"], c["lower"], c["profile"]
        if c["standing"] == "not ranked":
            marks[(upper, profile)] = say("not ranked against {lower}: {n} shared task(s)").format(lower=lower, n=c["shared_tasks"])
            continue
        delta, ci = c["delta_f1"], c["ci"]
        where = say("inside the noise vs {lower}" if c["standing"] == "inside the noise" else "above {lower}").format(lower=lower)
        noise = "" if c["noise_margin"] is None else say(", noise ±{margin}").format(margin=f"{c['noise_margin']:.3f}")
        marks[(upper, profile)] = f"{where}: ΔF1 {delta:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]{noise}"
        marks.setdefault((lower, profile), "")
    for r in records:  # a profile's only configuration, or its last: no mark
        if r.scored:
            marks.setdefault((r.config, r.profile), "")
    return marks
