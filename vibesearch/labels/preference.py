"""Bradley–Terry ratings of configurations from pairwise votes, with bootstrap intervals, and the
win matrix (docs/votes.md).

Each vote between runs of two different configurations is one battle (a vote between two runs of
one configuration says nothing about configurations and is left out here). Ties are counted as
Chatbot Arena counts them: every battle enters the fit twice, a win as two wins of the preferred
configuration, a tie — and a "both bad", which Arena calls ``tie (bothbad)`` — as one win for
each side, i.e. half a win each. The fit is ``choix.ilsr_pairwise_dense`` (maximum likelihood of
the Bradley–Terry model by iterative Luce spectral ranking) on the battles' comparison matrix, so
a resample costs one small matrix whatever the number of votes; a small ridge ``ALPHA`` keeps a
configuration that won or lost every battle at a finite rating. A rating is the configuration's
log-strength, centred so the configurations' mean is 0: P(i preferred over j) = 1 / (1 + exp(r_j − r_i)).

The intervals are percentile bootstraps over the votes (``RESAMPLES`` resamples of the battles
with replacement, a fixed ``SEED``: a report is reproducible); a configuration without a battle in
a resample has no rating there. ``differences`` gives each pair's rating difference with its
interval (an interval excluding 0: the preference is more than noise).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np

from ..scoring.bootstrap import LEVEL, resampled_intervals
from ..store import VoteRow

RESAMPLES = 1000
SEED = 20240611
ALPHA = 0.01  # choix's regularisation: a weak prior pulling the strengths together


def battles(votes: Sequence[VoteRow], config_of: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(configuration A, configuration B, winner) of each vote between two configurations."""
    out: list[tuple[str, str, str]] = []
    for v in votes:
        a, b = config_of.get(v.run_a), config_of.get(v.run_b)
        if a is not None and b is not None and a != b:
            out.append((a, b, v.winner))
    return out


class Battles:
    """Coded battles between ``n`` items, as the comparison matrix the fit reads: ``counts[i, j]``
    the times i beat j, Arena's doubling applied (a win twice for the winner, a tie or both bad
    once each way). ``matrix(weights)`` sums the battles each taken ``weights[k]`` times (a
    bootstrap resample), in one numpy step."""

    def __init__(self, n: int, rows: Sequence[tuple[int, int, str]]) -> None:
        self.n = n
        winners, losers, votes = [], [], []
        for k, (i, j, winner) in enumerate(rows):
            if winner == "a":
                pairs = [(i, j), (i, j)]
            elif winner == "b":
                pairs = [(j, i), (j, i)]
            else:
                pairs = [(i, j), (j, i)]
            for w, lose in pairs:
                winners.append(w)
                losers.append(lose)
                votes.append(k)
        self.winners, self.losers, self.votes = (np.array(x, dtype=np.intp) for x in (winners, losers, votes))
        self.size = len(rows)

    def matrix(self, weights: np.ndarray | None = None) -> np.ndarray:
        comp = np.zeros((self.n, self.n))
        np.add.at(comp, (self.winners, self.losers), 1.0 if weights is None else weights[self.votes])
        return comp


def fit(comp: np.ndarray) -> np.ndarray:
    """Bradley–Terry log-strengths from a comparison matrix, centred on the items that have a
    battle (NaN for the others)."""
    import choix

    n = len(comp)
    present = np.flatnonzero(comp.sum(axis=0) + comp.sum(axis=1) > 0)
    out = np.full(n, np.nan)
    if len(present) < 2:
        out[present] = 0.0
        return out
    params = np.asarray(choix.ilsr_pairwise_dense(comp[np.ix_(present, present)], alpha=ALPHA), dtype=float)
    out[present] = params - params.mean()
    return out


def resampled_fits(battles: Battles, idx: np.ndarray) -> np.ndarray:
    """One fit per resample (a row of vote indices): shape (rows, items)."""
    return np.array([fit(battles.matrix(np.bincount(row, minlength=battles.size).astype(float))) for row in idx])


def win_matrix(labels: Sequence[str], rows: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """Battles and wins between every two configurations (``wins[i][j]``: the wins of ``labels[i]``
    over ``labels[j]``, a tie or both bad half a win each) and the win rate (None without battles)."""
    at = {label: k for k, label in enumerate(labels)}
    n = len(labels)
    count = [[0] * n for _ in range(n)]
    wins = [[0.0] * n for _ in range(n)]
    for a, b, winner in rows:
        i, j = at[a], at[b]
        count[i][j] += 1
        count[j][i] += 1
        share = 1.0 if winner == "a" else 0.0 if winner == "b" else 0.5
        wins[i][j] += share
        wins[j][i] += 1.0 - share
    rate = [[wins[i][j] / count[i][j] if count[i][j] else None for j in range(n)] for i in range(n)]
    return {"labels": list(labels), "battles": count, "wins": wins, "win_rate": rate}


def bradley_terry(rows: Sequence[tuple[str, str, str]], *, resamples: int = RESAMPLES, seed: int = SEED) -> dict[str, Any]:
    """Ratings (best first: label, rating, ci, battles, wins, losses, ties), each pair's rating
    difference with its interval, and the win matrix in the ratings' order."""
    labels = sorted({a for a, _, _ in rows} | {b for _, b, _ in rows})
    if not labels:
        return {"ratings": [], "differences": [], "win_matrix": win_matrix([], [])}
    at = {label: k for k, label in enumerate(labels)}
    coded = Battles(len(labels), [(at[a], at[b], w) for a, b, w in rows])
    point = fit(coded.matrix())
    pairs = list(combinations(range(len(labels)), 2))

    def statistics(idx: Any) -> list[Any]:
        fits = resampled_fits(coded, idx)
        return [fits[:, i] for i in range(len(labels))] + [fits[:, i] - fits[:, j] for i, j in pairs]

    cis = resampled_intervals(coded.size, statistics, resamples=resamples, seed=seed, level=LEVEL)
    tally: dict[str, dict[str, int]] = defaultdict(lambda: {"battles": 0, "wins": 0, "losses": 0, "ties": 0})
    for a, b, w in rows:
        for me, mine in ((a, "a"), (b, "b")):
            t = tally[me]
            t["battles"] += 1
            t["wins" if w == mine else "ties" if w not in ("a", "b") else "losses"] += 1
    ratings: list[dict[str, Any]] = [{"label": label, "rating": float(point[k]), "ci": cis[k], **tally[label]} for k, label in enumerate(labels)]
    ratings.sort(key=lambda r: (-r["rating"], r["label"]))
    differences = []
    for (i, j), ci in zip(pairs, cis[len(labels):]):
        first, second = (i, j) if point[i] >= point[j] else (j, i)
        sign = 1.0 if first == i else -1.0
        differences.append({"a": labels[first], "b": labels[second], "difference": float(point[first] - point[second]),
                            "ci": None if ci is None else sorted(sign * x for x in ci)})
    order = [r["label"] for r in ratings]
    return {"ratings": ratings, "differences": differences, "win_matrix": win_matrix(order, rows)}


def settings() -> dict[str, Any]:
    """How the ratings and intervals are made, for the report."""
    return {"model": "Bradley–Terry (choix.ilsr_pairwise_dense)", "ties": "half a win each (Arena)", "alpha": ALPHA,
            "interval": "percentile bootstrap, votes resampled with replacement", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL}
