"""The human label every label export writes, read from the store: each labelled (or adjudicated)
item's final label by the one rule (``_final_label.decide``: the adjudication, else the strict
majority of the annotators' labels, else none), with the step that gave it, and the words each
export uses to say which rule filled its human label.

An *open tie* (an even split nobody adjudicated) has no final label. The exports keep it and mark
it rather than drop it, so a reader sees the item was labelled and why it has no label: the
official meta-eval CSVs leave its ``human_label`` blank (the official "not labelled") and say
"open tie" in its ``human_comment``; our label files and the campaign export leave ``final_label``
empty with ``final_from`` = ``open tie``.

A single annotator's own labels are exported only when asked for by name (``--annotator``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from ..store import Store
from ._final_label import Decision, FinalFrom, Side, decide

LabelRule = Literal["final", "annotator"]  # what fills an export's human label
FINAL_RULE = (
    "each item's final label: the adjudication where a disagreement was resolved, else the strict majority "
    "of the annotators' labels; an open tie (an even split nobody adjudicated) has none"
)


def rule_text(annotator: str | None = None) -> str:
    """One line saying what filled an export's human label."""
    return f"one annotator's labels: {annotator}'s (no majority, no adjudication)" if annotator else FINAL_RULE


@dataclass(frozen=True)
class ItemFinal:
    """One item's final label (``label`` None: an open tie), the step that gave it (``source``),
    the votes, and the adjudicator's comment when an adjudication gave it."""

    label: bool | None
    source: FinalFrom
    yes: int
    no: int
    comment: str = ""

    @classmethod
    def of(cls, decision: Decision, comment: str = "") -> ItemFinal:
        return cls(decision.label, decision.source, decision.yes, decision.no, comment if decision.source == "adjudication" else "")

    def note(self) -> str:
        """What an open tie says in a comment column ("" for an item with a final label)."""
        return f"open tie: {self.yes} yes, {self.no} no, not adjudicated (no final label)" if self.label is None else ""


def item_finals(store: Store, side: Side, run_ids: Collection[str] | None = None) -> dict[tuple[str, int], ItemFinal]:
    """(run id, item index) -> final label of every item of one side (of ``run_ids``, else of every
    run) that someone labelled or adjudicated, in run and index order."""
    votes: dict[tuple[str, int], list[bool]] = defaultdict(list)
    for rid in [None] if run_ids is None else sorted(set(run_ids)):
        if side == "coverage":
            for r in store.labels(run_id=rid):
                votes[(r.run_id, r.gt_index)].append(bool(r.covered))
        else:
            for p in store.pred_labels(run_id=rid):
                votes[(p.run_id, p.pred_index)].append(bool(p.valid))
    adjudications = {(a.run_id, a.item_index): a for a in store.adjudications(None if run_ids is None else list(run_ids)) if a.side == side}
    out: dict[tuple[str, int], ItemFinal] = {}
    for key in sorted({*votes, *adjudications}):
        adj = adjudications.get(key)
        out[key] = ItemFinal.of(decide(votes.get(key, ()), adj.label if adj else None), (adj.comment or "") if adj else "")
    return out


def tally(finals: Collection[ItemFinal]) -> dict[str, int]:
    """How many items each step of the rule decided (``adjudication``, ``majority``, ``open tie``)."""
    counts = {"adjudication": 0, "majority": 0, "open tie": 0}
    for f in finals:
        counts[f.source] += 1
    return counts


@dataclass
class LabelTally:
    """What filled an export's human label: the final labels (``annotator`` None), with how many
    items each step of the rule decided per side, or one annotator's own labels."""

    annotator: str | None = None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # side -> step -> items

    @property
    def rule(self) -> LabelRule:
        return "annotator" if self.annotator is not None else "final"

    def add(self, side: Side, counts: dict[str, int]) -> None:
        into = self.counts.setdefault(side, {})
        for step, n in counts.items():
            into[step] = into.get(step, 0) + n

    def header(self) -> dict[str, Any]:
        """The block an export's metadata carries (``human_label`` in ``vibesearch_runs.json``)."""
        head: dict[str, Any] = {"rule": self.rule, "says": rule_text(self.annotator)}
        if self.annotator is not None:
            head["annotator"] = self.annotator
        else:
            head["items"] = self.counts
        return head

    def line(self) -> str:
        """One line for a person: the rule and, for the final labels, what decided how many items."""
        if self.annotator is not None:
            return f"human_label: {rule_text(self.annotator)}"
        steps = {step: sum(c.get(step, 0) for c in self.counts.values()) for step in ("adjudication", "majority", "open tie")}
        return (f"human_label: {FINAL_RULE} ({steps['adjudication']} item(s) by adjudication, {steps['majority']} by majority, "
                f"{steps['open tie']} open tie(s) left blank and marked in human_comment)")
