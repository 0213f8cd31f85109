"""Preference votes on a site (docs/votes.md, docs/site.md): the votes between published runs in
``rows.json`` and the Bradley–Terry ratings the leaderboard's preference column shows.

A vote is published when both its runs are. Its voter is replaced by a pseudonym (``voter-1``,
``voter-2``, … in the order of each voter's first vote, so a voter keeps the number as votes are
added), its reason is left out (free text a person typed) and so is its campaign name. The ratings
are ``labels.preference.bradley_terry`` over the runs' configurations as published (a blind study's
play under its hidden label, ``results.blind``): ``build`` computes them from the database,
``verify`` from the votes of ``rows.json``, and compares.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..labels import preference
from ..scoring.aggregate import RunRecord
from ..store import Store, VoteRow
from .bundle import plain


def published_votes(store: Store, keep: set[str]) -> list[dict[str, Any]]:
    """``rows.json``'s ``votes``: the votes between runs in ``keep``, oldest first, voters as pseudonyms."""
    names: dict[str, str] = {}
    out = []
    for v in store.votes():
        if v.run_a not in keep or v.run_b not in keep:
            continue
        alias = names.setdefault(v.voter, f"voter-{len(names) + 1}")
        out.append({**v.model_dump(mode="json"), "voter": alias, "reason": "", "campaign": None})
    return out


def preference_figures(store: Store, records: Iterable[RunRecord]) -> dict[str, Any] | None:
    """The ratings, pair differences and win matrix from the votes between the runs of ``records``
    (their configurations as published); None without a vote between two configurations."""
    config_of = {r.run_id: r.config for r in records}
    votes: list[VoteRow] = [v for v in store.votes() if v.run_a in config_of and v.run_b in config_of]
    rows = preference.battles(votes, config_of)
    if not rows:
        return None
    return plain({"votes": len(votes), "battles": len(rows), **preference.bradley_terry(rows), "method": preference.settings()})
