"""How far the votes can be trusted (docs/votes.md): attention checks, position bias, each voter's
agreement with the others' majority, the voters flagged as outliers, and the agreement between voters.

* Attention: a vote on an attention item (``attention`` names the side it expects) passes when it
  picks that side; a vote between a run whose final answer is empty and one whose answer is not
  fails when it prefers the empty one.
* Position bias: the share of decisive votes for side A, with its 95% interval (Clopper–Pearson)
  and a two-sided binomial test against 0.5 (sides are shown in random order, so a fair voter
  picks A half the time).
* Agreement with the majority: for each of a voter's votes on a pair others voted on too, is the
  vote's outcome (the preferred run, tie or both bad) the others' strict plurality? Pairs without
  one are skipped.
* Outliers (as FastChat/Arena flag anomalous voters): a voter who failed an attention check, or
  whose agreement with the majority is below the pool's rate beyond chance (a one-sided binomial
  test, p < ``OUTLIER_P`` divided by the number of voters tested: Bonferroni), given at least
  ``MIN_COMPARED`` compared votes.
* Voter agreement: Krippendorff's alpha (nominal) over the pairs, the values being the outcomes
  (``agreement.krippendorff_alpha``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Mapping, Sequence

from ..store import VoteRow
from .agreement import krippendorff_alpha
from .votes import outcome, pair_key

OUTLIER_P = 0.05
MIN_COMPARED = 5


def attention(votes: Sequence[VoteRow], answers: Mapping[str, str]) -> dict[str, Any]:
    """Attention checks: how many votes were checked, how many failed, and per voter."""
    per: dict[str, dict[str, int]] = defaultdict(lambda: {"checked": 0, "failed": 0})
    failed_votes = []
    for v in votes:
        if v.attention is not None:
            ok = v.winner == v.attention
        else:
            empty_a, empty_b = not answers.get(v.run_a, "").strip(), not answers.get(v.run_b, "").strip()
            if empty_a == empty_b:
                continue
            ok = v.winner != ("a" if empty_a else "b")
        per[v.voter]["checked"] += 1
        if not ok:
            per[v.voter]["failed"] += 1
            failed_votes.append({"voter": v.voter, "run_a": v.run_a, "run_b": v.run_b, "winner": v.winner,
                                 "expected": v.attention or ("not the empty answer")})
    return {"checked": sum(p["checked"] for p in per.values()), "failed": len(failed_votes),
            "per_voter": {k: per[k] for k in sorted(per)}, "failed_votes": failed_votes}


def position_bias(votes: Sequence[VoteRow]) -> dict[str, Any]:
    """The share of decisive votes that picked side A, its interval and a test against one half."""
    from scipy.stats import binomtest

    decisive = [v for v in votes if v.winner in ("a", "b")]
    n, k = len(decisive), sum(v.winner == "a" for v in decisive)
    if not n:
        return {"decisive": 0, "a": 0, "rate_a": None, "ci": None, "p_value": None}
    test = binomtest(k, n, 0.5)
    ci = test.proportion_ci(confidence_level=0.95)
    return {"decisive": n, "a": k, "rate_a": k / n, "ci": [float(ci.low), float(ci.high)], "p_value": float(test.pvalue)}


def majority_agreement(votes: Sequence[VoteRow]) -> dict[str, dict[str, Any]]:
    """Per voter: votes, votes compared with the others' strict plurality, and the share agreeing."""
    by_pair: dict[tuple[str, str], list[VoteRow]] = defaultdict(list)
    for v in votes:
        by_pair[pair_key(v.run_a, v.run_b)].append(v)
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"votes": 0, "compared": 0, "agree": 0})
    for group in by_pair.values():
        for v in group:
            per[v.voter]["votes"] += 1
            others = Counter(outcome(o) for o in group if o.voter != v.voter)
            top = others.most_common(2)
            if not top or (len(top) == 2 and top[0][1] == top[1][1]):
                continue
            per[v.voter]["compared"] += 1
            per[v.voter]["agree"] += int(outcome(v) == top[0][0])
    for p in per.values():
        p["agreement"] = p["agree"] / p["compared"] if p["compared"] else None
    return {k: per[k] for k in sorted(per)}


def outliers(per_voter: Mapping[str, Mapping[str, Any]], checks: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The voters flagged, each with why."""
    from scipy.stats import binomtest

    compared = sum(p["compared"] for p in per_voter.values())
    pool = sum(p["agree"] for p in per_voter.values()) / compared if compared else None
    tested = [name for name, p in per_voter.items() if p["compared"] >= MIN_COMPARED]
    out = []
    for name in sorted(set(per_voter) | set(checks["per_voter"])):
        why = []
        failed = checks["per_voter"].get(name, {}).get("failed", 0)
        if failed:
            why.append(f"failed {failed} attention check{'s' if failed > 1 else ''}")
        p = per_voter.get(name)
        if pool is not None and p is not None and name in tested:
            test = binomtest(p["agree"], p["compared"], pool, alternative="less")
            if test.pvalue < OUTLIER_P / len(tested):
                why.append(f"agrees with the majority on {p['agree']} of {p['compared']} votes (pool {pool:.0%}, p={test.pvalue:.2g})")
        if why:
            out.append({"voter": name, "why": "; ".join(why)})
    return out


def voter_alpha(votes: Sequence[VoteRow]) -> float | None:
    """Krippendorff's alpha (nominal) between voters over the pairs they voted on."""
    ratings: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    for v in votes:
        ratings[v.voter][pair_key(v.run_a, v.run_b)] = outcome(v)
    return krippendorff_alpha(dict(ratings))
