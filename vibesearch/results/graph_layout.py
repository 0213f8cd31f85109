"""Where the graph picture puts its entities: once each, one connected component per block.

Entity names are merged by the scoring normaliser (case, width, Unicode form, traditional/simplified
Chinese, number formats, punctuation), so "Isaac Newton" and "isaac  newton" are one node. Each
connected component is laid out on its own with networkx's spring layout (a fixed seed: the same
graph always gives the same picture), scaled so that every component has the same node density, and
the components are packed in rows, biggest first.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import networkx as nx

from ..judges.offline import base, norm

SEED = 7
GAP = 0.6  # space around each component, in node spacings
ASPECT = 2.0  # the plot's width over its height, which the packed components should fill


def entity_key(name: str) -> str:
    """The node an entity name is drawn as: its matching form (or its plain text when that is empty)."""
    text = str(name)
    return norm(text) or base(text) or text


Pos = dict[str, tuple[float, float]]


def _component(g: "nx.Graph", nodes: list[str]) -> Pos:
    """One component, centred, spread over a square whose side grows with the root of its size."""
    n = len(nodes)
    if n == 1:
        return {nodes[0]: (0.0, 0.0)}
    if n == 2:
        return {nodes[0]: (-0.5, 0.0), nodes[1]: (0.5, 0.0)}
    import networkx as nx  # half a second of imports: loaded when a graph is first drawn, not when the app starts

    # a graph of its own, its nodes in ``nodes`` order: a subgraph view of a small part of ``g``
    # lists its nodes in the order of a set (another order in every process, so another picture,
    # and ``site verify`` could not render a page again)
    sub = nx.Graph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from(g.subgraph(nodes).edges())
    # a longer ideal edge than networkx's default spreads the leaves around each hub
    raw = nx.spring_layout(sub, seed=SEED, iterations=150 if n <= 200 else 80, k=2.0 / math.sqrt(n))
    xs = [float(raw[v][0]) for v in nodes]
    ys = [float(raw[v][1]) for v in nodes]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    side = 1.1 * math.sqrt(n)
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return {v: ((x - cx) / span * side, (y - cy) / span * side) for v, x, y in zip(nodes, xs, ys)}


def _extent(pos: Pos) -> tuple[float, float, float, float]:
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    return min(xs), min(ys), max(xs), max(ys)


def components(nodes: Sequence[str], pairs: Sequence[tuple[str, str]]) -> list[list[str]]:
    """The connected components, biggest first (ties by their first node in ``nodes`` order)."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from((a, b) for a, b in pairs if a != b)
    order = {v: i for i, v in enumerate(nodes)}
    comps = [sorted(c, key=order.__getitem__) for c in nx.connected_components(g)]
    comps.sort(key=lambda c: (-len(c), order[c[0]]))
    return comps


def layout(nodes: Sequence[str], pairs: Sequence[tuple[str, str]]) -> Pos:
    """A position for every node; deterministic for the same nodes and pairs."""
    return dict(_layout(tuple(nodes), tuple(pairs)))


@lru_cache(maxsize=32)
def _layout(nodes: tuple[str, ...], pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, tuple[float, float]], ...]:
    if not nodes:
        return ()
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from((a, b) for a, b in pairs if a != b)
    blocks = [_component(g, comp) for comp in components(nodes, pairs)]
    sizes = []
    for pos in blocks:
        x0, y0, x1, y1 = _extent(pos)
        sizes.append((x1 - x0 + 2 * GAP, y1 - y0 + 2 * GAP))
    # shelf packing in rows; of a few row widths, the one whose picture is closest to the plot's shape
    widest, total = max(w for w, _ in sizes), sum(w for w, _ in sizes)
    tries = sorted({min(total, max(widest, total * f / 8)) for f in range(1, 9)})
    best = min(tries, key=lambda width: abs(math.log(_aspect(sizes, _shelves(sizes, width)) / ASPECT)))
    out: dict[str, tuple[float, float]] = {}
    for pos, (x, y) in zip(blocks, _shelves(sizes, best)):
        x0, y0, x1, y1 = _extent(pos)
        for v, (px, py) in pos.items():  # the block's top-left corner at (x, y); rows go downwards
            out[v] = (x + GAP + px - x0, y - GAP - (y1 - py))
    return tuple(out.items())


def _shelves(sizes: list[tuple[float, float]], row_width: float) -> list[tuple[float, float]]:
    """The top-left corner of each block, filled in rows at most ``row_width`` wide."""
    corners = []
    x = y = row_height = 0.0
    for w, h in sizes:
        if x > 0 and x + w > row_width + 1e-9:
            x, y, row_height = 0.0, y - row_height, 0.0
        corners.append((x, y))
        x += w
        row_height = max(row_height, h)
    return corners


def _aspect(sizes: list[tuple[float, float]], corners: list[tuple[float, float]]) -> float:
    """Width over height of the packed picture."""
    width = max(x + w for (x, _), (w, _) in zip(corners, sizes))
    height = max(h - y for (_, y), (_, h) in zip(corners, sizes))
    return width / height
