"""Bradley–Terry ratings of configurations from pairwise votes, with bootstrap intervals, and the
win matrix (docs/votes.md).

Each vote between runs of two different configurations is one battle (a vote between two runs of
one configuration says nothing about configurations and is left out here). Ties are counted as
Chatbot Arena counts them: every battle enters the fit twice, a win as two wins of the preferred
configuration, a tie — and a "both bad", which Arena calls ``tie (bothbad)`` — as one win for
each side, i.e. half a win each. The fit is ``choix.ilsr_pairwise`` (maximum likelihood of the
Bradley–Terry model by iterative Luce spectral ranking, with a small ridge ``ALPHA`` so a
configuration that won or lost every battle keeps a finite rating). A rating is the configuration's
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


def _comparisons(rows: Sequence[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Arena's doubling: a win twice for the winner, a tie or both bad once each way."""
    data: list[tuple[int, int]] = []
    for i, j, winner in rows:
        if winner == "a":
            data += [(i, j), (i, j)]
        elif winner == "b":
            data += [(j, i), (j, i)]
        else:
            data += [(i, j), (j, i)]
    return data


def fit(n: int, rows: Sequence[tuple[int, int, str]]) -> np.ndarray:
    """Bradley–Terry log-strengths of ``n`` items from (i, j, winner) battles, centred on the
    items that have a battle (NaN for the others)."""
    import choix

    present = sorted({i for i, _, _ in rows} | {j for _, j, _ in rows})
    out = np.full(n, np.nan)
    if len(present) < 2:
        if present:
            out[present[0]] = 0.0
        return out
    where = {item: k for k, item in enumerate(present)}
    data = _comparisons([(where[i], where[j], w) for i, j, w in rows])
    params = np.asarray(choix.ilsr_pairwise(len(present), data, alpha=ALPHA), dtype=float)
    out[present] = params - params.mean()
    return out


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
    coded = [(at[a], at[b], w) for a, b, w in rows]
    point = fit(len(labels), coded)
    pairs = list(combinations(range(len(labels)), 2))

    def statistics(idx: Any) -> list[Any]:
        fits = np.array([fit(len(labels), [coded[k] for k in row]) for row in idx])
        return [fits[:, i] for i in range(len(labels))] + [fits[:, i] - fits[:, j] for i, j in pairs]

    cis = resampled_intervals(len(coded), statistics, resamples=resamples, seed=seed, level=LEVEL)
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
    return {"model": "Bradley–Terry (choix.ilsr_pairwise)", "ties": "half a win each (Arena)", "alpha": ALPHA,
            "interval": "percentile bootstrap, votes resampled with replacement", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL}
