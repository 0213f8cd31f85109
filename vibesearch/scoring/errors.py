"""Error analysis over scored runs (SPEC 5.4).

* F1 by compaction count (0, 1, 2 or more) and by number of user turns (bins of five; the
  paper's ≤10 / 11–15 / >15 with ``PAPER_USER_TURN_BINS``).
* Termination types.
* Per-relation coverage of the ground truth: for each ground-truth relation (grouped by its
  normalised text), how many of its triples were covered, and in how many runs the prediction
  used a matching relation at all ("never produced" when none did).
* Over-generation: the share of predicted triples that are not valid (1 - precision); a run
  is flagged when more than ``OVER_GENERATION`` of its triples are invalid.
* Under-generation: low recall (< ``UNDER_RECALL``) together with few predictions (fewer than
  ``UNDER_PRED_RATIO`` × the ground-truth size).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import mean
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..store import Store
from ..judges.offline import relation_matches
from ..judges.offline import norm
from .aggregate import RunRecord, mean_if_known
from .stored import stored_ground_truth
from .metrics import stored_prediction, stored_verdicts
from ..run.scores import Verdict

OVER_GENERATION = 0.8
UNDER_RECALL = 0.2
UNDER_PRED_RATIO = 0.5
USER_TURN_BINS = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 30))


def _f1_rows(groups: dict[str, list[RunRecord]], order: list[str]) -> list[dict[str, Any]]:
    rows = []
    for label in order:
        runs = groups.get(label, [])
        rows.append(
            {
                "bin": label,
                "n_runs": len(runs),
                "mean_f1": mean_if_known([r.f1 for r in runs]),
                "mean_recall": mean_if_known([r.recall for r in runs]),
            }
        )
    return rows


def f1_by_compactions(records: list[RunRecord]) -> list[dict[str, Any]]:
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.scored:
            c = r.stats.compactions
            groups["unknown" if c is None else "0" if c == 0 else "1" if c == 1 else "≥2"].append(r)
    return _f1_rows(groups, ["0", "1", "≥2"] + (["unknown"] if groups.get("unknown") else []))


# the paper's Table 15: ≤10, 11–15 and more than 15 user turns
PAPER_USER_TURN_BINS = ((0, 10), (11, 15))


def _turn_bin(n: int, bins: tuple[tuple[int, int], ...] = USER_TURN_BINS) -> str:
    for lo, hi in bins:
        if lo <= n <= hi:
            return f"≤{hi}" if lo == 0 else f"{lo}–{hi}"
    return f">{bins[-1][1]}" if n > bins[-1][1] else "0"


def f1_by_user_turns(records: list[RunRecord], bins: tuple[tuple[int, int], ...] = USER_TURN_BINS) -> list[dict[str, Any]]:
    """F1 and recall by the runs' user turns, in ``bins`` (inclusive ranges; above the last: one
    more bin); ``PAPER_USER_TURN_BINS`` are the paper's."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.scored:
            groups[_turn_bin(r.stats.n_user, bins)].append(r)
    order = ["0"] + [f"≤{hi}" if lo == 0 else f"{lo}–{hi}" for lo, hi in bins] + [f">{bins[-1][1]}"]
    return [row for row in _f1_rows(groups, order) if row["n_runs"]]


def termination_types(records: list[RunRecord]) -> dict[str, int]:
    return dict(Counter(r.stats.termination or "unknown" for r in records).most_common())


def relation_coverage(store: Store, records: list[RunRecord]) -> list[dict[str, Any]]:
    """Coverage of each ground-truth relation across the scored runs, least covered first."""
    def graded() -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]], list[Verdict]]]:
        for r in records:
            if r.scored and r.score_id is not None:
                yield stored_ground_truth(store, r.run_id), stored_prediction(store, r.run_id)[0], stored_verdicts(store, r.score_id)

    return relation_coverage_of(graded())


def relation_coverage_of(runs: Iterable[tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]], Sequence[Verdict]]]) -> list[dict[str, Any]]:
    """``relation_coverage`` over (ground truth, prediction, verdicts) of each scored run."""
    table: dict[str, dict[str, Any]] = {}
    for gt, pred, verdict_list in runs:
        pred_relations = {str(t.get("relation", "")) for t in pred}
        verdicts = {v.gt_index: v for v in verdict_list}
        seen_here: set[str] = set()
        for i, t in enumerate(gt):
            rel = str(t.get("relation", ""))
            key = norm(rel)
            row = table.setdefault(key, {"relation": rel, "n_gt": 0, "n_covered": 0, "n_unscored": 0, "runs": 0, "runs_produced": 0})
            row["n_gt"] += 1
            v = verdicts.get(i)
            if v is None or v.covered is None:
                row["n_unscored"] += 1
            elif v.covered:
                row["n_covered"] += 1
            if key not in seen_here:
                seen_here.add(key)
                row["runs"] += 1
                if any(relation_matches(rel, p) for p in pred_relations):
                    row["runs_produced"] += 1
    rows = []
    for row in table.values():
        judged = row["n_gt"] - row["n_unscored"]
        row["coverage"] = row["n_covered"] / judged if judged else None
        row["never_produced"] = row["runs_produced"] == 0
        rows.append(row)
    rows.sort(key=lambda x: (x["coverage"] if x["coverage"] is not None else 2, -x["n_gt"], x["relation"]))
    return rows


def generation_errors(records: list[RunRecord]) -> dict[str, Any]:
    scored = [r for r in records if r.scored]
    with_pred = [r for r in scored if r.n_pred]
    over = [
        {"run_id": r.run_id, "task_id": r.task_id, "invalid_share": 1 - r.n_valid / r.n_pred, "n_pred": r.n_pred}
        for r in with_pred
        if 1 - r.n_valid / r.n_pred > OVER_GENERATION
    ]
    under = [
        {"run_id": r.run_id, "task_id": r.task_id, "recall": r.recall, "n_pred": r.n_pred, "n_gt": r.n_gt}
        for r in scored
        if (r.recall or 0) < UNDER_RECALL and r.n_pred < UNDER_PRED_RATIO * r.n_gt
    ]
    return {
        "mean_invalid_share": mean(1 - r.n_valid / r.n_pred for r in with_pred) if with_pred else None,
        "over_generation_threshold": OVER_GENERATION,
        "over_generation_runs": over,
        "under_generation_rule": f"recall < {UNDER_RECALL} and n_pred < {UNDER_PRED_RATIO} x n_gt",
        "under_generation_runs": under,
        "empty_predictions": sum(1 for r in scored if r.n_pred == 0),
    }


def error_analysis(store: Store, records: list[RunRecord]) -> dict[str, Any]:
    return {
        "f1_by_compactions": f1_by_compactions(records),
        "f1_by_user_turns": f1_by_user_turns(records),
        "termination": termination_types(records),
        "relation_coverage": relation_coverage(store, records),
        "generation": generation_errors(records),
    }
