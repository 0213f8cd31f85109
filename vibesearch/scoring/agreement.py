"""Meta-evaluation: how far judges agree with people, and people with each other (SPEC 8).

* judge ↔ human: percent agreement and Cohen's kappa over the ground-truth triples both decided
  (a judge's unscored triples are left out). Against several annotators the human side is their
  majority (a tie counts as not covered), and each annotator is also compared on their own.
* human ↔ human: Krippendorff's alpha (nominal), from the ``krippendorff`` package.
* the P/R/F1 that the human labels give, beside each judge's score of the same run.

Cohen's kappa is undefined when chance agreement is 1 (both sides used one and the same label
for every item); it is then reported as ``None`` ("n/a"), with the percent agreement still given.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Sequence

from ..store import Store
from .aggregate import latest_scores
from .metrics import f1_of, stored_prediction, stored_verdicts, task_snapshot

Item = tuple[str, int]  # (run id, ground-truth index)


def percent_agreement(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    if len(a) != len(b):
        raise ValueError("the two label lists differ in length")
    return sum(x == y for x, y in zip(a, b)) / len(a) if a else None


def confusion(human: Sequence[bool], judge: Sequence[bool]) -> dict[str, int]:
    """tp: both covered; fn: human covered, judge not; fp: judge covered, human not; tn: neither."""
    pairs = list(zip(human, judge))
    return {
        "tp": sum(1 for h, j in pairs if h and j),
        "fn": sum(1 for h, j in pairs if h and not j),
        "fp": sum(1 for h, j in pairs if not h and j),
        "tn": sum(1 for h, j in pairs if not h and not j),
    }


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa for two raters and two labels; None when undefined (chance agreement 1)."""
    n = len(a)
    if n == 0 or n != len(b):
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def krippendorff_alpha(ratings: dict[str, dict[Item, bool]]) -> float | None:
    """Nominal alpha over annotators' labels; None with fewer than two annotators or one value only."""
    import numpy as np
    import krippendorff

    annotators = sorted(ratings)
    items = sorted({i for r in ratings.values() for i in r})
    if len(annotators) < 2 or not items:
        return None
    data = np.full((len(annotators), len(items)), np.nan)
    for row, name in enumerate(annotators):
        for col, item in enumerate(items):
            if item in ratings[name]:
                data[row, col] = 1.0 if ratings[name][item] else 0.0
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any():
        return None
    try:
        return float(krippendorff.alpha(reliability_data=data[:, pairable], level_of_measurement="nominal"))
    except ValueError:  # a single value in the whole domain: alpha is undefined
        return None


def _agreement_row(human: list[bool], said: list[bool], **extra: Any) -> dict[str, Any]:
    return {
        **extra,
        "n": len(human),
        "agreement": percent_agreement(human, said),
        "kappa": cohen_kappa(human, said),
        "confusion": confusion(human, said),
    }


def human_majority(labels_by_annotator: dict[str, dict[Item, bool]]) -> dict[Item, bool]:
    votes: dict[Item, list[bool]] = defaultdict(list)
    for labels in labels_by_annotator.values():
        for item, covered in labels.items():
            votes[item].append(covered)
    return {item: sum(v) > len(v) - sum(v) for item, v in votes.items()}


def agreement_report(store: Store, run_id: str | None = None) -> dict[str, Any]:
    """Judges against humans and humans against each other, on the labelled runs."""
    rows = store.labels(run_id=run_id)
    by_annotator: dict[str, dict[Item, bool]] = defaultdict(dict)
    evidence: dict[Item, set[int]] = defaultdict(set)
    for row in rows:
        by_annotator[row.annotator][(row.run_id, row.gt_index)] = row.covered
        if row.covered:
            evidence[(row.run_id, row.gt_index)].update(json.loads(row.evidence_json or "[]"))
    majority = human_majority(by_annotator)
    runs = sorted({item[0] for item in majority})
    judges = sorted({s.judge for s in store.scores() if s.run_id in set(runs)})

    judge_rows, annotator_rows = [], []
    for judge in judges:
        latest = latest_scores(store, judge)
        decided: dict[Item, bool] = {}
        for rid in runs:
            if rid in latest:
                for v in stored_verdicts(store, latest[rid].id):
                    if v.covered is not None:
                        decided[(rid, v.gt_index)] = v.covered
        common = [i for i in sorted(majority) if i in decided]
        judge_rows.append(_agreement_row([majority[i] for i in common], [decided[i] for i in common], judge=judge, against="human majority"))
        for name, labels in sorted(by_annotator.items()):
            both = [i for i in sorted(labels) if i in decided]
            annotator_rows.append(_agreement_row([labels[i] for i in both], [decided[i] for i in both], judge=judge, against=name))

    prf = []
    for rid in runs:
        n_gt = len(task_snapshot(store, rid).get("graph") or [])
        pred, _ = stored_prediction(store, rid)
        items = [i for i in majority if i[0] == rid]
        covered = [i for i in items if majority[i]]
        valid = {e for i in covered for e in evidence[i] if 0 <= e < len(pred)}
        recall = len(covered) / len(items) if items else 0.0
        precision = len(valid) / len(pred) if pred else 0.0
        entry: dict[str, Any] = {
            "run_id": rid,
            "n_gt": n_gt,
            "n_labelled": len(items),
            "human": {"precision": precision, "recall": recall, "f1": f1_of(precision, recall)},
            "judges": {},
        }
        for judge in judges:
            score = latest_scores(store, judge).get(rid)
            if score is not None:
                entry["judges"][judge] = {"precision": score.precision, "recall": score.recall, "f1": score.f1, "n_unscored": score.n_unscored}
        prf.append(entry)

    annotators = sorted(by_annotator)
    return {
        "run_id": run_id,
        "n_items": len(majority),
        "n_runs": len(runs),
        "annotators": annotators,
        "judges": judge_rows,
        "judge_vs_annotator": annotator_rows,
        "human_alpha": krippendorff_alpha(dict(by_annotator)) if len(annotators) >= 2 else None,
        "prf": prf,
    }
