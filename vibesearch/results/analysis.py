"""The error analysis of a set of stored runs: the funnel of every ground-truth triple, grouped,
and the paper's section-5 measures (docs/analysis.md defines each and names its source).

``analyse(store, judge=..., where=...)`` reads each run's events once — one run at a time, for its
statistics and its funnel's trace together (``collect_runs``' ``stats`` hook) — and returns a plain
dict: ``funnel`` (per group kind: config, task, stage, language, and ``all``), ``runs`` (the same
per run), then the measures (``measures.section_five``).

Shares come with 95% percentile-bootstrap intervals (``scoring.bootstrap``): a group of several
runs resamples its runs (a run's triples move together: they share a conversation), one run
resamples its triples.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from ..judges.registry import judge_label
from ..run.config import ProtocolProfile
from ..scoring.aggregate import RunRecord, collect_runs, where_filter
from ..scoring.bootstrap import bootstrap_settings, category_share_intervals, resampled_intervals
from ..scoring.stats import RunStats, run_stats
from ..store import Store, TaskSnapshotError
from ..store.tables import Run
from ..tasks.models import Task
from .funnel import BUCKETS, Corpora, RunFunnel, RunTrace, stored_funnel, trace_stored
from .measures import section_five

GROUP_KINDS = ("config", "task", "stage", "language")


def _shares_of_one(counts: list[int]) -> dict[str, Any]:
    total = sum(counts)
    cis = category_share_intervals(counts)
    return {b: {"share": (c / total if total else None), "ci": cis[k] if cis else None} for k, (b, c) in enumerate(zip(BUCKETS, counts))}


def _shares_of_runs(rows: list[list[int]]) -> dict[str, Any]:
    """Each bucket's share of the pooled triples, its interval resampling the runs."""
    if len(rows) == 1:
        return _shares_of_one(rows[0])
    c = np.asarray(rows, dtype=float)
    n_gt = c.sum(axis=1)
    total = n_gt.sum()

    def stats(idx: Any) -> list[Any]:
        tot = n_gt[idx].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return [np.where(tot > 0, c[:, k][idx].sum(axis=1) / tot, np.nan) for k in range(len(BUCKETS))]

    cis = resampled_intervals(len(rows), stats)
    return {b: {"share": (float(c[:, k].sum() / total) if total else None), "ci": cis[k] if cis else None}
            for k, b in enumerate(BUCKETS)}


def funnel_row(label: str, rows: list[list[int]], *, seen_unknown: int = 0, unassigned: int = 0) -> dict[str, Any]:
    """One group's funnel: the bucket counts (summing to ``n_gt``), the runs, and the shares with intervals."""
    counts = [sum(r[k] for r in rows) for k in range(len(BUCKETS))]
    return {"group": label, **dict(zip(BUCKETS, counts)), "n_gt": sum(counts), "n_runs": len(rows),
            "seen_unknown": seen_unknown, "unassigned": unassigned, "shares": _shares_of_runs(rows) if rows else {}}


def funnel_groups(funnels: list[tuple[RunRecord, RunFunnel]]) -> dict[str, Any]:
    """The funnel per configuration, task, stage (of a task) and language, and over every run."""
    groups: dict[str, dict[str, list[list[int]]]] = {k: defaultdict(list) for k in GROUP_KINDS}
    extra: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r, f in funnels:
        row = [f.counts()[b] for b in BUCKETS]
        for kind, label in (("config", r.config), ("task", r.task_id), ("language", r.language)):
            groups[kind][label].append(row)
            extra[(kind, label)][0] += f.seen_unknown
            extra[(kind, label)][1] += f.unassigned
        for stage, counts in f.of_stage().items():
            label = f"{r.task_id} · " + (f"stage {stage + 1}" if stage is not None else "unassigned")
            groups["stage"][label].append([counts[b] for b in BUCKETS])
    out: dict[str, Any] = {}
    for kind in GROUP_KINDS:
        labels = sorted(groups[kind], key=_stage_order if kind == "stage" else str)
        out[kind] = [funnel_row(label, groups[kind][label], seen_unknown=extra[(kind, label)][0], unassigned=extra[(kind, label)][1])
                     for label in labels]
    every = [[f.counts()[b] for b in BUCKETS] for _, f in funnels]
    out["all"] = funnel_row("all", every, seen_unknown=sum(f.seen_unknown for _, f in funnels),
                            unassigned=sum(f.unassigned for _, f in funnels))
    return out


def _stage_order(label: str) -> tuple[str, int]:
    task, _, stage = label.rpartition(" · ")
    return (task, int(stage.split()[-1]) if stage.startswith("stage ") else 10**6)


def run_row(r: RunRecord, f: RunFunnel, *, triples: bool = False) -> dict[str, Any]:
    """One run's funnel as ``analyse`` lists it (``triples``: with every triple's fate)."""
    counts: dict[str, int] = {b: n for b, n in f.counts().items()}
    row: dict[str, Any] = {"run_id": r.run_id, "task_id": r.task_id, "config": r.config, "language": r.language, "subset": r.subset,
           "seen_method": f.seen_method, **counts, "n_gt": f.n_gt, "seen_unknown": f.seen_unknown, "unassigned": f.unassigned,
           "shares": _shares_of_one([counts[b] for b in BUCKETS])}
    if triples:
        row["triples"] = f.as_dict()["triples"]
    return row


class _OnePass:
    """``collect_runs``' statistics hook: a run's events are read once, for its statistics and its
    funnel's trace (kept, small, until the run's funnel is made)."""

    def __init__(self) -> None:
        self.corpora = Corpora()
        self.traces: dict[str, tuple[RunTrace, int | None]] = {}
        self.tasks: dict[str, Task] = {}

    def __call__(self, store: Store, run: Run) -> RunStats:
        events = store.events(run.id)
        try:
            task = run.task()
        except TaskSnapshotError:
            task = None
        if task is not None and task.kind == "persona" and task.graph:
            self.traces[run.id] = trace_stored(store, run, task, events, self.corpora)
            self.tasks[run.id] = task
        return run_stats(store, run.id, events=events, run=run, task=task)


def funnels_of(store: Store, records: list[RunRecord], *, one_pass: _OnePass | None = None) -> list[tuple[RunRecord, RunFunnel]]:
    """The funnel of each scored record under its score (one per run: the first record of each;
    ``one_pass``: the traces made while the records were collected, else each run's events are
    streamed now)."""
    corpora = one_pass.corpora if one_pass is not None else Corpora()
    out, done = [], set()
    for r in records:
        if r.run_id in done:
            continue
        done.add(r.run_id)
        trace = one_pass.traces.pop(r.run_id, None) if one_pass is not None else None
        task = one_pass.tasks.pop(r.run_id, None) if one_pass is not None else None
        if r.scored and r.score_id is not None:
            f = stored_funnel(store, r.run_id, r.score_id, corpora=corpora, trace=trace, task=task)
            if f is not None:
                out.append((r, f))
    return out


def analysis_of(records: list[RunRecord], funnels: list[tuple[RunRecord, RunFunnel]], *, triples: bool = False) -> dict[str, Any]:
    """The funnel (grouped, and per run) and the section-5 measures of ``records`` (one per run)."""
    return {"n_runs": len(records), "n_analysed": len(funnels), "intervals": bootstrap_settings(),
            "funnel": funnel_groups(funnels), "runs": [run_row(r, f, triples=triples) for r, f in funnels],
            **section_five(records, funnels)}


def analyse(store: Store, *, judge: str | None = None, protocol: ProtocolProfile | None = None,
            where: dict[str, list[str]] | None = None, triples: bool = False) -> dict[str, Any]:
    """The funnel and the section-5 measures of the runs ``where`` selects (one record per run,
    runs left out dropped), each under its latest score by ``judge`` (the one ``collect_runs``
    chooses). ``triples``: each run's row carries every ground-truth triple's fate."""
    one_pass = _OnePass()
    records, used = collect_runs(store, judge=judge, protocol=protocol, stats=one_pass)
    keep = where_filter(where)
    first: dict[str, RunRecord] = {}
    for r in records:
        if keep(r) and not r.left_out:
            first.setdefault(r.run_id, r)
    chosen = list(first.values())
    funnels = funnels_of(store, chosen, one_pass=one_pass)
    return {"judge": used, "judge_label": judge_label(used), "where": dict(where or {}), **analysis_of(chosen, funnels, triples=triples)}


def scored_funnel(store: Store, label: str, scores: list[tuple[str, int]]) -> dict[str, Any]:
    """``funnel_row`` of the runs in ``scores`` ((run id, score id) pairs), each run's funnel under
    that score (its events streamed): which bucket a set of runs loses its facts in."""
    corpora = Corpora()
    made = [f for f in (stored_funnel(store, run_id, score_id, corpora=corpora) for run_id, score_id in scores) if f is not None]
    return funnel_row(label, [[f.counts()[b] for b in BUCKETS] for f in made], seen_unknown=sum(f.seen_unknown for f in made),
                      unassigned=sum(f.unassigned for f in made))


def series_funnels(store: Store, records: list[RunRecord], *, corpora: Corpora | None = None) -> list[dict[str, Any]]:
    """``funnel_row`` per configuration × profile (labelled ``"config · profile"``, the leaderboard's
    series), each scored sample (not left out) under its own score: the Leaderboard tab's funnel
    bars and the site's funnel table. Sorted by label. ``corpora``: where the offline pages are
    read (the site reads none: ``site.funnel_html.BundleOnly``)."""
    corpora = corpora or Corpora()
    groups: dict[str, list[RunFunnel]] = defaultdict(list)
    for r in records:
        if r.scored and not r.left_out and r.score_id is not None:
            f = stored_funnel(store, r.run_id, r.score_id, corpora=corpora)
            if f is not None:
                groups[f"{r.config} · {r.profile}"].append(f)
    return [funnel_row(label, [[f.counts()[b] for b in BUCKETS] for f in made], seen_unknown=sum(f.seen_unknown for f in made),
                       unassigned=sum(f.unassigned for f in made)) for label, made in sorted(groups.items())]
