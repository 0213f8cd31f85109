"""The one rule for an item's final human label (owned by ``campaigns``; every view uses it).

An item's final label is, in this order:

1. its adjudication, when a third person resolved it;
2. else the strict majority of the annotators' labels (more yes than no, or more no than yes);
3. else none: an even split nobody resolved (an *open tie*), or no label at all.

Anything that compares people with a judge leaves the items without a final label out and says
how many open ties it left out; a tie is never read as "not covered" or "not valid".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Hashable, Iterable, Literal, Mapping, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)
Side = Literal["coverage", "validity"]  # what an item is labelled for: a ground-truth triple covered, a predicted one valid
FinalFrom = Literal["adjudication", "majority", "open tie"]  # which step of the rule gave the label (none: open tie)


def strict_majority(votes: Iterable[bool]) -> bool | None:
    """True or False when one answer has more votes than the other; None on a tie or no vote."""
    yes = no = 0
    for vote in votes:
        if vote:
            yes += 1
        else:
            no += 1
    return True if yes > no else False if no > yes else None


def final_of(votes: Iterable[bool], adjudication: bool | None = None) -> bool | None:
    """One item's final label: the adjudication if there is one, else the strict majority."""
    return decide(votes, adjudication).label


@dataclass(frozen=True)
class Decision:
    """One item's final label, the step of the rule that gave it, and the votes it came from."""

    label: bool | None
    source: FinalFrom
    yes: int = 0
    no: int = 0


def decide(votes: Iterable[bool], adjudication: bool | None = None) -> Decision:
    """The rule for one item, saying which step decided (an item with no vote and no adjudication
    comes out as an open tie of 0 against 0: callers only ask about labelled items)."""
    said = [bool(v) for v in votes]
    yes = sum(said)
    no = len(said) - yes
    if adjudication is not None:
        return Decision(adjudication, "adjudication", yes, no)
    majority = strict_majority(said)
    return Decision(majority, "majority" if majority is not None else "open tie", yes, no)


@dataclass
class FinalLabels(Generic[K]):
    """The final label of every item that has one, and what was left without."""

    labels: dict[K, bool] = field(default_factory=dict)
    adjudicated: int = 0  # items whose final label is an adjudication
    open_ties: list[K] = field(default_factory=list)  # labelled items split evenly, not resolved

    @property
    def n_open_ties(self) -> int:
        return len(self.open_ties)


def final_labels(votes: Mapping[K, Sequence[bool]], adjudications: Mapping[K, bool]) -> FinalLabels[K]:
    """Every item's final label from its votes and its adjudication (either may be missing); items
    in key order, open ties listed in that order too."""
    out: FinalLabels[K] = FinalLabels()
    keys: list[K] = list(dict.fromkeys([*votes, *adjudications]))
    try:
        keys = sorted(keys, key=lambda k: k)  # type: ignore[arg-type,return-value]
    except TypeError:  # keys that do not order keep their first-seen order
        pass
    for key in keys:
        adj = adjudications.get(key)
        said = votes.get(key, ())
        label = final_of(said, adj)
        if label is None:
            if said:
                out.open_ties.append(key)
            continue
        out.labels[key] = label
        if adj is not None:
            out.adjudicated += 1
    return out
