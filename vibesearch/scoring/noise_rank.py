"""Ranking configurations only where the data can tell them apart.

Within one profile the configurations are ordered by their mean per-task F1; each is compared
with the one below it on the tasks both ran: the paired differences of per-task mean F1 (a
task's runs averaged first), with a 95% percentile-bootstrap interval (``_bootstrap``). When the
interval contains 0 the two are *inside the noise*: the order between them is not a ranking.
Fewer than two shared tasks cannot be told apart either. The leaderboard shows the mark beside
each configuration's "all" row; ``vibesearch compare --a … --b …`` gives the same answer for any
two configurations, with each side's noise floor.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Iterable

from ._bootstrap import bootstrap_mean
from .aggregate import RunRecord

MIN_SHARED_TASKS = 2


def _task_means(records: Iterable[RunRecord]) -> dict[str, float]:
    by_task: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.f1 is not None and not r.left_out:
            by_task[r.task_id].append(r.f1)
    return {t: statistics.fmean(v) for t, v in by_task.items()}


def rank_marks(records: list[RunRecord]) -> dict[tuple[str, str], str]:
    """(configuration, profile label) -> how it stands against the configuration ranked next below
    it in the same profile ("" for the last one)."""
    groups: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.scored:
            groups[(r.config, r.profile)].append(r)
    marks: dict[tuple[str, str], str] = {}
    for profile in sorted({p for _, p in groups}):
        means = {cfg: _task_means(rs) for (cfg, p), rs in groups.items() if p == profile}
        order = sorted(means, key=lambda c: (-statistics.fmean(means[c].values()) if means[c] else 0.0, c))
        for upper, lower in zip(order, order[1:]):
            shared = sorted(set(means[upper]) & set(means[lower]))
            if len(shared) < MIN_SHARED_TASKS:
                marks[(upper, profile)] = f"not ranked against {lower}: {len(shared)} shared task(s)"
                continue
            diffs = [means[upper][t] - means[lower][t] for t in shared]
            ci = bootstrap_mean(diffs)
            assert ci is not None
            delta = statistics.fmean(diffs)
            if ci[0] <= 0 <= ci[1]:
                marks[(upper, profile)] = f"inside the noise vs {lower}: ΔF1 {delta:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"
            else:
                marks[(upper, profile)] = f"above {lower}: ΔF1 {delta:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"
        if order:
            marks.setdefault((order[-1], profile), "")
    return marks
