"""The graph picture: ground truth against prediction, as a pannable, zoomable plotly network.

Entities of both graphs share nodes when their names normalise to the same text. Each triple is
an edge drawn in its category's colour:

* ground truth covered by the prediction / missed by it (solid lines);
* predicted triples that are valid (evidence for a covered ground-truth triple) / invalid
  (dashed lines).

Without a judge verdict the ground-truth triples and predicted triples are drawn as "not judged".
Hovering a node shows its name; hovering the middle of an edge shows the triple.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

import plotly.graph_objects as go

COLOURS = {
    "gt_covered": "#2e9e57",
    "gt_missed": "#d9534f",
    "pred_valid": "#2b6cb0",
    "pred_invalid": "#e0a030",
    "gt_unjudged": "#8a8a8a",
    "pred_unjudged": "#b0b7c3",
}
LABELS = {
    "gt_covered": "ground truth: covered",
    "gt_missed": "ground truth: missed",
    "pred_valid": "predicted: valid",
    "pred_invalid": "predicted: invalid",
    "gt_unjudged": "ground truth (not judged)",
    "pred_unjudged": "predicted (not judged)",
}
MAX_LABELLED_NODES = 15  # node names drawn on the canvas (the rest show on hover)
LEGEND_RANK = {"gt_covered": 1, "gt_missed": 2, "gt_unjudged": 3, "pred_valid": 4, "pred_invalid": 5, "pred_unjudged": 6}
PRED_BEND = 0.18  # how far a predicted edge bows out, relative to its length


def norm_entity(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = re.sub(r"[\s\-_.,;:'\"“”‘’()\[\]《》「」]+", " ", text)
    return text.strip()


@dataclass
class Edge:
    head: str
    relation: str
    tail: str
    category: str
    index: int  # index in its own graph


def classify(
    gt: Sequence[dict], pred: Sequence[dict], verdicts: dict[int, tuple[bool | None, list[int]]] | None
) -> list[Edge]:
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
        edges.append(Edge(t["head"], t["relation"], t["tail"], cat, i))
    for i, t in enumerate(pred):
        cat = "pred_unjudged" if not verdicts else ("pred_valid" if i in valid else "pred_invalid")
        edges.append(Edge(str(t.get("head", "")), str(t.get("relation", "")), str(t.get("tail", "")), cat, i))
    return edges


def _layout(nodes: list[str], pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    try:
        import networkx as nx
    except ImportError:  # a circle is always available
        n = max(1, len(nodes))
        return {v: (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i, v in enumerate(nodes)}
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(pairs)
    k = 2.5 / math.sqrt(max(1, len(nodes)))
    pos = nx.spring_layout(g, seed=7, k=k, iterations=60)
    return {v: (float(x), float(y)) for v, (x, y) in pos.items()}


def graph_figure(
    gt: Sequence[dict],
    pred: Sequence[dict],
    verdicts: dict[int, tuple[bool | None, list[int]]] | None = None,
    *,
    title: str = "",
) -> go.Figure:
    edges = classify(gt, pred, verdicts)
    names: dict[str, str] = {}  # normalised → shown name (first seen)
    side: dict[str, set[str]] = {}
    degree: dict[str, int] = {}
    for e in edges:
        for raw in (e.head, e.tail):
            key = norm_entity(raw) or raw
            names.setdefault(key, raw)
            side.setdefault(key, set()).add("gt" if e.category.startswith("gt") else "pred")
            degree[key] = degree.get(key, 0) + 1
    nodes = list(names)
    pos = _layout(nodes, [(norm_entity(e.head) or e.head, norm_entity(e.tail) or e.tail) for e in edges])

    fig = go.Figure()
    order = ["pred_valid", "pred_invalid", "pred_unjudged", "gt_covered", "gt_missed", "gt_unjudged"]
    for cat in order:
        group = [e for e in edges if e.category == cat]
        if not group:
            continue
        xs: list[float | None] = []
        ys: list[float | None] = []
        mx, my, hover = [], [], []
        bend = 0.0 if cat.startswith("gt") else PRED_BEND
        for e in group:
            (x0, y0), (x1, y1) = pos[norm_entity(e.head) or e.head], pos[norm_entity(e.tail) or e.tail]
            # predicted edges bow out a little so they do not hide the ground truth they match
            cx, cy = (x0 + x1) / 2 - bend * (y1 - y0), (y0 + y1) / 2 + bend * (x1 - x0)
            xs += [x0, cx, x1, None]
            ys += [y0, cy, y1, None]
            mx.append(cx)
            my.append(cy)
            which = "GT" if cat.startswith("gt") else "pred"
            hover.append(f"{which} #{e.index}: {e.head} — {e.relation} → {e.tail}<br>{LABELS[cat]}")
        dash = "solid" if cat.startswith("gt") else "dash"
        fig.add_trace(
            go.Scatter(
                x=xs, y=ys, mode="lines", name=f"{LABELS[cat]} ({len(group)})", legendgroup=cat, legendrank=LEGEND_RANK[cat],
                line={"color": COLOURS[cat], "width": 2 if cat.startswith("gt") else 1.5, "dash": dash},
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=mx, y=my, mode="markers", legendgroup=cat, showlegend=False, hovertext=hover, hoverinfo="text",
                marker={"size": 7, "color": COLOURS[cat], "opacity": 0.55, "symbol": "diamond"},
            )
        )
    top = set(sorted(nodes, key=lambda v: -degree[v])[:MAX_LABELLED_NODES])
    node_colour = {frozenset({"gt"}): "#444444", frozenset({"pred"}): "#7aa6d6", frozenset({"gt", "pred"}): "#1f3b57"}
    fig.add_trace(
        go.Scatter(
            x=[pos[v][0] for v in nodes],
            y=[pos[v][1] for v in nodes],
            mode="markers+text",
            text=[names[v] if v in top else "" for v in nodes],
            textposition="top center",
            textfont={"size": 10},
            hovertext=[f"{names[v]}<br>{degree[v]} triple(s) · in {' & '.join(sorted(side[v]))}" for v in nodes],
            hoverinfo="text",
            name="entities",
            legendrank=10,
            marker={
                "size": [6 + min(14, 2 * degree[v]) for v in nodes],
                "color": [node_colour[frozenset(side[v])] for v in nodes],
                "line": {"width": 1, "color": "white"},
            },
        )
    )
    fig.update_layout(
        title=title or None,
        showlegend=True,
        legend={"orientation": "h", "y": -0.05},
        hovermode="closest",
        dragmode="pan",
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        height=620,
        xaxis={"visible": False},
        yaxis={"visible": False},
        plot_bgcolor="white",
    )
    return fig


def category_counts(edges: Sequence[Edge]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in edges:
        out[e.category] = out.get(e.category, 0) + 1
    return out
