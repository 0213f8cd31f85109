"""Triple precision, recall and F1, and scoring a stored run.

* recall = covered ground-truth triples / scored ground-truth triples;
* a predicted triple is *valid* when it is evidence for at least one covered ground-truth triple;
  precision = valid predicted triples / predicted triples;
* F1 = harmonic mean of the two, 0 when both are 0.

Choices, also in docs/scoring.md:

* **A failed judge is never a score**: when any LLM judge batch still fails after its attempts (a
  model error, an answer that never parsed or held no verdict) ``JudgeFailed`` is raised and
  nothing is stored (``judge_failures``).
* **Unscored triples** (a judge answer that skipped some triples of its batch; or a score stored
  before failed batches were refused) are left out of recall's denominator, so recall is over
  the triples the judge actually decided; the count is stored (``n_unscored``) and shown next to
  the score, and ``recall_all`` (unscored counted as not covered) is kept in the details.
  Precision keeps every predicted triple in its denominator, because a predicted triple's
  validity cannot be attributed to one batch; with unscored triples precision is therefore a
  lower bound.
* **Duplicate predicted triples** (equal after normalisation) are judged and counted once:
  repeating a triple neither raises nor lowers precision. ``n_pred`` is the number of distinct
  predicted triples; evidence indices point at the first copy in the stored graph.
* **No ground truth**: P = R = F1 = 0 from ``compute_metrics``; ``score_run`` refuses such a run
  (an imported trajectory needs its task attached first) instead of storing a meaningless 0.
"""

from __future__ import annotations

import json
from typing import Any, Sequence, TypeVar

from pydantic import BaseModel

from .._aio import run_sync
from ..config import Settings, get_settings
from ..run.scores import Metrics, RunScore
from ..store import Store
from ..judges.offline import norm
from .stored import NoGroundTruth, graph_source, stored_prediction, stored_task
from ..judges.judge_failures import JudgeFailed
from ..judges.offline import as_text_triple
from ..judges.registry import judge_for, judge_label
from ..judges.verdicts import JudgeResult, Verdict

T = TypeVar("T")


def f1_of(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def compute_metrics(verdicts: Sequence[Verdict], n_gt: int, n_pred: int) -> Metrics:
    scored = [v for v in verdicts if v.covered is not None]
    covered = [v for v in scored if v.covered]
    valid = {e for v in covered for e in v.evidence if 0 <= e < n_pred}
    n_unscored = n_gt - len(scored)
    recall = len(covered) / len(scored) if scored else 0.0
    precision = len(valid) / n_pred if n_pred else 0.0
    return Metrics(
        precision=precision,
        recall=recall,
        f1=f1_of(precision, recall),
        n_gt=n_gt,
        n_pred=n_pred,
        n_covered=len(covered),
        n_valid=len(valid),
        n_unscored=n_unscored,
    )


def dedupe(pred: Sequence[Any]) -> tuple[list[tuple[str, str, str]], list[int]]:
    """Distinct predicted triples and, for each, its first index in ``pred``."""
    seen: dict[tuple[str, str, str], int] = {}
    unique: list[tuple[str, str, str]] = []
    first: list[int] = []
    for i, item in enumerate(pred):
        t = as_text_triple(item)
        key = (norm(t[0]), norm(t[1]), norm(t[2]))
        if key in seen:
            continue
        seen[key] = len(unique)
        unique.append(t)
        first.append(i)
    return unique, first


class GraphScore(BaseModel):
    judge: str
    metrics: Metrics
    verdicts: list[Verdict]  # evidence indexed into the prediction as given
    details: dict[str, Any]


async def score_graph_async(
    gt: Sequence[Any],
    pred: Sequence[Any],
    *,
    judge: str = "offline",
    settings: Settings | None = None,
    progress: Any = None,
) -> GraphScore:
    """Judge a predicted graph against ground truth with one judge and compute P/R/F1."""
    settings = settings or get_settings()
    gt_t = [as_text_triple(t) for t in gt]
    unique, first = dedupe(pred)
    kind = judge_for(judge)
    if not unique:
        result = JudgeResult(
            judge=judge,
            verdicts=[Verdict(gt_index=i, covered=False, rationale="no predicted triples") for i in range(len(gt_t))],
            details={"judge_kind": kind.kind, "skipped": "empty prediction"},
        )
    else:
        assert kind.factory is not None  # judge_for without official: the offline or the LLM judge
        result = await kind.factory(judge, settings, progress=progress).judge(gt_t, unique)
    if kind.needs_model and unique:
        failure = JudgeFailed.from_batches(judge, result.details.get("batches") or [])
        if failure is not None:
            raise failure
    verdicts = [
        v.model_copy(update={"evidence": sorted({first[e] for e in v.evidence if 0 <= e < len(first)})})
        for v in result.verdicts
    ]
    m = compute_metrics(result.verdicts, len(gt_t), len(unique))
    details = dict(result.details)
    details.update(
        {
            "judge_label": judge_label(judge),
            "n_pred_raw": len(pred),
            "duplicates_removed": len(pred) - len(unique),
            "recall_all": (m.n_covered / m.n_gt) if m.n_gt else 0.0,
        }
    )
    return GraphScore(judge=judge, metrics=m, verdicts=verdicts, details=details)


def score_graph(gt: Sequence[Any], pred: Sequence[Any], *, judge: str = "offline", settings: Settings | None = None) -> GraphScore:
    return run_sync(score_graph_async(gt, pred, judge=judge, settings=settings))


async def score_graph_run(
    store: Store, run_id: str, *, judge: str, settings: Settings, progress: Any = None, original: bool = False
) -> RunScore:
    """Score a run's latest graph (``original``: its own extraction's, not a re-extraction's)
    against its task's ground truth (our profile's rules)."""
    task = stored_task(store, run_id)
    gt = [t.model_dump() for t in task.graph] if task is not None else []
    if not gt:
        raise NoGroundTruth(
            f"run {run_id} has no ground-truth graph in its task snapshot"
            + (" (an imported trajectory: import it again with --task FILE)" if store.get_run(run_id).source == "imported" else "")
        )
    pred, graph_id = stored_prediction(store, run_id, original=original)
    result = await score_graph_async(gt, pred, judge=judge, settings=settings, progress=progress)
    if graph_id is None:
        result.details["note"] = "the run has no graph"
    else:
        result.details["graded_graph"] = graph_source(store, run_id, graph_id)
    return RunScore(
        run_id=run_id, judge=judge, protocol="vibesearch", graph_id=graph_id, details=result.details, verdicts=result.verdicts,
        **result.metrics.model_dump(),
    )


def stored_verdicts(store: Store, score_id: int | None) -> list[Verdict]:
    """The verdicts stored under a score (see ``Store.verdicts``)."""
    out = []
    for row in store.verdicts(score_id):
        rule = int(row.rule) if row.rule and row.rule.isdigit() else None
        out.append(
            Verdict(gt_index=row.gt_index, covered=row.covered, rule=rule, evidence=json.loads(row.evidence_json or "[]"), rationale=row.rationale)
        )
    return out
