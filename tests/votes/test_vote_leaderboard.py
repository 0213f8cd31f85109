"""The Leaderboard's preference column (issue 42 §2): beside Avg F1, each configuration's
Bradley–Terry rating from the votes with its 95% interval, on the "all" rows; empty without votes;
only the votes between runs the table shows count."""

from __future__ import annotations

import re
from types import SimpleNamespace

from vibesearch.app.leaderboard import SCORE_HEADERS, tables
from vibesearch.labels.votes import cast_vote
from vibesearch.store import Store

CELL = re.compile(r"^([+-]\d+\.\d\d) \[([+-]\d+\.\d\d), ([+-]\d+\.\d\d)\]$")


def _cells(store: Store, where=None) -> dict[str, str]:
    _summary, rows, *_ = tables(SimpleNamespace(store=store), None, where=where)  # type: ignore[arg-type]  # (the Leaderboard tab)
    at = SCORE_HEADERS.index("Preference (BT, 95% CI)")
    assert SCORE_HEADERS[at - 1] == "Avg F1 95% CI"  # beside F1
    return {r[0]: r[at] for r in rows if r[2] == "all"} | {f"{r[0]} / {r[2]}": r[at] for r in rows if r[2] != "all"}


def test_the_column_rates_the_preferred_configuration_higher(voted_db):
    url, by_user = voted_db
    store = Store(url)
    assert set(_cells(store).values()) == {""}  # no votes: an empty column
    pairs = [(x, y) for x in by_user["rules"] for y in by_user["direct"]]
    for i in range(10):  # ten voters, four pairs each: the rules user's runs win 80% of the votes
        for j, (x, y) in enumerate(pairs):
            cast_vote(store, x, y, "a" if (i * 4 + j) % 5 else "b", f"voter{i}")
    cells = _cells(store)
    rules = next(v for k, v in cells.items() if k.endswith("user rules"))
    direct = next(v for k, v in cells.items() if k.endswith("user direct"))
    staged = next(v for k, v in cells.items() if k.endswith("user staged"))
    (r, r_lo, r_hi), (d, d_lo, d_hi) = (tuple(float(x) for x in CELL.match(c).groups()) for c in (rules, direct))  # type: ignore[union-attr]
    assert r > 0 > d and r_lo <= r <= r_hi and d_lo <= d <= d_hi and r_lo > d_hi  # the intervals apart
    assert abs((r - d) - 1.386) < 0.05  # log(0.8 / 0.2): Bradley–Terry reads 80% as a 1.39 difference
    assert staged == ""  # never voted on
    assert all(v == "" for k, v in cells.items() if " / " in k)  # only on the "all" rows
    # a filter that leaves one side of every vote out leaves no vote to rate
    assert set(_cells(store, where={"user": ["rules", "staged"]}).values()) == {""}
