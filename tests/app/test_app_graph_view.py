"""The graph picture: four categories of triples, shared entity nodes, a pannable figure."""

from __future__ import annotations

from vibesearch.app.graph_view import LABELS, category_counts, classify, graph_figure, norm_entity

GT = [
    {"head": "Isaac Newton", "relation": "invented", "tail": "calculus"},
    {"head": "Leibniz", "relation": "published", "tail": "1684"},
    {"head": "Cauchy", "relation": "wrote", "tail": "Cours d'analyse"},
]
PRED = [
    {"head": "isaac  newton", "relation": "developed", "tail": "Calculus"},
    {"head": "Leibniz", "relation": "published calculus in", "tail": "1684"},
    {"head": "Euler", "relation": "liked", "tail": "e"},
]
VERDICTS = {0: (True, [0]), 1: (True, [1]), 2: (False, [])}


def test_classify_with_verdicts():
    edges = classify(GT, PRED, VERDICTS)
    assert category_counts(edges) == {"gt_covered": 2, "gt_missed": 1, "pred_valid": 2, "pred_invalid": 1}
    assert [e.category for e in edges if e.category.startswith("pred")] == ["pred_valid", "pred_valid", "pred_invalid"]


def test_classify_without_verdicts_is_not_judged():
    edges = classify(GT, PRED, None)
    assert category_counts(edges) == {"gt_unjudged": 3, "pred_unjudged": 3}


def test_figure_has_a_legend_entry_per_category_and_merges_entities():
    fig = graph_figure(GT, PRED, VERDICTS, title="t")
    names = [t.name for t in fig.data if t.showlegend is not False]
    for cat, n in (("gt_covered", 2), ("gt_missed", 1), ("pred_valid", 2), ("pred_invalid", 1)):
        assert f"{LABELS[cat]} ({n})" in names
    nodes = next(t for t in fig.data if t.name == "entities")
    # "Isaac Newton"/"isaac  newton" and "calculus"/"Calculus" are one node each
    assert norm_entity("isaac  newton") == norm_entity("Isaac Newton")
    shown = {norm_entity(h.split("<br>")[0]) for h in nodes.hovertext}
    assert len(shown) == len(nodes.x) == 8
    # hovering an edge midpoint names the triple
    mids = [t for t in fig.data if t.mode == "markers" and t.legendgroup == "pred_invalid"][0]
    assert "Euler — liked → e" in mids.hovertext[0]
    assert fig.layout.dragmode == "pan"


def test_empty_prediction_still_draws_the_ground_truth():
    fig = graph_figure(GT, [], {0: (False, []), 1: (False, []), 2: (False, [])})
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert f"{LABELS['gt_missed']} (3)" in names
    assert not any("predicted" in (n or "") for n in names)
