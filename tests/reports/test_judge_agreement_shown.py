"""A judge's numbers come with its measured agreement with people: the report (text, HTML, CSV,
JSON), the Leaderboard tab's tables and the compare views show, per judge × profile, agreement
and κ with their intervals and the number of labelled items, or "not measured"; a minimum
agreement (setting or option) marks the numbers of a judge below it or unmeasured with "†"."""

from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from vibesearch.config import reset_settings
from vibesearch.reports import build_report, render
from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.scoring import score_run
from vibesearch.labels.compare import compare_runs
from vibesearch.labels.config_compare import compare_configs
from vibesearch.labels.judge_trust import MARK, NOT_MEASURED, judge_trust, parse_threshold
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow


def T(h, r, t):
    return {"head": h, "relation": r, "tail": t}


GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000"), T("oneworld", "founded in", "1999"),
      T("Star Alliance", "headquarters", "Frankfurt")]
STRANGE = "<b>fake/strange</b>"  # a judge name that must be escaped in HTML


def snapshot(task_id):
    return {"id": task_id, "subset": "pro", "language": "en", "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}


def _run(store, task_id, pred, agent_model):
    run = store.create_run(task_id, task_json=snapshot(task_id), status="finished", agent="react", agent_model=agent_model, user="rules")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
    store.append(run.id, GraphEvent(triples=pred))
    store.append(run.id, EndEvent(termination="max_user_turns"))
    return run.id


def _strange_score(store, rid):
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]") for i in range(len(GT))]
    store.add_score(ScoreRow(run_id=rid, judge=STRANGE, precision=1.0, recall=0.25, f1=0.4, n_gt=4, n_pred=1, n_covered=1, n_valid=1), verdicts)


@pytest.fixture
def db(tmp_path):
    """Two runs of one task by two configurations, both scored by the offline judge; people
    labelled run A (offline agrees on 3 of 4: 75%). The judge STRANGE scored only run B, which
    nobody labelled: it is not measured."""
    path = tmp_path / "trust.db"
    store = Store(path)
    a = _run(store, "t1", GT[:2], "fake/a")  # the offline judge: covered, covered, not, not
    b = _run(store, "t1", GT[:1], "fake/b")
    for rid in (a, b):
        score_run(store, rid)
    _strange_score(store, b)
    for who in ("ann", "bob"):
        for i, covered in enumerate([True, True, True, False]):  # item 2: the people say covered, the judge not
            store.put_label(a, i, who, covered, [0] if covered else [])
    return path


def test_judge_trust_measures_from_the_stored_labels(db):
    trust = judge_trust(Store(db))
    offline = trust.of("offline")
    assert offline.measured and offline.coverage is not None
    assert offline.coverage.n == 4 and offline.coverage.agreement == pytest.approx(0.75)
    assert offline.coverage.agreement_ci is not None and offline.coverage.kappa_ci is not None
    assert offline.text().startswith("coverage agreement 75.00% [") and ", n 4" in offline.text()
    assert not trust.of(STRANGE).measured and trust.of(STRANGE).text() == NOT_MEASURED
    assert not offline.below(None) and offline.below(0.985) and not offline.below(0.7)
    assert trust.of(STRANGE).below(0.1)  # unmeasured: marked whatever the threshold
    assert parse_threshold(98.5) == pytest.approx(0.985) and parse_threshold("0.985") == pytest.approx(0.985) and parse_threshold(None) is None
    with pytest.raises(ValueError):
        parse_threshold(150)


def test_report_shows_the_agreement_and_marks_below_the_minimum(db):
    store = Store(db)
    plain = build_report(store, judge="offline")
    md = render(plain, "md")
    assert "### The judge's agreement with people" in md
    assert "- offline judge · vibesearch profile: coverage agreement 75.00% [" in md and ", n 4" in md
    assert "75.00% (n 4)" in md  # the score table's column
    assert MARK not in md  # no minimum: nothing marked
    row = next(r for r in plain["scores"] if r["group"] == "all")
    assert (row["judge_agreement"], row["judge_n"], row["judge_marked"]) == (pytest.approx(0.75), 4, False)

    strict = build_report(store, judge="offline", min_agreement=0.985)
    md = render(strict, "md")
    assert all(r["judge_marked"] for r in strict["scores"])
    assert f"{100 * row['avg_f1']:.2f}{MARK}" in md and "less than 98.50%" in md
    assert build_report(store, judge="offline", min_agreement=0.7)["scores"][0]["judge_marked"] is False

    other = build_report(store, judge=STRANGE, min_agreement=0.5)
    md = render(other, "md")
    assert f"{STRANGE} · vibesearch profile: {NOT_MEASURED} {MARK}" in md and "| not measured |" in md
    page = render(other, "html")
    assert "&lt;b&gt;fake/strange&lt;/b&gt; · vibesearch profile: not measured" in page and STRANGE not in page
    assert "less than 50.00%" in page
    js = json.loads(render(other, "json"))
    assert js["judge_agreement"][0]["measured"] is False and js["min_judge_agreement"] == 0.5
    rows = list(csv.reader(io.StringIO(render(strict, "csv"))))
    at = next(i for i, r in enumerate(rows) if r and r[0] == "# judge_agreement")
    head, values = rows[at + 1], rows[at + 2]
    assert values[head.index("coverage_n")] == "4" and values[head.index("marked")] == "True"


def test_report_command_option_and_setting(db, monkeypatch):
    from vibesearch.cli.main import app

    runner = CliRunner()
    out = runner.invoke(app, ["report", "--db", str(db), "--judge", "offline", "--min-judge-agreement", "98.5"])
    assert out.exit_code == 0, out.output
    assert MARK in out.stdout and "less than 98.50%" in out.stdout
    monkeypatch.setenv("VIBESEARCH_MIN_JUDGE_AGREEMENT", "0.985")
    reset_settings()
    try:
        env = runner.invoke(app, ["report", "--db", str(db), "--judge", "offline"])
        assert env.exit_code == 0 and MARK in env.stdout
        loose = runner.invoke(app, ["report", "--db", str(db), "--judge", "offline", "--min-judge-agreement", "0.5"])
        assert loose.exit_code == 0 and MARK not in loose.stdout  # the option wins over the setting
    finally:
        monkeypatch.delenv("VIBESEARCH_MIN_JUDGE_AGREEMENT")
        reset_settings()
    bad = runner.invoke(app, ["report", "--db", str(db), "--min-judge-agreement", "150"])
    assert bad.exit_code == 1 and "--min-judge-agreement" in bad.output


def test_leaderboard_lines_per_judge_and_marks(db):
    from vibesearch.app import leaderboard

    store = Store(db)
    ctx = SimpleNamespace(store=store, settings=SimpleNamespace(min_judge_agreement=0.985))
    summary, rows, *_ = leaderboard.tables(ctx, "offline")  # type: ignore[arg-type]
    assert "**Judge agreement with people**" in summary
    assert "offline judge · vibesearch profile: coverage agreement 75.00% [" in summary and ", n 4" in summary
    col = {h: i for i, h in enumerate(leaderboard.SCORE_HEADERS)}
    assert rows and all(r[col["Avg F1"]].endswith(MARK) and r[col["Best P"]].endswith(MARK) for r in rows)
    assert "less than 98.50%" in summary
    summary, rows, *_ = leaderboard.tables(SimpleNamespace(store=store, settings=SimpleNamespace(min_judge_agreement=0.7)), "offline")  # type: ignore[arg-type]
    assert not any(MARK in str(c) for r in rows for c in r) and MARK not in summary
    summary, rows, *_ = leaderboard.tables(SimpleNamespace(store=store), STRANGE)  # type: ignore[arg-type]  (no setting: nothing marked)
    assert f"&lt;b&gt;fake/strange&lt;/b&gt; · vibesearch profile: {NOT_MEASURED}" in summary and STRANGE not in summary
    assert not any(MARK in str(c) for r in rows for c in r)


def test_leaderboard_reads_only_the_labels_of_readable_runs(db):
    from vibesearch.app import leaderboard

    store = Store(db)
    labelled = store.labels()[0].run_id
    ctx = SimpleNamespace(store=store, settings=SimpleNamespace(min_judge_agreement=None))
    summary, *_ = leaderboard.tables(ctx, "offline", keep=lambda run: run.id != labelled)  # type: ignore[arg-type]
    assert f"offline judge · vibesearch profile: {NOT_MEASURED}" in summary


def test_compare_views_carry_the_judges_agreement(db):
    from vibesearch.app.compare_view import configs_html, coverage_html
    from vibesearch.cli.main import app

    store = Store(db)
    a, b = sorted({r.id for r in store.list_runs()}, key=lambda rid: store.get_run(rid).agent_model or "")
    got = compare_runs(store, a, b, judge="offline", min_agreement=0.985)
    cov = got["coverage"]
    (only,) = cov["judge_trust"]  # both runs' scores are the offline judge's, under one profile
    assert only["measured"] and only["text"].startswith("coverage agreement 75.00% [") and only["marked"]
    assert cov["marked"] == {"a": True, "b": True} and "less than 98.50%" in cov["footnote"]
    shown = coverage_html(got)
    assert f"F1 A {100 * cov['f1']['a']:.1f}{MARK}" in shown and "coverage agreement 75.00%" in shown and "n 4" in shown

    configs = compare_configs(store, {"agent_model": "fake/a"}, {"agent_model": "fake/b"}, judge="offline", min_agreement=0.985)
    assert configs["judge_trust"][0]["judge"] == "offline" and configs["marked"] == {"a": True, "b": True}
    assert MARK in configs_html(configs) and "n 4" in configs_html(configs)
    newest = compare_configs(store, {"agent_model": "fake/a"}, {"agent_model": "fake/b"})  # B's newest score is STRANGE's
    assert {t["judge"]: t["text"] for t in newest["judge_trust"]}[STRANGE] == NOT_MEASURED
    assert "&lt;b&gt;fake/strange&lt;/b&gt;" in configs_html(newest)

    runner = CliRunner()
    out = runner.invoke(app, ["compare", a, b, "--judge", "offline", "--min-judge-agreement", "0.985", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert MARK in out.stdout and "offline judge · vibesearch profile against people: coverage agreement 75.00%" in out.stdout
    out = runner.invoke(app, ["compare", "--a", "agent_model=fake/a", "--b", "agent_model=fake/b", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert NOT_MEASURED in out.stdout and MARK not in out.stdout
