"""``vibesearch votes report``: everything the votes say, in one dict (docs/votes.md).

``vote_report(store, where=…, judge=…)`` returns:

* ``ratings``: Bradley–Terry ratings per configuration (label, rating, ci ``[low, high]``,
  battles, wins, losses, ties), best first (``preference``); ``differences``: each pair's
  rating difference with its interval; ``win_matrix``;
* ``metric_vs_votes``: ``p_prefer_higher_f1``, ``kendall_tau`` (τ between the configurations'
  preference ratings and their Avg@N F1, with ``ci`` from the same vote resamples as the ratings;
  the F1 side is held fixed), ``predictors``, ``disagreements`` and ``avg_f1`` (``vote_metric``);
* ``quality``: ``attention``, ``position_bias``, ``majority_agreement`` per voter, ``outliers``,
  ``voter_alpha``, and ``ratings_without_outliers`` (the ratings with the outliers' votes left out;
  None when no voter is flagged) (``vote_quality``);
* ``votes`` (how many), ``judge`` (whose scores), ``where`` and ``method``.

``where`` (``report --where``'s keys: ``scoring.aggregate.WHERE_KEYS``) keeps the votes both of
whose runs pass it, and the runs the Avg@N F1 is taken over.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..protocol import profile_of
from ..scoring.aggregate import RunRecord, collect_runs, config_key, score_table, where_filter
from ..scoring.bootstrap import LEVEL, resampled_intervals
from ..store import Store, VoteRow
from . import preference, vote_metric, vote_quality


def _one_record(records: Sequence[RunRecord]) -> dict[str, RunRecord]:
    """Per run, the record the measures are read from: scored under a profile graded by our own
    rules (the vibesearch profile), else scored by the official grader, else unscored."""
    out: dict[str, RunRecord] = {}
    rank = {True: 0, False: 1}
    for r in sorted(records, key=lambda r: (rank[r.scored], profile_of(r.protocol).official_grader)):
        out.setdefault(r.run_id, r)
    return out


def avg_f1(records: Sequence[RunRecord]) -> dict[str, float]:
    """Each configuration's Avg@N F1 over all tasks (``scoring.aggregate.score_table``), under the
    vibesearch profile where it has one (the official grader's otherwise)."""
    out: dict[str, float] = {}
    rows = [r for r in score_table(list(records)) if r["group"] == "all" and r.get("avg_f1") is not None]
    for row in sorted(rows, key=lambda r: profile_of(r["protocol"]).official_grader):
        out.setdefault(row["config"], float(row["avg_f1"]))
    return out


def kendall_tau(rows: Sequence[tuple[str, str, str]], f1: Mapping[str, float], *, resamples: int, seed: int) -> dict[str, Any]:
    """Kendall's τ-b between the preference ratings and the Avg@N F1 of the configurations that
    have both, with a percentile-bootstrap interval over the votes."""
    from scipy.stats import kendalltau

    labels = sorted(({a for a, _, _ in rows} | {b for _, b, _ in rows}) & set(f1))
    kept = [(a, b, w) for a, b, w in rows if a in f1 and b in f1]
    if len(labels) < 2:
        return {"tau": None, "ci": None, "configurations": len(labels), "note": "fewer than two configurations with votes and an F1"}
    at = {label: k for k, label in enumerate(labels)}
    coded = preference.Battles(len(labels), [(at[a], at[b], w) for a, b, w in kept])
    scores = np.array([f1[label] for label in labels])

    def tau(ratings: np.ndarray) -> float:
        ok = ~np.isnan(ratings)
        if ok.sum() < 2:
            return float("nan")
        return float(kendalltau(ratings[ok], scores[ok]).statistic)

    point = tau(preference.fit(coded.matrix()))

    def statistics(idx: Any) -> list[Any]:
        return [np.array([tau(ratings) for ratings in preference.resampled_fits(coded, idx)])]

    [ci] = resampled_intervals(coded.size, statistics, resamples=resamples, seed=seed, level=LEVEL)
    return {"tau": None if np.isnan(point) else point, "ci": ci, "configurations": len(labels), "note": ""}


def vote_report(store: Store, *, where: dict[str, list[str]] | None = None, judge: str | None = None,
                resamples: int = preference.RESAMPLES, seed: int = preference.SEED) -> dict[str, Any]:
    votes = store.votes()
    keep = where_filter(where)
    records, used = collect_runs(store, judge=judge)
    records = [r for r in records if keep(r)]
    by_run = _one_record(records)
    if where:
        votes = [v for v in votes if v.run_a in by_run and v.run_b in by_run]
    voted = sorted({v.run_a for v in votes} | {v.run_b for v in votes})
    runs = {rid: store.get_run(rid) for rid in voted}
    config_of = {rid: config_key(run) for rid, run in runs.items()}
    answers = vote_metric.final_answers(store, voted)
    measures = vote_metric.run_measures({rid: by_run[rid] for rid in voted if rid in by_run}, answers)

    rows = preference.battles(votes, config_of)
    bt = preference.bradley_terry(rows, resamples=resamples, seed=seed)
    f1 = avg_f1(records)
    deltas = vote_metric.deltas(votes, measures)
    checks = vote_quality.attention(votes, answers)
    per_voter = vote_quality.majority_agreement(votes)
    flagged = vote_quality.outliers(per_voter, checks)
    without = None
    if flagged:
        names = {f["voter"] for f in flagged}
        rest: list[VoteRow] = [v for v in votes if v.voter not in names]
        without = preference.bradley_terry(preference.battles(rest, config_of), resamples=resamples, seed=seed)["ratings"]
    return {
        "votes": len(votes),
        "judge": used,
        "where": where or {},
        "ratings": bt["ratings"],
        "differences": bt["differences"],
        "win_matrix": bt["win_matrix"],
        "metric_vs_votes": {
            "p_prefer_higher_f1": vote_metric.p_prefer_higher_f1(deltas),
            "kendall_tau": kendall_tau(rows, f1, resamples=resamples, seed=seed),
            "predictors": vote_metric.predictors(deltas),
            "disagreements": vote_metric.disagreements(deltas, measures, {rid: run.task_id for rid, run in runs.items()}),
            "avg_f1": {label: f1[label] for label in sorted(f1) if label in set(config_of.values())},
        },
        "quality": {
            "attention": checks,
            "position_bias": vote_quality.position_bias(votes),
            "majority_agreement": per_voter,
            "outliers": flagged,
            "voter_alpha": vote_quality.voter_alpha(votes),
            "ratings_without_outliers": without,
        },
        "method": {**preference.settings(), "resamples": resamples, "seed": seed},
    }

