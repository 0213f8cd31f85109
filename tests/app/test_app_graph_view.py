"""The graph picture: categories of triples, one node per normalised entity, components packed
apart, a deterministic layout, the filters (missed only, invalid only, one entity's neighbourhood)
and the time to draw 150 × 150 triples."""

from __future__ import annotations

import time

import pytest
from graph_samples import sample

from vibesearch.results.graph_layout import _layout, components, entity_key, layout
from vibesearch.app.graph_view import (
    LABELS,
    GraphData,
    category_counts,
    classify,
    entity_choices,
    graph_figure,
    norm_entity,
)
from vibesearch.app.graph_view import redraw as panel_redraw

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


def legend(fig) -> list[str]:
    return [t.name for t in fig.data if t.showlegend is not False and t.mode != "text"]


def nodes_of(fig):
    return next(t for t in fig.data if (t.name or "").startswith("entities"))


def triples_of(fig, cat: str) -> set[str]:
    """The triples a category's edges show on hover ("head — relation → tail")."""
    out: set[str] = set()
    for t in fig.data:
        if t.mode == "markers" and t.legendgroup == cat:
            out |= {h.split("<br>")[0].replace("<b>", "").replace("</b>", "") for h in t.hovertext}
    return out


def test_classify_with_verdicts():
    edges = classify(GT, PRED, VERDICTS)
    assert category_counts(edges) == {"gt_covered": 2, "gt_missed": 1, "pred_valid": 2, "pred_invalid": 1}
    assert [e.category for e in edges if e.category.startswith("pred")] == ["pred_valid", "pred_valid", "pred_invalid"]


def test_classify_without_verdicts_is_not_judged():
    edges = classify(GT, PRED, None)
    assert category_counts(edges) == {"gt_unjudged": 3, "pred_unjudged": 3}


def test_figure_has_a_legend_entry_per_category_colour_and_line_style():
    fig = graph_figure(GT, PRED, VERDICTS, title="t")
    names = legend(fig)
    for cat, n in (("gt_covered", 2), ("gt_missed", 1), ("pred_valid", 2), ("pred_invalid", 1)):
        assert f"{LABELS[cat]} ({n})" in names
    lines = {t.legendgroup: t.line for t in fig.data if t.mode == "lines"}
    assert lines["gt_covered"].dash == lines["gt_missed"].dash == "solid"
    assert lines["pred_valid"].dash == lines["pred_invalid"].dash == "dash"
    assert len({line.color for line in lines.values()}) == 4
    assert "Euler — liked → e" in triples_of(fig, "pred_invalid")
    assert fig.layout.dragmode == "pan"


def test_entities_are_merged_by_the_scoring_normaliser():
    assert norm_entity("isaac  newton") == norm_entity("Isaac Newton") == norm_entity("ISAAC NEWTON")
    assert entity_key("1,000") == entity_key("1000")
    assert entity_key("東京") == entity_key("东京")  # traditional and simplified Chinese
    fig = graph_figure(GT, PRED, VERDICTS)
    keys = list(nodes_of(fig).customdata)
    assert len(keys) == len(set(keys)) == 8  # Newton and calculus once each


def test_no_node_is_placed_twice_at_150_by_150():
    gt, pred, verdicts = sample(150, 150)
    fig = graph_figure(gt, pred, verdicts)
    keys = list(nodes_of(fig).customdata)
    every = {entity_key(t[end]) for t in gt + pred for end in ("head", "tail")}
    assert len(keys) == len(set(keys)) == len(every)
    points = set(zip(nodes_of(fig).x, nodes_of(fig).y))
    assert len(points) == len(keys)  # no two entities on the same spot


def test_the_layout_is_deterministic():
    gt, pred, verdicts = sample(75, 52)
    first = graph_figure(gt, pred, verdicts)
    _layout.cache_clear()
    again = graph_figure(gt, pred, verdicts)
    assert list(first.to_plotly_json()["data"]) == list(again.to_plotly_json()["data"])


def test_components_are_packed_apart_biggest_first():
    pairs = [("a", "b"), ("b", "c"), ("c", "d"), ("x", "y"), ("p", "q"), ("q", "r")]
    nodes = list(dict.fromkeys(v for p in pairs for v in p))
    comps = components(nodes, pairs)
    assert [len(c) for c in comps] == [4, 3, 2]
    pos = layout(nodes, pairs)
    boxes = [(min(pos[v][0] for v in c), min(pos[v][1] for v in c), max(pos[v][0] for v in c), max(pos[v][1] for v in c)) for c in comps]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], (a, b)  # no two boxes overlap


def test_missed_only_shows_only_the_missed_ground_truth():
    gt, pred, verdicts = sample(150, 150)
    fig = graph_figure(gt, pred, verdicts, show="missed")
    missed = {f"{gt[i]['head']} — {gt[i]['relation']} → {gt[i]['tail']}" for i, (ok, _) in verdicts.items() if not ok}
    assert legend(fig) == [f"{LABELS['gt_missed']} ({len(missed)})", f"entities ({len(nodes_of(fig).x)})"]
    assert [t.legendgroup for t in fig.data if t.mode in ("lines", "markers") and t.legendgroup] == ["gt_missed", "gt_missed"]
    assert triples_of(fig, "gt_missed") == missed
    ends = {entity_key(gt[i][end]) for i, (ok, _) in verdicts.items() if not ok for end in ("head", "tail")}
    assert set(nodes_of(fig).customdata) == ends  # only the entities of missed triples
    assert "showing missed ground truth only" in fig.layout.title.text


def test_invalid_only_shows_only_the_invalid_predictions():
    fig = graph_figure(GT, PRED, VERDICTS, show="invalid")
    assert legend(fig) == [f"{LABELS['pred_invalid']} (1)", "entities (2)"]
    assert triples_of(fig, "pred_invalid") == {"Euler — liked → e"}


def test_a_neighbourhood_shows_every_triple_at_one_entity():
    gt, pred, verdicts = sample(150, 150)
    key, label = entity_choices(gt, pred)[0][1], entity_choices(gt, pred)[0][0]
    fig = graph_figure(gt, pred, verdicts, show="focus", focus=key)
    around = [t for t in gt + pred if key in (entity_key(t["head"]), entity_key(t["tail"]))]
    shown = sum(len(t.hovertext) for t in fig.data if t.mode == "markers" and t.legendgroup)
    assert shown == len(around) and label.endswith(f"({len(around)})")
    assert "neighbourhood of" in fig.layout.title.text


def test_unscored_filters_say_why_they_are_empty():
    fig = graph_figure(GT, PRED, None, show="missed")
    assert not [t for t in fig.data if t.mode == "lines"]
    assert "Not scored yet" in fig.layout.annotations[0].text


def test_names_printed_on_the_canvas_are_few():
    gt, pred, verdicts = sample(150, 150)
    fig = graph_figure(gt, pred, verdicts)
    printed = [a.text for a in fig.layout.annotations]
    assert 1 <= len(printed) <= 4  # one per big component; the rest show on hover
    assert all(len(p) <= 30 for p in printed)  # long names keep their start and end


def test_the_panel_redraws_from_its_state():
    data = GraphData(GT, PRED, VERDICTS, "t")
    assert legend(panel_redraw(data, "invalid", None)) == [f"{LABELS['pred_invalid']} (1)", "entities (2)"]
    assert panel_redraw(None, "missed", None) is None
    assert len(legend(panel_redraw(data, "bogus", None))) == 5  # an unknown filter shows everything


def test_empty_prediction_still_draws_the_ground_truth():
    fig = graph_figure(GT, [], {0: (False, []), 1: (False, []), 2: (False, [])})
    names = legend(fig)
    assert f"{LABELS['gt_missed']} (3)" in names
    assert not any("predicted" in (n or "") for n in names)


@pytest.mark.parametrize("n_gt, n_pred", [(75, 52), (150, 150)])
def test_drawing_150_by_150_takes_under_a_second(n_gt, n_pred):
    gt, pred, verdicts = sample(n_gt, n_pred)
    graph_figure(GT, PRED, VERDICTS)  # imports and first calls out of the way
    _layout.cache_clear()
    started = time.perf_counter()
    graph_figure(gt, pred, verdicts)
    took = time.perf_counter() - started
    assert took < 2.0, f"{took:.2f}s"  # about 0.2 s on an idle core; the bound leaves room for a loaded CI


LAYOUT_PROBE = """
import json
from vibesearch.results.graph_layout import layout
hub = [("hub", f"leaf {i}") for i in range(40)]
small = [("a", "b"), ("b", "c"), ("c", "d"), ("x", "y"), ("y", "z")]
nodes = ["hub", *[f"leaf {i}" for i in range(40)], "a", "b", "c", "d", "x", "y", "z"]
print(json.dumps({k: [round(v[0], 9), round(v[1], 9)] for k, v in layout(nodes, hub + small).items()}))
"""


def test_the_layout_is_the_same_in_every_process():
    """A small component of a big graph is placed the same whatever the process's hash seed (a
    subgraph view listed its nodes in a set's order: ``site verify`` then drew another picture
    than the build and refused every such page)."""
    import os
    import subprocess
    import sys

    seen = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", LAYOUT_PROBE], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout)
    assert len(seen) == 1


def test_the_picture_s_words_follow_its_language():
    """A Chinese run's picture (``GraphData.lang``, the task's language as the Runs tab gives it):
    legend, heading and notes in Chinese; the triples' own words as written; English unchanged."""
    en = graph_figure(GT, PRED, VERDICTS, title="t", show="missed")
    zh = graph_figure(GT, PRED, VERDICTS, title="t", show="missed", lang="zh")
    assert legend(en) == ["ground truth: missed (1)", "entities (2)"]
    assert legend(zh) == ["标准答案：遗漏 (1)", "实体（2）"]
    assert en.layout.title.text == "t · showing missed ground truth only: 1 of 6 triples"
    assert zh.layout.title.text == "t · 只看遗漏的标准答案：6 个三元组中的 1 个"
    assert any("Cours d'analyse" in str(t.hovertext) and "标准答案 #3 · 标准答案：遗漏" in str(t.hovertext) for t in zh.data)
    empty = GraphData(GT, [], {}, "t", "zh").figure("invalid")
    assert [a.text for a in empty.layout.annotations] == ["尚未评分：为这次运行评分后才能看到哪些三元组遗漏或无效。"]
