"""Votes at the end of a study play (issue 42, docs/votes.md): the player knows the persona they
just played best, so the play may end with one or two pairs of *other* finished runs of that
persona to vote on.

``study_pairs(store, run_id, voter)`` gives the pairs still open to that voter: two finished
persona runs of the play's task (``vote_campaigns.candidate_runs``), neither the play itself, of
two different configurations (``scoring.aggregate.config_key``): the configuration pairs in a
seeded order per voter and play, a random open pair of runs of each, pairs the voter voted on
already left out, and ``MOST`` pairs in all per player (a
player's name is their study code's, one per play). Which run of a pair is on side A is a hash of the
voter and the pair (the same each time they see it); the seeded order spreads the players of one
persona over the configuration pairs. The vote is stored by
``votes.cast_vote`` under the play's player name.
"""

from __future__ import annotations

import hashlib
import random
from itertools import combinations

from ..scoring.aggregate import config_key
from ..store import Store
from .vote_campaigns import candidate_runs
from .votes import pair_key

MOST = 2  # pairs offered after one play


def _sides(voter: str, x: str, y: str) -> tuple[str, str]:
    digest = hashlib.sha256(f"study\0{voter}\0{min(x, y)}\0{max(x, y)}".encode()).digest()
    return (y, x) if digest[0] & 1 else (x, y)


def study_pairs(store: Store, run_id: str, voter: str, *, most: int = MOST) -> list[tuple[str, str]]:
    """The pairs (run on side A, run on side B) of other finished runs of the play's task still
    open to ``voter``: ``most`` in all, fewer the more they voted already; [] when none."""
    play = store.get_run(run_id)
    mine = store.votes(voter=voter)
    most -= len(mine)
    by_config: dict[str, list[str]] = {}
    for run, _facts in candidate_runs(store):
        if run.task_id == play.task_id and run.id != run_id:
            by_config.setdefault(config_key(run), []).append(run.id)
    voted = {pair_key(v.run_a, v.run_b) for v in mine}
    rng = random.Random(hashlib.sha256(f"{voter}\0{run_id}".encode()).digest())
    configs = sorted(by_config)
    combos = list(combinations(configs, 2))
    rng.shuffle(combos)
    out: list[tuple[str, str]] = []
    for cx, cy in combos if most > 0 else []:
        open_pairs = [(x, y) for x in by_config[cx] for y in by_config[cy] if pair_key(x, y) not in voted]
        if open_pairs:
            out.append(_sides(voter, *rng.choice(open_pairs)))
        if len(out) >= most:
            break
    return out
