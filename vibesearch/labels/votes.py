"""Pairwise preference votes: which of two finished runs of one task a person prefers (docs/votes.md).

A vote names the run shown on side A (``run_a``, the left) and on side B (``run_b``); ``winner``
is a side (``a``, ``b``), ``tie`` or ``both_bad`` (the one vocabulary ``store.VoteWinner``). A
vote is refused (``VoteError``, one line naming why) when a run is not stored, when the two runs
are of different tasks, when a run is voted against itself, when the winner is not in the
vocabulary, when the voter is no name in its one form (``_names.annotator_name``), and when the
voter has voted on that pair already, in either order.

``cast_vote`` checks and stores one vote (what a voting card calls); ``check_votes`` checks many
(a file's rows, each with where it came from) against the store and each other before
``Store.add_votes`` stores all of them in one transaction.

What a vote means for a configuration: ``winning_run`` is the run it prefers (None for a tie or
both bad); ``outcome`` is the vote as seen from the unordered pair (the winning run's id, or
``tie`` / ``both_bad``), which the agreement measures compare.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, get_args

from .._files import short
from .._names import PersonNameError, annotator_name
from ..store import RunNotFound, Store, VoteRow, VoteWinner
from ..store.tables import Run

WINNERS: tuple[VoteWinner, ...] = get_args(VoteWinner)
DECISIVE: tuple[VoteWinner, ...] = ("a", "b")
MAX_REASON_CHARS = 10_000


class VoteError(ValueError):
    """A vote that cannot be stored; the message says why (and where, for a file's row)."""


def pair_key(run_x: str, run_y: str) -> tuple[str, str]:
    """The unordered pair: one key whichever side each run was shown on."""
    return (run_x, run_y) if run_x <= run_y else (run_y, run_x)


def winning_run(vote: VoteRow) -> str | None:
    """The run the vote prefers; None for a tie or both bad."""
    return vote.run_a if vote.winner == "a" else vote.run_b if vote.winner == "b" else None


def outcome(vote: VoteRow) -> str:
    """The vote seen from its unordered pair: the preferred run's id, or ``tie`` / ``both_bad``."""
    return winning_run(vote) or vote.winner


def winner_of(value: Any) -> VoteWinner:
    """``value`` as a winner, or ``VoteError`` naming the vocabulary."""
    for w in WINNERS:
        if value == w:
            return w
    raise VoteError(f"winner: {short(value)} is not one of {', '.join(WINNERS)}")


def voter_name(value: Any) -> str:
    """A voter's name, which must already be in its one form (no surrounding or repeated
    whitespace, Unicode NFC; not empty): two spellings of one person would count as two voters."""
    try:
        name = annotator_name(value)
    except PersonNameError as exc:
        raise VoteError(f"voter: {exc}") from None
    if name != value:
        raise VoteError(f"voter: {short(value)} is not a name in its one form (write {short(name)}: "
                        "no surrounding or repeated whitespace, Unicode NFC)")
    return name


class _Runs:
    """The stored runs the checks read, each once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rows: dict[str, Run] = {}

    def get(self, run_id: str, field: str) -> Run:
        if run_id not in self.rows:
            try:
                self.rows[run_id] = self.store.get_run(run_id)
            except RunNotFound:
                raise VoteError(f"{field}: run {short(run_id)} is not in this database") from None
        return self.rows[run_id]


def _check_pair(runs: _Runs, run_a: str, run_b: str) -> None:
    if run_a == run_b:
        raise VoteError(f"run_b: run {short(run_a)} is voted against itself (a vote needs two runs)")
    a, b = runs.get(run_a, "run_a"), runs.get(run_b, "run_b")
    if a.task_id != b.task_id:
        raise VoteError(f"run_b: runs of different tasks (run_a is of {short(a.task_id)}, run_b of {short(b.task_id)}); "
                        "a vote compares two runs of one task")


def check_votes(store: Store, votes: Iterable[Mapping[str, Any]], where: Callable[[Mapping[str, Any]], str]) -> list[VoteRow]:
    """Every vote (``run_a``, ``run_b``, ``winner``, ``voter``; optional ``reason``,
    ``attention``, ``campaign``, ``created_at``) checked against the store and against the
    others, as rows to store; the first bad one raises ``VoteError`` prefixed with ``where(vote)``."""
    runs = _Runs(store)
    stored = {(pair_key(v.run_a, v.run_b), v.voter) for v in store.votes()}
    seen: dict[tuple[tuple[str, str], str], str] = {}
    out = []
    for vote in votes:
        at = where(vote)
        try:
            _check_pair(runs, vote["run_a"], vote["run_b"])
            key = (pair_key(vote["run_a"], vote["run_b"]), vote["voter"])
            if key in stored:
                raise VoteError(f"voter: {short(vote['voter'])} has a stored vote on runs {short(key[0][0])} and {short(key[0][1])}")
            if key in seen:
                raise VoteError(f"voter: {short(vote['voter'])} votes on runs {short(key[0][0])} and {short(key[0][1])} "
                                f"again (first at {seen[key]})")
        except VoteError as exc:
            raise VoteError(f"{at}: {exc}") from None
        seen[key] = at
        fields = {k: vote[k] for k in ("run_a", "run_b", "winner", "voter", "reason", "attention", "campaign", "created_at") if k in vote}
        if fields.get("created_at") is None:
            fields.pop("created_at", None)
        out.append(VoteRow(**fields))
    return out


def cast_vote(store: Store, run_a: str, run_b: str, winner: str, voter: str, *, reason: str = "",
              campaign: str | None = None, attention: str | None = None) -> VoteRow:
    """Check and store one vote: ``run_a`` was shown on side A, ``run_b`` on side B (the card's
    randomised order), ``winner`` a side, ``tie`` or ``both_bad``. ``VoteError`` says why not."""
    if "\x00" in reason or len(reason) > MAX_REASON_CHARS:
        raise VoteError(f"reason: a NUL character or longer than {MAX_REASON_CHARS} characters")
    vote = {"run_a": run_a, "run_b": run_b, "winner": winner_of(winner), "voter": voter_name(voter), "reason": reason,
            "attention": None if attention is None else winner_of(attention), "campaign": campaign}
    [row] = check_votes(store, [vote], lambda _: "vote")
    store.add_votes([row])
    return row
