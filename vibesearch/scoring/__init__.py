"""Scoring: graph judges (LLM and offline), P/R/F1, statistics from events, aggregation, error
analysis and agreement with human labels.

    score_run(store, run_id, judge="offline" | "<litellm model>") -> ScoreRow   # stores score + verdicts
    scorer_for(kind, profile).score(store, run_id, ...) -> RunScore             # the value, not stored
    run_stats(store, run_id) -> RunStats                                        # from stored events only
"""

from .aggregate import RunRecord, collect_runs, interaction_table, score_table
from .agreement import agreement_report, cohen_kappa, krippendorff_alpha, percent_agreement
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
from .offline_judge import OfflineJudge
from .stats import RunStats, run_stats, stats_from_events
from .verdicts import JudgeResult, Verdict, judge_label, majority_verdicts

__all__ = [
    "GraphScore",
    "GraphScorer",
    "OfficialGraphScorer",
    "Scorer",
    "TableScorer",
    "scorer_for",
    "JudgeResult",
    "Metrics",
    "NoGroundTruth",
    "OfflineJudge",
    "RunRecord",
    "RunStats",
    "Verdict",
    "agreement_report",
    "cohen_kappa",
    "collect_runs",
    "compute_metrics",
    "interaction_table",
    "judge_label",
    "krippendorff_alpha",
    "majority_verdicts",
    "percent_agreement",
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
