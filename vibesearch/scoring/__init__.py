"""Scoring: P/R/F1 from a judge's verdicts, statistics from events, aggregation, intervals, noise and
error analysis. The second of the four scoring rooms (``judges`` < ``scoring`` < ``results`` <
``labels``): it calls the judges (``vibesearch.judges``), and never imports ``results``, ``labels``,
``app``, ``cli`` or ``session``.

Modules: ``metrics`` (P/R/F1, score a graph), ``scorer`` (score a run, store it), ``official_score``
(the official grader's score of a run), ``profile`` (a run's protocol profile, cancelled runs),
``stats`` (counts from events), ``aggregate`` (tables over runs), ``bootstrap`` and ``spread``
(intervals), ``noise_split`` and ``noise_rank`` (the noise floor), ``errors`` (error analysis),
``stored`` (a run's stored task, prediction and ground truth).

    score_run(store, run_id, judge="offline" | "<litellm model>") -> ScoreRow   # stores score + verdicts
    scorer_for(kind, profile).score(store, run_id, ...) -> RunScore             # the value, not stored
    run_stats(store, run_id) -> RunStats                                        # from stored events only
"""

from .aggregate import RunRecord, collect_runs, interaction_table, score_table
from .metrics import (
    GraphScore,
    Metrics,
    NoGroundTruth,
    compute_metrics,
    score_graph,
    score_graph_async,
    stored_verdicts,
)
from .scorer import GraphScorer, OfficialGraphScorer, Scorer, TableScorer, score_run, score_run_async, score_run_repeated, scorer_for
from .stats import RunStats, run_stats, stats_from_events

__all__ = [
    "GraphScore",
    "GraphScorer",
    "OfficialGraphScorer",
    "Scorer",
    "TableScorer",
    "scorer_for",
    "Metrics",
    "NoGroundTruth",
    "RunRecord",
    "RunStats",
    "collect_runs",
    "compute_metrics",
    "interaction_table",
    "run_stats",
    "score_graph",
    "score_graph_async",
    "score_run",
    "score_run_repeated",
    "score_run_async",
    "score_table",
    "stats_from_events",
    "stored_verdicts",
]
