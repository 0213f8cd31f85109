"""Bradley–Terry ratings from votes (issue 42 "Must show"): a configuration that wins 80% of its
battles is rated above the other with an interval of the difference excluding 0; votes without a
preference give an interval covering 0. Seeded: the same votes give the same numbers."""

from __future__ import annotations

import random

from vibesearch.labels.preference import bradley_terry, win_matrix


def _votes(n: int, p_a: float, seed: int, ties: int = 0) -> list[tuple[str, str, str]]:
    """``n`` battles of A and B, A preferred with probability ``p_a``, sides drawn at random."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        a_wins = rng.random() < p_a
        if rng.random() < 0.5:
            rows.append(("A", "B", "a" if a_wins else "b"))
        else:
            rows.append(("B", "A", "b" if a_wins else "a"))
    return rows + [("A", "B", "tie")] * ties


def test_a_configuration_preferred_80_percent_is_rated_above_with_an_interval_excluding_0():
    rows = _votes(100, 0.8, seed=1)
    wins = sum((a == "A") == (w == "a") for a, _, w in rows)
    assert 70 <= wins <= 90  # the draw is near 80%
    got = bradley_terry(rows, resamples=500)
    a, b = got["ratings"]
    assert (a["label"], b["label"]) == ("A", "B") and a["rating"] > 0 > b["rating"]
    assert a["ci"][0] > 0 and b["ci"][1] < 0
    [diff] = got["differences"]
    assert (diff["a"], diff["b"]) == ("A", "B")
    assert 0 < diff["ci"][0] < diff["difference"] < diff["ci"][1]
    # the BT difference is the log-odds of the observed share (no ties): log(w / (n - w))
    import math

    assert abs(diff["difference"] - math.log(wins / (100 - wins))) < 0.02
    assert got == bradley_terry(rows, resamples=500)  # seeded: reproducible


def test_votes_without_a_preference_give_an_interval_covering_0():
    got = bradley_terry(_votes(100, 0.5, seed=2), resamples=500)
    [diff] = got["differences"]
    assert diff["ci"][0] < 0 < diff["ci"][1]
    for r in got["ratings"]:
        assert r["ci"][0] < 0 < r["ci"][1]


def test_ties_count_half_a_win_each_as_arena_counts_them():
    rows = [("A", "B", "a")] * 10 + [("A", "B", "tie")] * 10 + [("B", "A", "both_bad")] * 10
    got = bradley_terry(rows, resamples=200)
    m = got["win_matrix"]
    i, j = m["labels"].index("A"), m["labels"].index("B")
    assert m["battles"][i][j] == 30 and m["wins"][i][j] == 20.0 and m["wins"][j][i] == 10.0
    assert abs(m["win_rate"][i][j] - 2 / 3) < 1e-9
    # 20 of 30 is the same share as 2 of 3: log-odds log 2
    diff = got["differences"][0]
    assert abs(diff["difference"] - 0.6931) < 0.02
    a = next(r for r in got["ratings"] if r["label"] == "A")
    assert (a["wins"], a["losses"], a["ties"]) == (10, 0, 20)


def test_three_configurations_are_ordered_and_the_win_matrix_follows_the_ratings():
    rows = _votes(60, 0.75, seed=3) + [(x.replace("A", "C").replace("B", "A"), y.replace("A", "C").replace("B", "A"), w)
                                      for x, y, w in _votes(60, 0.75, seed=4)]  # C over A over B
    got = bradley_terry(rows, resamples=200)
    assert [r["label"] for r in got["ratings"]] == ["C", "A", "B"]
    assert got["win_matrix"]["labels"] == ["C", "A", "B"]
    assert got["win_matrix"]["battles"][0][2] == 0 and got["win_matrix"]["win_rate"][0][2] is None
    assert win_matrix([], []) == {"labels": [], "battles": [], "wins": [], "win_rate": []}
