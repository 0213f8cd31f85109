"""The official grader's metrics, as pure functions over the judge's coverage result.

For one sample (one run of one task), from the per-ground-truth-triple coverage items:

* triplet recall = covered ground-truth triples / all ground-truth triples (a batch the judge never
  answered counts as not covered), rounded to 4 places *before* F1 is computed from it;
* triplet precision = number of distinct values in the union of ``supporting_pred_indices`` over
  **all** items (covered or not) / number of parsed predictions (raw count, duplicates included);
* node recall = ground-truth node names that are the head or tail of a covered triple / all
  ground-truth node names; node precision = predicted head/tail strings of the supporting predicted
  triples / all distinct predicted head/tail strings; each F1 is the harmonic mean; all rounded to 4.
* A sample with no parsed prediction scores 0 everywhere (and has no coverage details).

Over samples: Avg@N is, per task, the mean over its samples, then the mean over tasks; Best@N
takes, per task, **every** metric from the sample with the best triplet F1 (the first one on a
tie), then the mean over tasks. N is the largest number of samples any task has, unless the
caller pads every task to the official ``--num-samples`` N with 0 samples first (a missing sample is
an empty answer to the official run; ``aggregate.padding_samples``). A run a person cancelled is not
a sample: it is left out and counted.

Where the official code would crash on a malformed judge answer (a support index that is not a
whole number), the value is dropped instead and counted in the judge's batch report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

METRIC_KEYS = ("node_precision", "node_recall", "node_f1", "triplet_precision", "triplet_recall", "triplet_f1")


class GTTriple(BaseModel):
    head: str
    relation: str
    tail: str


@dataclass(frozen=True)
class OfficialGroundTruth:
    """A task's ground truth as the official grader sees it: node names and named triples."""

    node_names: frozenset[str]
    triples: tuple[GTTriple, ...]

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> OfficialGroundTruth:
        """From an official task record (``nodes`` with ids and names, ``triples`` over the ids)."""
        nodes = list(record.get("nodes") or [])
        names = {n["node_id"]: n["node_name"] for n in nodes}

        def name(node_id: Any) -> str:
            return str(names.get(node_id, node_id))

        triples = tuple(
            GTTriple(head=name(t["head_id"]), relation=str(t["relation"]), tail=name(t["tail_id"]))
            for t in record.get("triples") or []
        )
        return cls(node_names=frozenset(name(n["node_id"]) for n in nodes), triples=triples)

    @classmethod
    def from_task(cls, task: Any) -> OfficialGroundTruth:
        """From a loaded ``Task``: its official nodes when it came from the official format, else
        nodes generated from its graph (every head and tail)."""
        from ..tasks.export import task_to_official

        return cls.from_record(task_to_official(task))


class CoverageItem(BaseModel):
    gt_index: int
    gt_triple: GTTriple
    covered: bool
    supporting_pred_indices: list[int]


class CoverageResult(BaseModel):
    total_gt_triples: int
    covered_count: int
    triplet_recall: float
    per_gt_triple: list[CoverageItem]

    @classmethod
    def of(cls, items: Sequence[CoverageItem], total_gt: int) -> CoverageResult:
        covered = sum(1 for i in items if i.covered)
        return cls(
            total_gt_triples=total_gt,
            covered_count=covered,
            triplet_recall=round(covered / total_gt, 4) if total_gt else 0.0,
            per_gt_triple=list(items),
        )


class NodeDetails(BaseModel):
    total_gt_nodes: int
    recalled_gt_nodes: int
    total_pred_nodes: int
    precise_pred_nodes: int
    node_precision: float
    node_recall: float
    node_f1: float


class SampleResult(BaseModel):
    """One graded sample, with the official grader's keys."""

    qid: str
    sample_idx: int
    node_precision: float = 0.0
    node_recall: float = 0.0
    node_f1: float = 0.0
    node_details: NodeDetails | None = None
    triplet_precision: float = 0.0
    triplet_recall: float = 0.0
    triplet_f1: float = 0.0
    coverage_details: CoverageResult | None = None
    num_pred_triples: int = 0

    def official_dict(self) -> dict[str, Any]:
        """The official per-sample record (a sample without predictions has no details)."""
        return self.model_dump(exclude_none=True)

    def metric(self, key: str) -> float:
        return float(getattr(self, key))


def official_f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if (p + r) else 0.0


def support_union(items: Sequence[CoverageItem]) -> set[int]:
    return {i for item in items for i in item.supporting_pred_indices}


def triplet_precision(items: Sequence[CoverageItem], n_pred: int) -> float:
    """Distinct supporting indices over all items / parsed predictions (unrounded)."""
    return len(support_union(items)) / n_pred if n_pred else 0.0


def node_metrics(pred: Sequence[Mapping[str, str]], gt: OfficialGroundTruth, coverage: CoverageResult) -> NodeDetails:
    all_gt = set(gt.node_names)
    all_pred = {str(n) for t in pred for n in (t.get("head", ""), t.get("tail", "")) if n}
    covered_nodes: set[str] = set()
    for item in coverage.per_gt_triple:
        if item.covered and item.gt_index < len(gt.triples):
            t = gt.triples[item.gt_index]
            covered_nodes.update((t.head, t.tail))
    precise: set[str] = set()
    for idx in support_union(coverage.per_gt_triple):
        if -len(pred) <= idx < len(pred):  # the official code indexes the list as Python does
            shown = pred[idx]
            precise.update(str(shown[k]) for k in ("head", "tail") if shown.get(k))
    recalled, total_gt = len(covered_nodes & all_gt), len(all_gt)
    precise_n, total_pred = len(precise & all_pred), len(all_pred)
    r = recalled / total_gt if total_gt else 0.0
    p = precise_n / total_pred if total_pred else 0.0
    return NodeDetails(
        total_gt_nodes=total_gt,
        recalled_gt_nodes=recalled,
        total_pred_nodes=total_pred,
        precise_pred_nodes=precise_n,
        node_precision=round(p, 4),
        node_recall=round(r, 4),
        node_f1=round(official_f1(p, r), 4),
    )


def grade_sample(
    qid: str,
    sample_idx: int,
    pred: Sequence[Mapping[str, str]],
    gt: OfficialGroundTruth,
    coverage: CoverageResult | None,
) -> SampleResult:
    """The official result of one sample; ``coverage`` may be None only when ``pred`` is empty."""
    if not pred:
        return SampleResult(qid=str(qid), sample_idx=sample_idx)
    if coverage is None:
        raise ValueError("a sample with predictions needs the judge's coverage result")
    precision = triplet_precision(coverage.per_gt_triple, len(pred))
    recall = coverage.triplet_recall
    nodes = node_metrics(pred, gt, coverage)
    return SampleResult(
        qid=str(qid),
        sample_idx=sample_idx,
        node_precision=nodes.node_precision,
        node_recall=nodes.node_recall,
        node_f1=nodes.node_f1,
        node_details=nodes,
        triplet_precision=round(precision, 4),
        triplet_recall=recall,
        triplet_f1=round(official_f1(precision, recall), 4),
        coverage_details=coverage,
        num_pred_triples=len(pred),
    )


# ------------------------------------------------------------------------------ Avg@N / Best@N
@dataclass
class QueryScores:
    qid: str
    num_samples: int
    avg: dict[str, float]
    best: dict[str, float]
    best_sample_idx: int


@dataclass
class OfficialSummary:
    n: int  # N of Avg@N / Best@N: the most samples any task has
    avg: dict[str, float]
    best: dict[str, float]
    num_queries: int
    per_query: list[QueryScores]
    left_out: list[tuple[str, int]] = field(default_factory=list)  # (qid, sample_idx) of cancelled runs
    padded: dict[str, int] = field(default_factory=dict)  # qid -> 0 samples added to reach N (``--num-samples``)

    def official_dict(self) -> dict[str, Any]:
        """The summary with the official keys (``avg@3_triplet_f1`` ...), in the official order."""
        out: dict[str, Any] = {}
        for k in METRIC_KEYS:
            out[f"avg@{self.n}_{k}"] = self.avg[k]
            out[f"best@{self.n}_{k}"] = self.best[k]
        out["num_queries"] = self.num_queries
        out["num_samples"] = self.n
        return out


def aggregate_official(results: Sequence[SampleResult], cancelled: Sequence[tuple[str, int]] = ()) -> OfficialSummary:
    """Avg@N and Best@N over graded samples. Runs that ended without a parsable graph must be
    passed as zero samples (``grade_sample(qid, i, [], gt, None)``); runs a person cancelled go in
    ``cancelled`` and are only counted."""
    by_qid: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        by_qid[r.qid].append(r)
    per_query: list[QueryScores] = []
    for qid, samples in by_qid.items():
        samples = sorted(samples, key=lambda s: s.sample_idx)
        best = max(samples, key=lambda s: s.triplet_f1)  # max keeps the first of equals
        per_query.append(
            QueryScores(
                qid=qid,
                num_samples=len(samples),
                avg={k: sum(s.metric(k) for s in samples) / len(samples) for k in METRIC_KEYS},
                best={k: best.metric(k) for k in METRIC_KEYS},
                best_sample_idx=best.sample_idx,
            )
        )
    n = max((q.num_samples for q in per_query), default=1)

    def mean_of(part: str, k: str) -> float:
        values = [getattr(q, part)[k] for q in per_query]
        return round(sum(values) / len(values), 4) if values else 0.0

    return OfficialSummary(
        n=n,
        avg={k: mean_of("avg", k) for k in METRIC_KEYS},
        best={k: mean_of("best", k) for k in METRIC_KEYS},
        num_queries=len(per_query),
        per_query=sorted(per_query, key=lambda q: q.qid),
        left_out=[(str(q), int(i)) for q, i in cancelled],
    )
