"""Meta-evaluation: how far judges agree with people, and people with each other (SPEC 8).

* judge ↔ human: percent agreement and Cohen's kappa over the ground-truth triples both decided
  (a judge's unscored triples are left out). Against several annotators the human side is their
  majority (a tie counts as not covered), and each annotator is also compared on their own.
* human ↔ human: Krippendorff's alpha (nominal), from the ``krippendorff`` package.
* the P/R/F1 that the human labels give, beside each judge's score of the same run.

Cohen's kappa is undefined when chance agreement is 1 (both sides used one and the same label
for every item); it is then reported as ``None`` ("n/a"), with the percent agreement still given.
When one side used a single label, kappa is 0 or undefined; ``kappa_explanation`` says so in words.
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


def kappa_explanation(conf: dict[str, int], *, judge: str = "the judge", human: str = "the annotator") -> str | None:
    """Why Cohen's kappa says nothing here, in words, or None when it is informative.

    ``conf`` is a ``confusion()`` dict (human first, judge second). When one side gave the same
    label to every triple, kappa is 0 whatever the other side did (the single-class side agrees
    only by chance), and when both gave the same single label it is undefined (chance agreement
    is 1); either way the percent agreement is the number to read.
    """
    n = sum(conf.get(k, 0) for k in ("tp", "fn", "fp", "tn"))
    if n == 0:
        return None
    h_cov, j_cov = conf.get("tp", 0) + conf.get("fn", 0), conf.get("tp", 0) + conf.get("fp", 0)

    def single(covered: int) -> str | None:
        return "covered" if covered == n else "not covered" if covered == 0 else None

    hs, js = single(h_cov), single(j_cov)
    every = "the one triple" if n == 1 else f"all {n} triples"
    if hs and js and hs == js:
        return (f"κ is undefined: both {judge} and {human} said \"{hs}\" for {every}, so agreement expected "
                "by chance is complete; read the percent agreement instead.")
    if hs and js:
        return (f"κ is 0 because {judge} said \"{js}\" and {human} said \"{hs}\" for {every}: with a single "
                "class on each side, κ cannot show agreement beyond chance; read the percent agreement instead.")
    if js:
        return (f"κ is 0 because {judge} said \"{js}\" for {every}: with a single class on one side, "
                "κ cannot show agreement beyond chance; read the percent agreement instead.")
    if hs:
        return (f"κ is 0 because {human} said \"{hs}\" for {every}: with a single class on one side, "
                "κ cannot show agreement beyond chance; read the percent agreement instead.")
    return None


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
        "validity": validity_agreement(store, run_id),
    }


def validity_agreement(store: Store, run_id: str | None = None) -> dict[str, Any]:
    """The validity side: judges against people on predicted triples (items are (run id,
    predicted index)). A judge calls a predicted triple valid when it supports a ground-truth
    triple the judge called covered (see ``meta_eval_csv.judge_sides``); runs the judge never
    scored are left out of its rows."""
    from .meta_eval_csv import judge_sides

    by_annotator: dict[str, dict[Item, bool]] = defaultdict(dict)
    for row in store.pred_labels(run_id=run_id):
        by_annotator[row.annotator][(row.run_id, row.pred_index)] = row.valid
    majority = human_majority(by_annotator)
    runs = sorted({item[0] for item in majority})
    judges = sorted({s.judge for s in store.scores() if s.run_id in set(runs)})
    judge_rows, annotator_rows = [], []
    for judge in judges:
        said: dict[Item, bool] = {}
        for rid in runs:
            sides = judge_sides(store, rid, judge)
            said.update({(rid, p): v for p, v in sides.valid.items()})
        common = [i for i in sorted(majority) if i in said]
        judge_rows.append(_agreement_row([majority[i] for i in common], [said[i] for i in common], judge=judge, against="human majority"))
        for name, labels in sorted(by_annotator.items()):
            both = [i for i in sorted(labels) if i in said]
            annotator_rows.append(_agreement_row([labels[i] for i in both], [said[i] for i in both], judge=judge, against=name))
    annotators = sorted(by_annotator)
    return {
        "n_items": len(majority),
        "n_runs": len(runs),
        "annotators": annotators,
        "judges": judge_rows,
        "judge_vs_annotator": annotator_rows,
        "human_alpha": krippendorff_alpha(dict(by_annotator)) if len(annotators) >= 2 else None,
    }
