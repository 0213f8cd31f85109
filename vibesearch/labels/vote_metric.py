"""The metric against the votes: does a higher triple F1 predict the run people prefer?
(docs/votes.md)

Per voted pair, every measure is side A's run minus side B's run (``MEASURES``):

* ``f1``, ``precision``, ``recall``: the run's stored score (``scoring.aggregate.collect_runs``:
  the latest score by the report's judge, under the vibesearch profile when the run has one there);
* ``stages``: the persona stages the run reached (``RunStats.stages_reached``);
* ``answer_chars``: the length in characters of the agent's last reply to the user
  (``Conversation.last_reply``);
* ``citations``: the distinct web addresses (``http://`` / ``https://``) in that reply.

Only decisive votes (A or B) are read here. ``p_prefer_higher_f1``: a logistic regression
(statsmodels' binomial GLM, no intercept: the model is symmetric in the sides) of "A preferred"
on ΔF1, P = 1 / (1 + exp(−β·ΔF1)); the probability of preferring the higher-F1 run at a
difference d is that curve at d, with the model's 95% interval. ``share`` is the observed share of
votes (with ΔF1 ≠ 0) that prefer the higher-F1 run. The predictors table gives, per measure, the
votes it can speak on (Δ ≠ 0), its accuracy (the share of those where the run with the higher
value won) and its AUC (the probability that Δ is larger for a vote A won than for one B won,
ties in Δ half: Mann–Whitney). ``disagreements`` lists the votes where people preferred the lower-F1 run.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from ..run.conversation import Conversation
from ..scoring.aggregate import RunRecord
from ..store import Store, VoteRow
from .votes import winning_run

MEASURES = ("f1", "precision", "recall", "stages", "answer_chars", "citations")
CURVE_AT = (0.05, 0.1, 0.2, 0.3, 0.5)  # ΔF1 at which p(prefer the higher-F1 run) is given
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`]+")
_TRAILING = ".,;:!?"


def citations(text: str) -> int:
    """The distinct web addresses in ``text`` (trailing punctuation is not part of one)."""
    return len({m.group(0).rstrip(_TRAILING) for m in _URL.finditer(text)})


def final_answers(store: Store, run_ids: Sequence[str]) -> dict[str, str]:
    """Each run's last reply to the user ("" when it gave none)."""
    return {rid: Conversation.from_events(store.events(rid)).last_reply() or "" for rid in run_ids}


def run_measures(records: Mapping[str, RunRecord], answers: Mapping[str, str]) -> dict[str, dict[str, float | None]]:
    """Each run's measures (None where unknown: not scored, no stages)."""
    out: dict[str, dict[str, float | None]] = {}
    for rid, rec in records.items():
        answer = answers.get(rid, "")
        stages = rec.stats.stages_reached
        out[rid] = {"f1": rec.f1, "precision": rec.precision, "recall": rec.recall,
                    "stages": None if stages is None else float(stages),
                    "answer_chars": float(len(answer.strip())), "citations": float(citations(answer))}
    return out


def deltas(votes: Sequence[VoteRow], measures: Mapping[str, Mapping[str, float | None]]) -> list[dict[str, Any]]:
    """Each decisive vote with side A's minus side B's measures (None where either is unknown)."""
    out = []
    for v in votes:
        if v.winner not in ("a", "b"):
            continue
        ma, mb = measures.get(v.run_a, {}), measures.get(v.run_b, {})
        d = {}
        for key in MEASURES:
            x, y = ma.get(key), mb.get(key)
            d[key] = None if x is None or y is None else float(x) - float(y)
        out.append({"vote": v, "a_won": v.winner == "a", "delta": d})
    return out


def _auc(pos: np.ndarray, neg: np.ndarray) -> float | None:
    if not len(pos) or not len(neg):
        return None
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg)))


def predictors(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per measure: votes it speaks on, accuracy and AUC; best (highest AUC) first."""
    table = []
    for key in MEASURES:
        known = [(r["delta"][key], r["a_won"]) for r in rows if r["delta"][key] is not None]
        speaking = [(d, won) for d, won in known if d != 0]
        right = sum((d > 0) == won for d, won in speaking)
        pos = np.array([d for d, won in known if won])
        neg = np.array([d for d, won in known if not won])
        table.append({"measure": key, "votes": len(known), "decided": len(speaking),
                      "accuracy": right / len(speaking) if speaking else None, "auc": _auc(pos, neg)})
    return sorted(table, key=lambda t: (t["auc"] is None, -(t["auc"] or 0.0), t["measure"]))


def p_prefer_higher_f1(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The logistic fit of "A preferred" on ΔF1, its curve at ``CURVE_AT`` and the observed share."""
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    from ..scoring.bootstrap import bootstrap_mean

    known = [(r["delta"]["f1"], r["a_won"]) for r in rows if r["delta"]["f1"] is not None]
    differing = [(d, won) for d, won in known if d != 0]
    higher = [float((d > 0) == won) for d, won in differing]
    out: dict[str, Any] = {"votes": len(known), "votes_with_f1_difference": len(differing),
                           "share": float(np.mean(higher)) if higher else None, "share_ci": bootstrap_mean(higher),
                           "slope": None, "slope_ci": None, "curve": [], "note": ""}
    if len(differing) < 2:
        out["note"] = "fewer than two votes between runs of different F1: no fit"
        return out
    x = np.array([[d] for d, _ in known])
    y = np.array([float(won) for _, won in known])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        try:
            res = sm.GLM(y, x, family=sm.families.Binomial()).fit()
        except (PerfectSeparationWarning, np.linalg.LinAlgError, ValueError, ZeroDivisionError):
            out["note"] = "the votes follow ΔF1 without exception (perfect separation): the slope is unbounded"
            return out
    low, high = (float(v) for v in np.asarray(res.conf_int())[0])
    out["slope"], out["slope_ci"] = float(np.asarray(res.params)[0]), [low, high]
    frame = res.get_prediction(np.array([[d] for d in CURVE_AT])).summary_frame(alpha=0.05)
    out["curve"] = [{"delta_f1": d, "p": float(p), "ci": [float(lo), float(hi)]}
                    for d, p, lo, hi in zip(CURVE_AT, frame["mean"], frame["mean_ci_lower"], frame["mean_ci_upper"])]
    return out


def disagreements(rows: Sequence[dict[str, Any]], measures: Mapping[str, Mapping[str, float | None]],
                  task_of: Mapping[str, str]) -> dict[str, Any]:
    """The votes (with ΔF1 ≠ 0) where people preferred the lower-F1 run: their share and the list."""
    differing = [r for r in rows if r["delta"]["f1"] not in (None, 0.0)]
    against = [r for r in differing if (r["delta"]["f1"] > 0) != r["a_won"]]
    pairs = []
    for r in against:
        v: VoteRow = r["vote"]
        pairs.append({"task_id": task_of.get(v.run_a, ""), "run_a": v.run_a, "run_b": v.run_b, "winner": v.winner,
                      "preferred": winning_run(v), "f1_a": measures[v.run_a]["f1"], "f1_b": measures[v.run_b]["f1"],
                      "voter": v.voter, "reason": v.reason})
    return {"share": len(against) / len(differing) if differing else None, "votes": len(differing), "pairs": pairs}
