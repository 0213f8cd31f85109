"""What the agreement report compares: the people's labels of one side, every judge's decisions
on the same items (one judge per judge name and protocol profile, its latest score of each run),
and each item's group (the run's task language and subset, the triple's relation).

Items are ``(run id, index)``: a ground-truth index on the coverage side, a predicted index on
the validity side. A judge calls a predicted triple valid when it supports a ground-truth triple
the judge called covered (as ``meta_eval_csv.judge_sides`` does); a judge's unscored ground-truth
triples are left out.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Callable, Iterable, Sequence

from ..store import Store
from ..store.tables import ScoreRow
from ..tasks.models import Task
from ..scoring.stored import stored_prediction, stored_task
from ..scoring.metrics import stored_verdicts
from ..scoring.profile import profile_label
from ._final_label import Side as Side  # (re-exported: the agreement modules name a side this way)

Item = tuple[str, int]
JudgeKey = tuple[str, str]  # (judge, profile label)
SPLITS = ("language", "subset", "relation")
UNKNOWN = "(unknown)"


def side_labels(store: Store, side: Side, run_id: str | None, *, keep_run: Callable[[str], bool] | None = None
                ) -> tuple[dict[str, dict[Item, bool]], dict[Item, set[int]]]:
    """Per annotator their labels of the side, and the evidence of the positive labels
    (``keep_run``: only the labels of the run ids it accepts)."""
    by_annotator: dict[str, dict[Item, bool]] = defaultdict(dict)
    evidence: dict[Item, set[int]] = defaultdict(set)
    rows: Iterable[tuple[str, int, str, bool, str]]
    if side == "coverage":
        rows = ((r.run_id, r.gt_index, r.annotator, r.covered, r.evidence_json) for r in store.labels(run_id=run_id))
    else:
        rows = ((r.run_id, r.pred_index, r.annotator, r.valid, r.evidence_json) for r in store.pred_labels(run_id=run_id))
    for rid, index, annotator, yes, ev in rows:
        if keep_run is not None and not keep_run(rid):
            continue
        by_annotator[annotator][(rid, index)] = yes
        if yes:
            evidence[(rid, index)].update(int(e) for e in json.loads(ev or "[]"))
    return dict(by_annotator), evidence


def latest_by_judge(store: Store, runs: Sequence[str]) -> dict[JudgeKey, dict[str, ScoreRow]]:
    """Per (judge, profile) the latest score of each of ``runs`` it scored."""
    wanted = set(runs)
    out: dict[JudgeKey, dict[str, ScoreRow]] = defaultdict(dict)
    for s in store.scores():  # ordered by id: later scores replace earlier ones
        if s.run_id in wanted:
            out[(s.judge, profile_label(s.protocol, s.prompt_source))][s.run_id] = s
    return dict(sorted(out.items()))


def judge_decisions(store: Store, side: Side, runs: Sequence[str]) -> dict[JudgeKey, dict[Item, bool]]:
    """Per (judge, profile) its decision on each item of the side."""
    out: dict[JudgeKey, dict[Item, bool]] = {}
    n_pred: dict[str, int] = {}
    for key, scores in latest_by_judge(store, runs).items():
        said: dict[Item, bool] = {}
        for rid, score in scores.items():
            verdicts = stored_verdicts(store, score.id)
            if side == "coverage":
                said.update({(rid, v.gt_index): v.covered for v in verdicts if v.covered is not None})
                continue
            if rid not in n_pred:
                n_pred[rid] = len(stored_prediction(store, rid)[0])
            supported = {e for v in verdicts if v.covered for e in v.evidence}
            said.update({(rid, p): p in supported for p in range(n_pred[rid])})
        out[key] = said
    return out


def item_groups(store: Store, side: Side, items: Sequence[Item]) -> dict[Item, dict[str, str]]:
    """Each item's language and subset (of the run's task) and relation (of the triple)."""
    runs: dict[str, tuple[Task | None, list[dict[str, Any]]]] = {}
    out: dict[Item, dict[str, str]] = {}
    for rid, index in items:
        if rid not in runs:
            task = stored_task(store, rid)
            if side == "coverage":
                triples = [t.model_dump() for t in task.graph] if task is not None else []
            else:
                triples = stored_prediction(store, rid)[0]
            runs[rid] = (task, triples)
        task, triples = runs[rid]
        triple = triples[index] if 0 <= index < len(triples) else {}
        out[(rid, index)] = {
            "language": task.language if task is not None else UNKNOWN,
            "subset": task.subset if task is not None else UNKNOWN,
            "relation": " ".join(str(triple.get("relation") or "").split()) or UNKNOWN,
        }
    return out


def split(items: Sequence[Item], groups: dict[Item, dict[str, str]], key: str) -> list[tuple[str, list[Item]]]:
    """The items grouped by one split key, groups in name order."""
    by: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by[groups.get(item, {}).get(key, UNKNOWN)].append(item)
    return sorted(by.items())
