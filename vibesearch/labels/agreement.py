"""Meta-evaluation: how far judges agree with people, and people with each other (SPEC 8).

Two sides, reported alike: coverage (per ground-truth triple, "covered") and validity (per
predicted triple, "valid").

* judge ↔ human: for every judge that scored the labelled runs — a judge is a judge name under one
  protocol profile (``profile.profile_label``), its latest score of each run — percent agreement,
  Cohen's kappa, and the precision and recall of its positive decisions against the people's,
  each with a 95% percentile-bootstrap interval over the items (``_bootstrap``), over the items
  both decided (a judge's unscored triples are left out). Against several annotators the human
  side is each item's final label (``_final_label``, the one rule): the adjudication where a
  disagreement was resolved (a campaign's third person, ``campaigns.adjudicate``), else the
  annotators' strict majority; an even split nobody resolved is an open tie, left out and counted
  (``n_open_ties``); split also by the task's language and subset and the triple's relation; each
  annotator is also compared on their own.
* human ↔ human: Krippendorff's alpha (nominal), from the ``krippendorff`` package; and the
  human ceiling (``_human_ceiling``): how often two people agree on the items two or more of them
  labelled, with its N and interval and Gwet's AC1 between them (``human_ceiling``, None when no
  item has two labels), the number to read each judge's agreement against.
* the prevalence of the positive label among the final human labels (``prevalence``), and on
  every judge row its Gwet's AC1 (``ac1``, robust where one label dominates and kappa collapses)
  and the positive shares of both sides on its items (``prevalence``: ``human``, ``judge``).
* the P/R/F1 that the human labels give, beside each judge's score of the same run.

Cohen's kappa is undefined when chance agreement is 1 (both sides used one and the same label
for every item); it is then reported as ``None`` ("n/a"), with the percent agreement still given.
When one side used a single label, kappa is 0 or undefined; ``kappa_explanation`` says so in words.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Hashable, Mapping, Sequence

from ..store import Store
from ._agreement_items import SPLITS, Item, Side, item_groups, judge_decisions, latest_by_judge, side_labels, split
from ..scoring.bootstrap import bootstrap_intervals, bootstrap_settings, point_measures
from ._final_label import FinalLabels, final_labels
from ._human_ceiling import human_ceiling, prevalence
from ..scoring.stored import stored_ground_truth, stored_prediction
from ..scoring.metrics import f1_of
from ..scoring.profile import profile_label
from ..judges.registry import judge_label

__all__ = ["Item", "agreement_report", "agreement_row", "cohen_kappa", "confusion", "human_final", "human_majority", "judge_rows",
           "kappa_explanation", "krippendorff_alpha", "percent_agreement", "validity_agreement"]

KeepRun = Callable[[str], bool]


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


def kappa_explanation(
    conf: dict[str, int], *, judge: str = "the judge", human: str = "the annotator", positive: str = "covered", unit: str = "triple"
) -> str | None:
    """Why Cohen's kappa says nothing here, in words, or None when it is informative.

    ``conf`` is a ``confusion()`` dict (human first, judge second). When one side gave the same
    label to every triple, kappa is 0 whatever the other side did (the single-class side agrees
    only by chance), and when both gave the same single label it is undefined (chance agreement
    is 1); either way the percent agreement is the number to read. ``positive`` names the label
    ("covered", or "valid" on the validity side) and ``unit`` the items.
    """
    n = sum(conf.get(k, 0) for k in ("tp", "fn", "fp", "tn"))
    if n == 0:
        return None
    h_cov, j_cov = conf.get("tp", 0) + conf.get("fn", 0), conf.get("tp", 0) + conf.get("fp", 0)

    def single(covered: int) -> str | None:
        return positive if covered == n else f"not {positive}" if covered == 0 else None

    hs, js = single(h_cov), single(j_cov)
    every = f"the one {unit}" if n == 1 else f"all {n} {unit}s"
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


def krippendorff_alpha(ratings: Mapping[str, Mapping[Any, Any]]) -> float | None:
    """Nominal alpha over annotators' values per item (labels' booleans, votes' outcomes); None
    with fewer than two annotators or one value only. Values are coded by their order of first
    appearance (nominal alpha does not depend on the codes)."""
    import numpy as np
    import krippendorff

    annotators = sorted(ratings)
    items = sorted({i for r in ratings.values() for i in r}, key=repr)
    if len(annotators) < 2 or not items:
        return None
    codes: dict[Hashable, float] = {}
    data = np.full((len(annotators), len(items)), np.nan)
    for row, name in enumerate(annotators):
        for col, item in enumerate(items):
            if item in ratings[name]:
                data[row, col] = codes.setdefault(ratings[name][item], float(len(codes)))
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any():
        return None
    try:
        return float(krippendorff.alpha(reliability_data=data[:, pairable], level_of_measurement="nominal"))
    except ValueError:  # a single value in the whole domain: alpha is undefined
        return None


def _votes(labels_by_annotator: dict[str, dict[Item, bool]]) -> dict[Item, list[bool]]:
    votes: dict[Item, list[bool]] = defaultdict(list)
    for labels in labels_by_annotator.values():
        for item, said in labels.items():
            votes[item].append(said)
    return dict(votes)


def human_majority(labels_by_annotator: dict[str, dict[Item, bool]]) -> dict[Item, bool]:
    """Each item's strict majority; an even split has none (left out)."""
    return final_labels(_votes(labels_by_annotator), {}).labels


def human_final(store: Store, side: Side, labels_by_annotator: dict[str, dict[Item, bool]]) -> FinalLabels[Item]:
    """Each labelled item's final human label by the one rule (``_final_label.final_labels``): its
    adjudication when a disagreement on it was resolved, else the strict majority; with how many
    items an adjudication decided and the open ties (left out)."""
    votes = _votes(labels_by_annotator)
    runs = sorted({item[0] for item in votes})
    adjudications = {(a.run_id, a.item_index): a.label for a in (store.adjudications(runs) if runs else []) if a.side == side}
    return final_labels(votes, adjudications)


def agreement_row(
    human: Sequence[bool], said: Sequence[bool], *, positive: str = "covered", unit: str = "triple", who: str = "the annotator", **extra: Any
) -> dict[str, Any]:
    """One comparison: agreement, kappa, Gwet's AC1, precision and recall of the positive label
    (judge against people), each with its bootstrap interval (``ci``), the share of the positive
    label on each side (``prevalence``), the confusion counts, and in
    ``kappa_note`` why kappa says nothing when one side used a single label."""
    human, said = list(human), list(said)
    conf = confusion(human, said)
    point = point_measures(human, said)
    judge = extra.get("judge")
    return {
        **extra,
        "n": len(human),
        "agreement": percent_agreement(human, said),
        "kappa": cohen_kappa(human, said),
        "ac1": point["ac1"],
        "prevalence": {"human": sum(human) / len(human) if human else None, "judge": sum(said) / len(said) if said else None},
        "precision": point["precision"],
        "recall": point["recall"],
        "confusion": conf,
        "ci": bootstrap_intervals(human, said),
        "kappa_note": kappa_explanation(conf, judge=judge_label(judge) if judge else "the judge", human=who, positive=positive, unit=unit),
    }


def _side_report(side: Side, store: Store, run_id: str | None, *, keep_run: KeepRun | None = None, detail: bool = True) -> dict[str, Any]:
    """One side: every judge (per profile) against the final human labels (``human_final``: an
    adjudication, else the strict majority; open ties left out and counted), split by language,
    subset and relation, against each annotator, alpha between annotators, the human ceiling and
    the prevalence of the positive final label. ``keep_run``: only the labels of the runs it
    accepts; ``detail`` False: the judges' overall rows, the ceiling and the prevalence only (no
    splits, no rows per annotator, no alpha)."""
    by_annotator, _ = side_labels(store, side, run_id, keep_run=keep_run)
    final = human_final(store, side, by_annotator)
    majority = final.labels
    labelled = sorted({i for labels in by_annotator.values() for i in labels} | set(majority))
    runs = sorted({item[0] for item in labelled})
    groups = item_groups(store, side, sorted(majority)) if detail else {}
    positive, unit = ("covered", "ground-truth triple") if side == "coverage" else ("valid", "predicted triple")
    judge_rows, annotator_rows = [], []
    for (judge, profile), said in judge_decisions(store, side, runs).items():
        common = [i for i in sorted(majority) if i in said]
        row = agreement_row([majority[i] for i in common], [said[i] for i in common], positive=positive, unit=unit,
                            who="the human majority", judge=judge, profile=profile, against="human majority")
        judge_rows.append(row)
        if not detail:
            continue
        row["by"] = {
            key: [agreement_row([majority[i] for i in members], [said[i] for i in members], positive=positive, unit=unit,
                                who="the human majority", judge=judge, profile=profile, against="human majority", group=value)
                  for value, members in split(common, groups, key)]
            for key in SPLITS
        }
        for name, labels in sorted(by_annotator.items()):
            both = [i for i in sorted(labels) if i in said]
            annotator_rows.append(agreement_row([labels[i] for i in both], [said[i] for i in both], positive=positive, unit=unit,
                                                who=name, judge=judge, profile=profile, against=name))
    annotators = sorted(by_annotator)
    return {
        "side": side,
        "n_items": len(labelled),  # every labelled item, open ties included
        "n_final": len(majority),  # the items with a final label: what the judges are compared on
        "n_adjudicated": final.adjudicated,  # items whose human side is an adjudication, not the majority
        "n_open_ties": final.n_open_ties,  # items split evenly and not resolved: left out of agreement
        "n_runs": len(runs),
        "annotators": annotators,
        "judges": judge_rows,
        "judge_vs_annotator": annotator_rows,
        "human_alpha": krippendorff_alpha(dict(by_annotator)) if detail and len(annotators) >= 2 else None,
        # people against people on the items two or more of them labelled (None: no such item)
        "human_ceiling": human_ceiling(_votes(by_annotator)),
        "prevalence": prevalence([majority[i] for i in sorted(majority)], positive),
    }


def judge_rows(store: Store, side: Side = "coverage", *, keep_run: KeepRun | None = None) -> dict[str, Any]:
    """One side's judge rows against the final human labels over every labelled run (``keep_run``:
    the runs it accepts), without the splits, the per-annotator rows and alpha: what
    ``judge_trust`` reads. The same computation as ``agreement_report``'s rows."""
    return _side_report(side, store, None, keep_run=keep_run, detail=False)


def agreement_report(store: Store, run_id: str | None = None, *, keep_run: KeepRun | None = None) -> dict[str, Any]:
    """Judges against humans and humans against each other, on the labelled runs: the coverage
    side at the top level (with the P/R/F1 the labels give, ``prf``), the validity side under
    ``validity``, and how the intervals were made under ``bootstrap``. Items without a final
    label (open ties) are left out of every comparison and counted in ``n_open_ties``."""
    report = _side_report("coverage", store, run_id, keep_run=keep_run)
    by_annotator, evidence = side_labels(store, "coverage", run_id, keep_run=keep_run)
    majority = human_final(store, "coverage", by_annotator).labels
    prf = []
    for rid in sorted({item[0] for item in majority}):
        n_gt = len(stored_ground_truth(store, rid))
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
        for (judge, profile), score in latest_by_judge(store, [rid]).items():
            name = judge if profile == profile_label("vibesearch") else f"{judge} · {profile}"
            score_row = score[rid]
            entry["judges"][name] = {"precision": score_row.precision, "recall": score_row.recall, "f1": score_row.f1,
                                     "n_unscored": score_row.n_unscored, "profile": profile}
        prf.append(entry)
    return {"run_id": run_id, **report, "prf": prf, "validity": _side_report("validity", store, run_id, keep_run=keep_run),
            "bootstrap": bootstrap_settings()}


def validity_agreement(store: Store, run_id: str | None = None) -> dict[str, Any]:
    """The validity side alone (items are (run id, predicted index)); see ``agreement_report``."""
    return _side_report("validity", store, run_id)
