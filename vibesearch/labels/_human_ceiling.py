"""What people's labels say of themselves, to read a judge's agreement against (issue 37):

* the *human ceiling*: how often two people agree with each other on the items labelled by two or
  more of them — for each such item the share of its pairs of labels that agree, averaged over
  the items (Gwet's p_a), with the number of items and pairs and a 95% percentile-bootstrap
  interval over the labelled items (``_bootstrap.resampled_intervals``, the same resamples as
  the AC1's); ``None`` when no item has two labels;
* Gwet's AC1 between the people (``gwet_ac1``): chance-corrected like kappa, but its chance
  agreement 2·π·(1−π) stays small when nearly every item has the same label, where kappa
  collapses toward 0 (most ground-truth triples uncovered is such a case);
* the *prevalence* of the positive label ("covered", "valid") among the final human labels.

``gwet_ac1`` is the general formula (any number of raters per item, any categories; Gwet,
*Handbook of Inter-Rater Reliability*, 4th ed., 2014, ch. 4): p_a = the mean over items with at
least two ratings of Σ_k r_k(r_k−1) / (r(r−1)); π_k = the mean over every rated item of r_k / r;
p_e = Σ_k π_k(1−π_k) / (q−1); AC1 = (p_a − p_e) / (1 − p_e). The two-rater case on counts, which
the bootstrap of a judge's rows needs vectorised, is ``_bootstrap._measures``'s ``ac1``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from ..scoring.bootstrap import bootstrap_mean, resampled_intervals


def gwet_ac1(ratings: Sequence[Sequence[Hashable]], categories: Sequence[Hashable] | None = None) -> tuple[float, float, float] | None:
    """(AC1, p_a, p_e) of ``ratings`` (one list of ratings per item; items with one rating count
    in π only); ``categories``: the possible labels (default: those seen). None when no item has
    two ratings or fewer than two categories are possible."""
    items = [list(r) for r in ratings if len(r) >= 1]
    cats = list(categories) if categories is not None else sorted({c for r in items for c in r}, key=repr)
    paired = [r for r in items if len(r) >= 2]
    if not paired or len(cats) < 2:
        return None
    pa = sum(sum(k * (k - 1) for k in Counter(r).values()) / (len(r) * (len(r) - 1)) for r in paired) / len(paired)
    pi = [sum(Counter(r)[c] / len(r) for r in items) / len(items) for c in cats]
    pe = sum(p * (1 - p) for p in pi) / (len(cats) - 1)
    return (pa - pe) / (1 - pe), pa, pe


def _pair_agreement(votes: Sequence[bool]) -> float:
    """The share of an item's pairs of labels that agree (two or more labels)."""
    m, yes = len(votes), sum(votes)
    return (yes * (yes - 1) + (m - yes) * (m - yes - 1)) / (m * (m - 1))


def _resampled(agree: Any, paired: Any, shares: Any) -> Callable[[Any], list[Any]]:
    """Per block of resampled index rows, the ceiling and AC1 of each resample, from each item's
    pair agreement (0 without two labels), whether it has two labels, and its share of "yes"."""

    def statistics(idx: Any) -> list[Any]:
        a, p, s = (np.take(x, idx).sum(axis=1) for x in (agree, paired, shares))
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = a / p
            pi = s / idx.shape[1]
            pe = 2 * pi * (1 - pi)
            return [pa, (pa - pe) / (1 - pe)]

    return statistics


def human_ceiling(votes: Mapping[Any, Sequence[bool]]) -> dict[str, Any] | None:
    """People against people over ``votes`` (each item's labels, one per annotator): the mean
    pair agreement of the items with two or more labels (``agreement``), ``n_items``, ``n_pairs``
    and Gwet's ``ac1``, with 95% intervals (``ci``, ``ac1_ci``) over the same resamples of the
    labelled items. None without an item labelled twice."""
    labelled = [list(v) for v in votes.values() if v]
    paired_items = [v for v in labelled if len(v) >= 2]
    if not paired_items:
        return None
    per_item = [_pair_agreement(v) for v in paired_items]
    got = gwet_ac1(labelled, (False, True))
    agree = np.array([_pair_agreement(v) if len(v) >= 2 else 0.0 for v in labelled])
    paired = np.array([float(len(v) >= 2) for v in labelled])
    shares = np.array([sum(v) / len(v) for v in labelled])
    ci, ac1_ci = resampled_intervals(len(labelled), _resampled(agree, paired, shares))
    return {
        "agreement": sum(per_item) / len(per_item),
        "ci": ci,
        "n_items": len(paired_items),
        "n_pairs": sum(len(v) * (len(v) - 1) // 2 for v in paired_items),
        "ac1": got[0] if got else None,
        "ac1_ci": ac1_ci,
    }


def prevalence(labels: Sequence[bool], positive: str) -> dict[str, Any]:
    """The share of ``labels`` that are positive, with its interval: ``{"label", "share", "n", "ci"}``."""
    labels = list(labels)
    return {"label": positive, "share": sum(labels) / len(labels) if labels else None, "n": len(labels),
            "ci": bootstrap_mean([1.0 if x else 0.0 for x in labels])}
