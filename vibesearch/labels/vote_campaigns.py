"""Vote campaigns: pairs of finished runs of one task for named voters to vote on (docs/votes.md).

* **Making one** (``create_vote_campaign``): the runs are the finished persona runs that pass a
  filter (``report --where``'s keys, and ``task``) and, optionally, a list of configurations
  (their labels as the leaderboard writes them: ``scoring.aggregate.config_key``). Every pair of
  configurations gets the same number of pairs (``pairs_per_config_pair``, fewer where the two
  share fewer runs of a task): the pairs of a configuration pair are taken one task at a time in
  turn (so they spread over the tasks), and within a task the pairs fewest people have voted on
  come first (a pair nobody voted on says the most), ties broken by a seeded draw.
* **Attention items**: a pair of a run whose final answer is empty against a run of the same task
  that gave one, expecting the one with an answer; added (``attention`` of them, by default one
  per ten pairs) when such a run exists, spread through the queue.
* **Sides**: which run of a pair is shown on side A (the left) is drawn per voter and item
  (``sides``: a hash of the campaign, voter and item, so a voter sees the same sides again); the
  stored vote's ``run_a`` is the run shown on the left, and an attention item's expected run
  becomes the side it was shown on.
* **Queue**: a voter's next item is the first, in queue order, that they have not voted on (in any
  campaign: a voter votes on a pair once) and that has fewer than ``overlap`` votes in this campaign.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Collection, Sequence

from .._names import PersonNameError, annotator_name
from ..scoring.aggregate import config_key
from ..store import Store, VoteCampaignExists, VoteCampaignRow, VoteRow
from ..store.tables import Run, TaskSnapshotError
from .vote_metric import final_answers
from .votes import VoteError, cast_vote, pair_key

MAX_NAME = 100
ATTENTION_EVERY = 10  # one attention item per this many pairs, by default
FILTER_KEYS = ("task", "subset", "language", "agent", "model", "user", "simulator")


class VoteCampaignError(ValueError):
    """A vote campaign request that cannot be done; the message says why (one line)."""


@dataclass(frozen=True)
class VoteItem:
    """One pair of a campaign: its place in the queue, its two runs (in the stored order, not the
    order shown) and, for an attention item, the run it expects to win."""

    index: int
    run_x: str
    run_y: str
    expect: str | None = None

    def pair(self) -> tuple[str, str]:
        return pair_key(self.run_x, self.run_y)


def run_facts(run: Run) -> dict[str, str]:
    """What the filter keys read of a run, and its configuration label."""
    subset: str
    language: str
    try:
        task = run.task()
        subset, language = task.subset or "", task.language or ""
    except TaskSnapshotError:
        subset = language = ""
    return {"task": run.task_id, "subset": subset, "language": language, "agent": run.agent or "",
            "model": run.agent_model or "", "user": run.user or "", "simulator": run.simulator_model or "",
            "config": config_key(run)}


def parse_filter(items: Sequence[str]) -> dict[str, list[str]]:
    """``["agent=react", "task=t1"]`` as ``{key: [values]}`` (a key twice: either value)."""
    out: dict[str, list[str]] = defaultdict(list)
    for item in items:
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise VoteCampaignError(f"--where {item!r}: write it as key=value")
        if key not in FILTER_KEYS:
            raise VoteCampaignError(f"--where {item!r}: unknown key {key!r} (one of {', '.join(FILTER_KEYS)})")
        out[key].append(value)
    return dict(out)


def candidate_runs(store: Store, where: dict[str, list[str]] | None = None) -> list[tuple[Run, dict[str, str]]]:
    """The finished persona runs that pass ``where``, oldest first, each with its facts."""
    out = []
    for run in sorted(store.list_runs(), key=lambda r: (r.created_at, r.id)):
        if run.kind == "table" or run.status != "finished":
            continue
        facts = run_facts(run)
        if all(facts[k] in set(v) for k, v in (where or {}).items() if v):
            out.append((run, facts))
    return out


def _person(value: str) -> str:
    try:
        return annotator_name(value or "")
    except PersonNameError as exc:
        raise VoteCampaignError(f"annotator: {exc}") from None


def sample_pairs(by_config: dict[str, dict[str, list[str]]], per_pair: int, voted: Counter[tuple[str, str]],
                 rng: random.Random) -> list[tuple[str, str]]:
    """``per_pair`` pairs for every two configurations (``by_config``: configuration → task → run
    ids): one task at a time in turn, within a task the least-voted pairs first."""
    out: list[tuple[str, str]] = []
    configs = sorted(by_config)
    for i, ci in enumerate(configs):
        for cj in configs[i + 1:]:
            tasks = sorted(set(by_config[ci]) & set(by_config[cj]))
            rng.shuffle(tasks)
            queues = []
            for task in tasks:
                pairs = [(x, y) for x in by_config[ci][task] for y in by_config[cj][task] if x != y]
                draws = {p: rng.random() for p in pairs}
                queues.append(sorted(pairs, key=lambda p: (voted[pair_key(*p)], draws[p])))
            taken = 0
            while taken < per_pair and any(queues):
                for q in queues:
                    if q and taken < per_pair:
                        out.append(q.pop(0))
                        taken += 1
    rng.shuffle(out)
    return out


def attention_pairs(store: Store, runs: Sequence[Run], want: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """Up to ``want`` pairs (empty-answer run, run with an answer, the latter expected) of one task."""
    answers = final_answers(store, [r.id for r in runs])
    by_task: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for r in runs:
        by_task[r.task_id][0 if not answers[r.id].strip() else 1].append(r.id)
    found = [(e, g, g) for empty, good in by_task.values() for e in empty for g in good]
    rng.shuffle(found)
    return found[:want]


def create_vote_campaign(
    store: Store, name: str, *, annotators: Sequence[str], overlap: int = 1, pairs_per_config_pair: int = 5,
    configs: Sequence[str] | None = None, where: dict[str, list[str]] | None = None, tasks: Sequence[str] | None = None,
    attention: int | None = None, seed: int = 0, created_by: str = "",
) -> VoteCampaignRow:
    """Check, sample and store a vote campaign; ``VoteCampaignError`` (nothing stored) names the
    first problem."""
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise VoteCampaignError(f"a vote campaign needs a name of 1 to {MAX_NAME} characters")
    if store.vote_campaign(name) is not None:
        raise VoteCampaignError(f"a vote campaign named {name!r} already exists")
    people = [_person(a) for a in annotators]
    if not people:
        raise VoteCampaignError("a vote campaign needs at least one annotator")
    if len(set(people)) != len(people):
        raise VoteCampaignError(f"annotator {next(a for a in people if people.count(a) > 1)!r} is named twice")
    if not 1 <= overlap <= len(people):
        raise VoteCampaignError(f"overlap {overlap} must be between 1 and the number of annotators ({len(people)})")
    if pairs_per_config_pair < 1:
        raise VoteCampaignError(f"pairs per configuration pair must be at least 1 (got {pairs_per_config_pair})")
    if attention is not None and attention < 0:
        raise VoteCampaignError(f"attention items must be 0 or more (got {attention})")
    wanted = dict(where or {})
    if tasks:
        wanted["task"] = [*wanted.get("task", []), *[t.strip() for t in tasks if t.strip()]]
    pool = candidate_runs(store, wanted)
    known = sorted({f["config"] for _, f in pool})
    if configs:
        unknown = [c for c in configs if c not in known]
        if unknown:
            raise VoteCampaignError(f"configuration {unknown[0]!r} has no finished run here (known: {'; '.join(known) or 'none'})")
        pool = [(r, f) for r, f in pool if f["config"] in set(configs)]
    by_config: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for run, facts in pool:
        by_config[facts["config"]][run.task_id].append(run.id)
    if len(by_config) < 2:
        raise VoteCampaignError(f"fewer than two configurations have finished runs that pass the filter ({len(by_config)} found)")
    rng = random.Random(seed)
    voted = Counter(pair_key(v.run_a, v.run_b) for v in store.votes())
    pairs = sample_pairs(by_config, pairs_per_config_pair, voted, rng)
    if not pairs:
        raise VoteCampaignError("no two configurations share a task: there is no pair to vote on")
    checks = attention_pairs(store, [r for r, _ in pool], max(1, len(pairs) // ATTENTION_EVERY) if attention is None else attention, rng)
    rows: list[dict[str, Any]] = [{"run_x": x, "run_y": y, "expect": None} for x, y in pairs]
    for k, (x, y, expect) in reversed(list(enumerate(checks))):  # spread through the queue (from the back: the places hold)
        rows.insert((k + 1) * len(pairs) // (len(checks) + 1), {"run_x": x, "run_y": y, "expect": expect})
    spec = {"configs": list(configs or []), "where": wanted, "pairs_per_config_pair": pairs_per_config_pair,
            "attention": len(checks), "seed": seed}
    row = VoteCampaignRow(name=name, items_json=json.dumps(rows), spec_json=json.dumps(spec, ensure_ascii=False),
                          annotators_json=json.dumps(people, ensure_ascii=False), overlap=overlap, created_by=created_by)
    try:
        return store.add_vote_campaign(row)
    except VoteCampaignExists as exc:
        raise VoteCampaignError(str(exc)) from None


def get_vote_campaign(store: Store, name: str) -> VoteCampaignRow:
    row = store.vote_campaign(name)
    if row is None:
        known = ", ".join(c.name for c in store.vote_campaigns()[:10])
        raise VoteCampaignError(f"no vote campaign named {name!r}" + (f" (there are: {known})" if known else " (none made yet)"))
    return row


def items(campaign: VoteCampaignRow) -> list[VoteItem]:
    return [VoteItem(i, str(d["run_x"]), str(d["run_y"]), d.get("expect")) for i, d in enumerate(campaign.items())]


def campaign_runs(store: Store) -> set[str]:
    """The runs of every vote campaign (shown without their agent to anyone but an admin)."""
    return {rid for c in store.vote_campaigns() for it in items(c) for rid in (it.run_x, it.run_y)}


def voter_of(campaign: VoteCampaignRow, voter: str) -> str:
    """The voter's name in its one form, when they are one of the campaign's annotators."""
    try:
        name = annotator_name(voter or "")
    except PersonNameError:
        name = (voter or "").strip()
    if name not in campaign.annotators():
        raise VoteCampaignError(f"{name or '(no name)'!r} is not a voter of vote campaign {campaign.name!r}")
    return name


def sides(campaign: VoteCampaignRow, voter: str, item: VoteItem) -> tuple[str, str]:
    """(the run shown on side A, the run on side B) for this voter: a hash, so the same each time."""
    digest = hashlib.sha256(f"{campaign.name}\0{voter}\0{item.index}".encode()).digest()
    return (item.run_y, item.run_x) if digest[0] & 1 else (item.run_x, item.run_y)


def _votes(store: Store, campaign: VoteCampaignRow) -> tuple[Counter[tuple[str, str]], list[VoteRow]]:
    mine = store.votes(campaign=campaign.name)
    return Counter(pair_key(v.run_a, v.run_b) for v in mine), mine


def next_item(store: Store, campaign: VoteCampaignRow, voter: str, skip: Collection[int] = ()) -> VoteItem | None:
    """The voter's next item (the skipped ones only when nothing else is left), or None."""
    name = voter_of(campaign, voter)
    counts, _ = _votes(store, campaign)
    done = {pair_key(v.run_a, v.run_b) for v in store.votes(voter=name)}
    left = [it for it in items(campaign) if it.pair() not in done and counts[it.pair()] < campaign.overlap]
    return next((it for it in left if it.index not in skip), left[0] if left else None)


def vote_on(store: Store, campaign: VoteCampaignRow, voter: str, index: int, winner: str, reason: str = "") -> VoteRow:
    """Store the voter's vote on item ``index``, the runs in the order this voter was shown them."""
    name = voter_of(campaign, voter)
    all_items = items(campaign)
    if not 0 <= index < len(all_items):
        raise VoteCampaignError(f"vote campaign {campaign.name!r} has no item {index + 1}")
    item = all_items[index]
    run_a, run_b = sides(campaign, name, item)
    expect = None if item.expect is None else ("a" if item.expect == run_a else "b")
    try:
        return cast_vote(store, run_a, run_b, winner, name, reason=reason, campaign=campaign.name, attention=expect)
    except VoteError as exc:
        raise VoteCampaignError(str(exc)) from None


def progress(store: Store, campaign: VoteCampaignRow) -> dict[str, Any]:
    """Overall and per-voter progress."""
    counts, cast = _votes(store, campaign)
    every = items(campaign)
    k = campaign.overlap
    per = {}
    for name in campaign.annotators():
        done = {pair_key(v.run_a, v.run_b) for v in store.votes(voter=name)}
        mine = sum(1 for v in cast if v.voter == name)
        per[name] = {"voted": mine, "queue": sum(1 for it in every if it.pair() not in done and counts[it.pair()] < k)}
    return {"campaign": campaign.name, "items": len(every), "attention_items": sum(1 for it in every if it.expect),
            "overlap": k, "items_done": sum(1 for it in every if counts[it.pair()] >= k),
            "votes": sum(min(counts[it.pair()], k) for it in every), "votes_needed": len(every) * k, "annotators": per}
