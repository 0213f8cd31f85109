"""Text from tasks and models in a plotly figure (hover text, ticks, legend names, titles) is shown as
written: plotly draws ``<a href>``/``<b>`` in those strings, so they reach it escaped. The HTML
report's inline SVG figures escape the same text as HTML."""

from __future__ import annotations

import json

from vibesearch.app import graph_figure
from vibesearch.app.leaderboard import f1_figure, pr_figure
from vibesearch.reports import build_report
from vibesearch.reports.html import figures_html
from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.scoring import collect_runs, score_table
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow

LINK = "<a href='http://127.0.0.1:9/x'>click</a>"
TRIPLE = {"head": f"Kyoto {LINK}", "relation": "<b>has</b>", "tail": "Kinkaku-ji"}


def _strings(fig) -> str:
    return json.dumps(fig.to_plotly_json(), ensure_ascii=False)


def test_figures_escape_names_from_tasks_and_models(tmp_path):
    store = Store(tmp_path / "p.db")
    snapshot = {"id": "t<b>1</b>", "subset": "pro", "language": "en", "extra": {}, "graph": [TRIPLE],
                "persona": {"background": "b", "initial_query": "q",
                            "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}
    run = store.create_run("t<b>1</b>", task_json=snapshot, agent="react", agent_model=f"fake/{LINK}", user="rules", status="finished")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, GraphEvent(triples=[TRIPLE]))
    store.append(run.id, EndEvent(termination="done"))
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=1.0, recall=1.0, f1=1.0, n_gt=1, n_pred=1, n_covered=1, n_valid=1), [])
    records, _ = collect_runs(store)
    figures = [f1_figure(score_table(records)), pr_figure(records),
               graph_figure([TRIPLE], [TRIPLE], {}, title=f"verdicts of {LINK}")]
    for fig in figures:
        text = _strings(fig)
        assert "<a href" not in text and "<b>has" not in text and "t<b>1" not in text, text[:400]
    joined = "".join(_strings(f) for f in figures)
    assert "&lt;a href='http://127.0.0.1:9/x'&gt;click&lt;/a&gt;" in joined  # shown as the characters it is
    assert "&lt;b&gt;has&lt;/b&gt;" in joined
    # the HTML report's figures are inline SVG (no plotly): the same names are escaped as HTML text
    svg = "".join(figures_html(build_report(store)))
    assert "<a href" not in svg and "<b>" not in svg
    assert "&lt;a href=&#x27;http://127.0.0.1:9/x&#x27;&gt;click&lt;/a&gt;" in svg and "t&lt;b&gt;1&lt;/b&gt;" in svg
