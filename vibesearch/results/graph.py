"""The knowledge-graph picture's classification, shared by the app's plotly figure and the site's SVG.

Every triple of the ground truth and the prediction becomes an ``Edge`` with a category: ground
truth covered / missed, predicted valid (evidence for a covered ground-truth triple) / invalid, or
"not judged" when there is no verdict. ``COLOURS``/``LABELS``/``DRAW_ORDER`` say how each category
is drawn; ``select`` is the picture's filters; ``shared_positions`` one layout for several graphs
(``graph_layout``: names merged by the offline judge's normaliser, one block per component).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .graph_layout import entity_key, layout

COLOURS = {
    "gt_covered": "#2e9e57",
    "gt_missed": "#d62728",
    "pred_valid": "#2b6cb0",
    "pred_invalid": "#f08c00",
    "gt_unjudged": "#6b6b6b",
    "pred_unjudged": "#a3abb8",
}
LABELS = {
    "gt_covered": "ground truth: covered",
    "gt_missed": "ground truth: missed",
    "pred_valid": "predicted: valid",
    "pred_invalid": "predicted: invalid",
    "gt_unjudged": "ground truth (not judged)",
    "pred_unjudged": "predicted (not judged)",
}
DRAW_ORDER = ["pred_valid", "pred_invalid", "pred_unjudged", "gt_covered", "gt_missed", "gt_unjudged"]

# what the picture shows: value -> the label of the control
FILTERS = {
    "all": "All triples",
    "missed": "Missed ground truth only",
    "invalid": "Invalid predictions only",
    "focus": "One entity's neighbourhood",
}
SHOWN = {"missed": {"gt_missed"}, "invalid": {"pred_invalid"}}

norm_entity = entity_key  # the node an entity name is drawn as


@dataclass
class Edge:
    head: str
    relation: str
    tail: str
    category: str
    index: int  # index in its own graph

    @property
    def ends(self) -> tuple[str, str]:
        return entity_key(self.head), entity_key(self.tail)


Verdicts = dict[int, tuple[bool | None, list[int]]]


def classify(gt: Sequence[dict], pred: Sequence[dict], verdicts: Verdicts | None) -> list[Edge]:
    """Every triple of both graphs with its category. ``verdicts``: gt index → (covered, evidence)."""
    edges: list[Edge] = []
    valid: set[int] = set()
    if verdicts:
        for covered, evidence in verdicts.values():
            if covered:
                valid.update(int(i) for i in evidence)
    for i, t in enumerate(gt):
        if not verdicts or i not in verdicts or verdicts[i][0] is None:
            cat = "gt_unjudged"
        else:
            cat = "gt_covered" if verdicts[i][0] else "gt_missed"
        edges.append(Edge(str(t.get("head", "")), str(t.get("relation", "")), str(t.get("tail", "")), cat, i))
    for i, t in enumerate(pred):
        cat = "pred_unjudged" if not verdicts else ("pred_valid" if i in valid else "pred_invalid")
        edges.append(Edge(str(t.get("head", "")), str(t.get("relation", "")), str(t.get("tail", "")), cat, i))
    return edges


def category_counts(edges: Sequence[Edge]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in edges:
        out[e.category] = out.get(e.category, 0) + 1
    return out


def entity_names(edges: Sequence[Edge]) -> dict[str, str]:
    """Node key → the name shown for it (its first spelling, ground truth before prediction)."""
    names: dict[str, str] = {}
    for e in edges:
        for raw, key in zip((e.head, e.tail), e.ends):
            names.setdefault(key, raw)
    return names


def entity_choices(gt: Sequence[dict], pred: Sequence[dict]) -> list[tuple[str, str]]:
    """(label, key) of every entity for a focus picker: most connected first, then by name."""
    edges = classify(gt, pred, None)
    names = entity_names(edges)
    degree: dict[str, int] = {}
    for e in edges:
        for key in set(e.ends):
            degree[key] = degree.get(key, 0) + 1
    order = sorted(names, key=lambda k: (-degree[k], names[k].casefold()))
    return [(f"{names[k]} ({degree[k]})", k) for k in order]


def select(edges: Sequence[Edge], show: str, focus: str | None) -> list[Edge]:
    """The triples a filter keeps: ``all``, ``missed``, ``invalid`` or ``focus`` (edges at one node)."""
    if show in SHOWN:
        return [e for e in edges if e.category in SHOWN[show]]
    if show == "focus":  # no entity picked: nothing (the picture asks for one), not the whole graph
        return [e for e in edges if focus in e.ends] if focus else []
    return list(edges)


def shared_positions(gt: Sequence[dict], preds: Sequence[Sequence[dict]]) -> dict[str, tuple[float, float]]:
    """One layout for the ground truth and several predicted graphs (side-by-side pictures)."""
    edges = classify(gt, [t for pred in preds for t in pred], None)
    return layout(list(entity_names(edges)), [e.ends for e in edges])
