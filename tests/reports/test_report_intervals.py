"""Avg@N / Best@N intervals and spread in the reports and the Leaderboard, the report's --where
filter, and tokens that were never recorded. The intervals are checked against a bootstrap
written out here (numpy, the same seed and resample count as ``scoring.bootstrap``)."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict

import numpy as np
import pytest
from typer.testing import CliRunner

from vibesearch.run import EndEvent, GraphEvent, MessageEvent, UsageEvent
from vibesearch.scoring import bootstrap as _bootstrap, score_run
from vibesearch.store import Store


def T(h, r, t):
    return {"head": h, "relation": r, "tail": t}


GT = [T("A", "r", str(i)) for i in range(6)]


def snapshot(task_id, subset, language):
    return {"id": task_id, "subset": subset, "language": language, "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}


# per task: how many of the six ground-truth triples each run finds (a different F1 per run)
FOUND = {("t1", "pro", "en"): [6, 2, 4], ("t2", "pro", "en"): [1, 3, 0], ("t3", "daily", "zh"): [5, 5, 2], ("t4", "daily", "zh"): [0, 4, 1]}


def _run(store, task, found, *, agent="react", model="fake/a", usage=True, source="live"):
    task_id, subset, lang = task
    run = store.create_run(task_id, task_json=snapshot(task_id, subset, lang), status="finished", agent=agent,
                           agent_model=model, user="rules", source=source)
    store.append(run.id, MessageEvent(role="user", content="q"))
    if usage:
        store.append(run.id, UsageEvent(purpose="agent", model="m", input_tokens=700, output_tokens=70, cost_usd=0.01))
    store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
    store.append(run.id, GraphEvent(triples=GT[:found] + [T("B", "s", "x")]))
    store.append(run.id, EndEvent(termination="max_user_turns"))
    score_run(store, run.id)
    return run.id


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.db"
    store = Store(path)
    for task, founds in FOUND.items():
        for k in founds:
            _run(store, task, k)
    # a second configuration on two tasks only: the offline baseline (no model at all)
    _run(store, ("t1", "pro", "en"), 3, agent="baseline", model=None, usage=False)
    _run(store, ("t2", "pro", "en"), 2, agent="baseline", model=None, usage=False)
    return path


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def plain_bootstrap(values):
    """Percentile bootstrap of the mean, written out: every resample at once, the tasks drawn with replacement."""
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(_bootstrap.SEED)
    idx = rng.integers(0, len(v), size=(_bootstrap.RESAMPLES, len(v)))
    tail = 100 * (1 - _bootstrap.LEVEL) / 2
    return [float(x) for x in np.percentile(v[idx].mean(axis=1), [tail, 100 - tail])]


def per_task_f1(store: Store, agent: str, language: str | None = None) -> dict[str, list[float]]:
    """Each task's stored F1 values for one agent, read from the store's own scores."""
    out: dict[str, list[float]] = defaultdict(list)
    for run in store.list_runs():
        if run.agent == agent and (language is None or run.task().language == language):
            out[run.task_id].append(store.scores(run.id)[-1].f1)
    return dict(sorted(out.items()))


def test_json_report_intervals_equal_a_plain_bootstrap(cli, db):
    res = cli("report", "--format", "json", "--db", db)
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["intervals"]["resamples"] == _bootstrap.RESAMPLES and rep["intervals"]["seed"] == _bootstrap.SEED
    f1s = per_task_f1(Store(db), "react")
    (row,) = [r for r in rep["scores"] if r["group"] == "all" and r["config"].startswith("react")]
    avg = [statistics.mean(v) for v in f1s.values()]
    best = [max(v) for v in f1s.values()]
    assert row["n"] == 3 and row["n_tasks"] == 4
    assert row["avg_f1"] == pytest.approx(statistics.mean(avg)) and row["best_f1"] == pytest.approx(statistics.mean(best))
    assert row["avg_f1_ci"] == pytest.approx(plain_bootstrap(avg), abs=1e-12)
    assert row["best_f1_ci"] == pytest.approx(plain_bootstrap(best), abs=1e-12)
    low, high = row["avg_f1_ci"]
    assert low < row["avg_f1"] < high  # four different tasks: a real interval, not a point
    pooled = statistics.mean(statistics.variance(v) for v in f1s.values()) ** 0.5
    assert row["sd_f1"] == pytest.approx(pooled)
    # a language group resamples only its own tasks
    (zh,) = [r for r in rep["scores"] if r["group"] == "language zh" and r["config"].startswith("react")]
    zh_avg = [statistics.mean(v) for v in per_task_f1(Store(db), "react", "zh").values()]
    assert zh["avg_f1_ci"] == pytest.approx(plain_bootstrap(zh_avg), abs=1e-12)
    # the baseline has one run per task: no spread to tell
    (base,) = [r for r in rep["scores"] if r["group"] == "all" and r["config"].startswith("baseline")]
    assert base["n"] == 1 and base["sd_f1"] is None and base["avg_f1_ci"] is not None


def test_markdown_html_and_csv_show_the_intervals(cli, db):
    rep = json.loads(cli("report", "--format", "json", "--db", db).stdout)
    (row,) = [r for r in rep["scores"] if r["group"] == "all" and r["config"].startswith("react")]
    cell = f"{100 * row['avg_f1_ci'][0]:.2f}–{100 * row['avg_f1_ci'][1]:.2f}"
    md = cli("report", "--db", db).stdout
    assert "Avg F1 95% CI" in md and "F1 SD" in md and cell in md
    assert f"{_bootstrap.RESAMPLES} resamples, seed {_bootstrap.SEED}" in md
    html = cli("report", "--format", "html", "--db", db).stdout
    assert cell in html and "Best F1 95% CI" in html
    csv_text = cli("report", "--format", "csv", "--db", db).stdout
    assert "avg_f1_ci_low" in csv_text and repr(row["avg_f1_ci"][0])[:10] in csv_text


def test_leaderboard_score_table_shows_the_same_intervals(db, settings):
    from vibesearch.app import Access, leaderboard
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager

    store = Store(db)
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    try:
        _, rows, inter, *_ = leaderboard.tables(ctx, None)
        assert all(len(r) == len(leaderboard.SCORE_HEADERS) == len(leaderboard.SCORE_WIDTHS) for r in rows)
        col = {h: i for i, h in enumerate(leaderboard.SCORE_HEADERS)}
        (row,) = [r for r in rows if r[col["group"]] == "all" and r[0].startswith("react")]
        f1s = per_task_f1(store, "react")
        avg = plain_bootstrap([statistics.mean(v) for v in f1s.values()])
        best = plain_bootstrap([max(v) for v in f1s.values()])
        assert row[col["Avg F1 95% CI"]] == f"{100 * avg[0]:.2f}–{100 * avg[1]:.2f}"
        assert row[col["Best F1 95% CI"]] == f"{100 * best[0]:.2f}–{100 * best[1]:.2f}"
        assert row[col["N"]] == "3"
        # tokens: the baseline calls no model ("n/a"), the model agent's are its recorded means
        by_config = {r[0]: r for r in inter}
        base = next(r for c, r in by_config.items() if c.startswith("baseline"))
        react = next(r for c, r in by_config.items() if c.startswith("react"))
        assert base[9:12] == ["n/a", "n/a", "n/a"] and react[9:11] == ["700", "70"]

        # filters: language zh keeps only the zh tasks; the menus offer what the runs hold
        offered: dict[str, list[str]] = {}
        summary, rows, *_ = leaderboard.tables(ctx, None, where={"language": ["zh"], "agent": ["react"]}, choices=offered)
        assert {r[col["tasks"]] for r in rows} == {2} and all(r[0].startswith("react") for r in rows)
        assert "filtered: language zh, agent react" in summary
        assert offered["language"] == ["en", "zh"] and offered["agent"] == ["baseline", "react"]
        assert leaderboard.chosen_filters(["(all)", "zh", "", "(all)", "(all)"]) == {"language": ["zh"]}

        # the tab's own handler, as its menus call it: the filters narrow the table and the menus keep the choice
        import gradio as gr

        with gr.Blocks():
            h = leaderboard.build(ctx, gr.BrowserState(None))
        assert len(h["inputs"]) == 2 + len(leaderboard.FILTERS) and len(h["outputs"]) == 9 + len(leaderboard.FILTERS)
        got = h["on_refresh"](None, leaderboard.AUTO, "daily", "(all)", "(all)", "(all)", "(all)", request=None)
        shown = got[2].values.tolist()  # the table as a frame whose headers are in the browser's language
        assert shown and {r[col["group"]] for r in shown} <= {"all"} and {r[col["tasks"]] for r in shown} == {2}
        subset_menu = got[8]
        assert subset_menu.value == "daily" and ["pro", "pro"] in [list(c) for c in subset_menu.choices]
        everything = h["on_refresh"](None, leaderboard.AUTO, request=None)
        assert {r[col["tasks"]] for r in everything[2].values.tolist() if r[col["group"]] == "all"} == {4, 2}
    finally:
        ctx.manager.shutdown()


def test_report_where_filters_and_refuses_unknown_keys(cli, db):
    rep = json.loads(cli("report", "--format", "json", "--where", "language=zh", "--where", "agent=react", "--db", db).stdout)
    assert {r["language"] for r in rep["runs"]} == {"zh"} and rep["where"] == {"language": ["zh"], "agent": ["react"]}
    (row,) = [r for r in rep["scores"] if r["group"] == "all"]
    zh = [statistics.mean(v) for v in per_task_f1(Store(db), "react", "zh").values()]
    assert row["avg_f1"] == pytest.approx(statistics.mean(zh)) and row["n_tasks"] == 2
    either = json.loads(cli("report", "--format", "json", "--where", "task=t1", "--where", "task=t4", "--db", db).stdout)
    assert {r["task_id"] for r in either["runs"]} == {"t1", "t4"}
    md = cli("report", "--where", "subset=daily", "--db", db).stdout
    assert "Only runs with subset = daily." in md and "subset pro" not in md

    bad = cli("report", "--where", "colour=red", "--db", db)
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1 and "'colour'" in bad.output
    worse = cli("report", "--where", "language", "--db", db)
    assert worse.exit_code == 1 and len(worse.output.strip().splitlines()) == 1 and "'language'" in worse.output


def test_tokens_never_recorded_read_unknown(cli, tmp_path):
    from vibesearch.app.panels import stats_html
    from vibesearch.scoring import run_stats

    path = tmp_path / "imp.db"
    store = Store(path)
    imported = _run(store, ("t1", "pro", "en"), 3, model="fake/elsewhere", usage=False, source="imported")
    rep = json.loads(cli("report", "--format", "json", "--db", path).stdout)
    (row,) = rep["interaction"]
    assert row["tokens"] == "unknown" and row["input_tokens"] is None and row["cost_usd"] is None
    md = cli("report", "--db", path).stdout
    line = next(x for x in md.splitlines() if x.startswith("| react (fake/elsewhere)") and "unknown" in x)
    assert "| unknown | unknown | unknown |" in line and "$0.0000" not in md
    card = stats_html(run_stats(store, imported))
    assert "unknown (usage not recorded)" in card and "0 / 0" not in card


def test_calls_without_token_counts_make_the_means_unknown(cli, tmp_path):
    """A provider that reported no counts for one of the agent's calls: the run's token mean is
    "unknown" in the report (its sum would be a floor), and the card says how many calls lacked them."""
    from vibesearch.app.panels import stats_html
    from vibesearch.scoring import run_stats

    path = tmp_path / "partial.db"
    store = Store(path)
    rid = _run(store, ("t1", "pro", "en"), 3, model="fake/quiet")
    store.append(rid, UsageEvent(purpose="agent", model="m", cost_usd=None))  # no token counts reported
    rep = json.loads(cli("report", "--format", "json", "--db", path).stdout)
    (row,) = rep["interaction"]
    assert row["tokens"] == "unknown" and row["input_tokens"] is None
    card = stats_html(run_stats(store, rid))
    assert "at least 700 / 70 (1 of 2 calls reported no counts)" in card
