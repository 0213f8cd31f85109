"""The result beside the score: Play and Runs list the missed ground-truth triples, the Runs
tab's Scores tab lists every ground-truth triple with covered / missed, the judge's rule and the
supporting predicted triples, and the offline baseline's tokens and cost read "n/a"."""

from __future__ import annotations

import json

import pytest

from vibesearch.app.panels import gt_rows, missed_html, stats_html, verdict_rows
from vibesearch.app.play import refresh
from vibesearch.app.context import RunView
from vibesearch.app.ui import build_app
from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.scoring import run_stats
from vibesearch.scoring import score_run
from vibesearch.store import ScoreRow, VerdictRow

COMPONENTS = {name: name for name in (
    "view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score",
    "table_answer", "pred_table", "timer", "persona",
)}
GT = [{"head": "Star Alliance", "relation": "founded in", "tail": "1997"},
      {"head": "SkyTeam", "relation": "founded in", "tail": "2000"},
      {"head": "Oneworld", "relation": "founded in", "tail": "1999"}]
PRED = [{"head": "Star Alliance", "relation": "founding year", "tail": "1997"}, {"head": "Oneworld", "relation": "hub", "tail": "London"}]


def _scored_baseline_run(store, task):
    """A finished run of the offline baseline on ``task`` (its graph replaced by ``GT``), scored offline."""
    snap = task.model_dump(mode="json")
    snap["graph"] = GT
    run = store.create_run(task.id, task_json=snap, agent="baseline", user="rules", status="finished")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
    store.append(run.id, GraphEvent(triples=PRED, raw_text=json.dumps(PRED)))
    store.append(run.id, EndEvent(termination="max_user_turns"))
    score_run(store, run.id)
    return store.get_run(run.id)


def test_ground_truth_rows_and_missed_list(store):
    store_run = store.create_run("t", task_json={"graph": GT}, agent="baseline", user="rules", status="finished")
    verdicts = [VerdictRow(score_id=0, run_id=store_run.id, gt_index=0, covered=True, rule="number match", rationale="same year", evidence_json="[0]"),
                VerdictRow(score_id=0, run_id=store_run.id, gt_index=1, covered=False, rule="no candidate", evidence_json="[]"),
                VerdictRow(score_id=0, run_id=store_run.id, gt_index=2, covered=None, rationale="judge failed", evidence_json="[1]")]
    score = store.add_score(ScoreRow(run_id=store_run.id, judge="offline", precision=0.5, recall=0.5, f1=0.5, n_gt=3, n_pred=2,
                                     n_covered=1, n_valid=1, n_unscored=1), verdicts)
    rows = verdict_rows(store, score)
    table = gt_rows(GT, PRED, rows)
    assert table[0] == [1, "Star Alliance", "founded in", "1997", "✓ covered", "number match: same year", "(Star Alliance, founding year, 1997)"]
    assert table[1][4:] == ["✗ missed", "no candidate", ""]
    assert table[2][4:] == ["? unscored", "judge failed", ""]  # no evidence shown for an undecided triple
    assert gt_rows(GT, PRED, {})[0][4] == "—"
    html = missed_html(GT, rows, judge="offline", elem_id="x-missed")
    assert "id='x-missed'" in html and "1 of 3" in html and "SkyTeam — founded in — 2000" in html and "value='2'" in html
    assert "Star Alliance" not in html and "1 ground-truth triple(s) unscored" in html
    assert missed_html(GT, {}, judge="offline", elem_id="x") == ""


def test_baseline_counters_say_n_a(store, settings):
    from vibesearch.app.catalog import TaskCatalog

    task = TaskCatalog.load(settings).get(TaskCatalog.load(settings).default_id())
    run = _scored_baseline_run(store, task)
    stats = run_stats(store, run.id)
    html = stats_html(stats, no_model=True)
    assert "n/a (no model calls)" in html and "$0.0000" not in html and "0 / 0" not in html
    assert "0 / 0" in stats_html(stats)  # a model agent without calls yet shows its measured zero
    used = stats.model_copy(update={"input_tokens": 120, "output_tokens": 30})  # a simulator's calls are real
    assert "120 / 30" in stats_html(used, no_model=True)


@pytest.fixture
def app(settings):
    demo = build_app(settings)
    yield demo
    demo.vibesearch.manager.shutdown()


def test_play_lists_the_missed_triples_beside_the_score(app):
    ctx = app.vibesearch
    task = ctx.catalog.get(ctx.catalog.default_id())
    run = _scored_baseline_run(ctx.store, task)
    out = refresh(ctx, ctx.who(None, None), RunView(run_id=run.id), COMPONENTS)
    assert "offline judge" in out["score"] and "id='vs-play-missed'" in out["score"]
    missed = out["score"].split("vs-play-missed", 1)[1]
    assert "SkyTeam — founded in — 2000" in missed and "Oneworld — founded in — 1999" in missed and "2 of 3" in missed
    assert "Star Alliance" not in missed
    assert "n/a (no model calls)" in out["counters"]


def _handler(demo, name):
    return next(d.fn for d in demo.fns.values() if getattr(d.fn, "__name__", "") == name)


def test_runs_tab_scores_tab_lists_every_ground_truth_triple(app):
    ctx = app.vibesearch
    task = ctx.catalog.get(ctx.catalog.default_id())
    run = _scored_baseline_run(ctx.store, task)
    out = _handler(app, "on_open")(None, run.id, None)
    by_id = {getattr(k, "elem_id", None): v for k, v in out.items()}
    missed = by_id["vs-runs-missed"]
    assert "vs-runs-missed-list" in missed and "SkyTeam — founded in — 2000" in missed and "2 of 3" in missed
    rows = by_id["vs-runs-gt"]
    assert [r[0] for r in rows] == [1, 2, 3] and [r[4] for r in rows] == ["✓ covered", "✗ missed", "✗ missed"]
    assert rows[0][6] == "(Star Alliance, founding year, 1997)" and rows[0][5]  # the rule that matched, and its evidence
    assert "n/a (no model calls)" in by_id["vs-runs-stats"]
    # choosing the judge again redraws the lists from that judge's verdicts
    again = {getattr(k, "elem_id", None): v for k, v in _handler(app, "on_judge")(RunView(run_id=run.id), "offline").items()}
    assert again["vs-runs-missed"] == missed and again["vs-runs-gt"] == rows
    assert again["vs-runs-graph-show"] == "all" and again["vs-runs-graph"] is not None  # the picture redrawn, unfiltered


def test_agreement_side_html_shows_intervals_and_the_kappa_note(store):
    from vibesearch.app.panels import agreement_side_html
    from vibesearch.labels.agreement import agreement_report

    run = store.create_run("t", task_json={"graph": GT, "language": "en", "subset": "pro"}, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=PRED, raw_text=json.dumps(PRED)))
    verdicts = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=True, evidence_json="[0]") for i in range(3)]
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=1, recall=1, f1=1, n_gt=3, n_pred=2, n_covered=3, n_valid=1), verdicts)
    for i, c in enumerate([True, False, True]):
        store.put_label(run.id, i, "ann", c)
    rep = agreement_report(store, run.id)
    html = agreement_side_html(rep, elem_id="vs-x")
    assert "id='vs-x'" in html and "66.7%" in html and "[" in html and "vibesearch profile" in html
    assert "κ is 0 because offline judge said &quot;covered&quot; for all 3 ground-truth triples" in html
    assert "66.7%" in agreement_side_html(rep, against="ann")  # the annotator's own row, same columns
    assert "No judge" in agreement_side_html(rep, against="nobody")
    assert "No judge" in agreement_side_html(rep["validity"])
