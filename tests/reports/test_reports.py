"""`vibesearch report` in every format, on runs scored by the offline judge."""

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from vibesearch.scoring import score_run
from vibesearch.store import Store
from vibesearch.run import CompactionEvent, EndEvent, GraphEvent, MessageEvent


def T(h, r, t):
    return {"head": h, "relation": r, "tail": t}


GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000"), T("Star Alliance", "headquarters", "Frankfurt")]


def snapshot(task_id, subset, language):
    return {"id": task_id, "subset": subset, "language": language, "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.db"
    store = Store(path)
    preds = [[T("Star Alliance", "founding year", "1997")], GT, [], [T("SkyTeam", "founded", "2000"), T("x", "y", "z")]]
    for i, pred in enumerate(preds):
        task_id, subset, lang = ("t-pro", "pro", "en") if i < 2 else ("t-daily", "daily", "zh")
        run = store.create_run(task_id, task_json=snapshot(task_id, subset, lang), status="finished", agent="react",
                               agent_model="fake/a" if i % 2 else "fake/b", user="simulator")
        store.append(run.id, MessageEvent(role="user", content="q"))
        store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
        for _ in range(i):
            store.append(run.id, CompactionEvent(tokens_before=9, tokens_after=1, threshold=5, summary="s"))
        store.append(run.id, GraphEvent(triples=pred))
        store.append(run.id, EndEvent(termination="max_user_turns"))
        score_run(store, run.id)
    return path


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_markdown_report(cli, db):
    out = cli("report", "--db", db)
    assert out.exit_code == 0, out.output
    md = out.stdout
    assert "offline judge" in md
    for heading in ("## Scores (Avg@N / Best@N)", "## Interaction", "### F1 by compaction count", "### F1 by user turns",
                    "### Termination", "### Ground-truth relations, least covered first", "### Over- and under-generation"):
        assert heading in md
    assert "react (fake/a) · user simulator" in md and "subset pro" in md and "language zh" in md
    # the run with the whole ground truth scores 100
    assert "100.00" in md


def test_json_and_csv_reports(cli, db, tmp_path):
    out = tmp_path / "r.json"
    res = cli("report", "--format", "json", "--out", out, "--db", db)
    assert res.exit_code == 0, res.output
    rep = json.loads(out.read_text())
    assert rep["judge"] == "offline" and rep["n_scored"] == 4
    assert {"scores", "interaction", "errors", "runs"} <= set(rep)
    assert {b["bin"]: b["n_runs"] for b in rep["errors"]["f1_by_compactions"]} == {"0": 1, "1": 1, "≥2": 2}
    headq = next(r for r in rep["errors"]["relation_coverage"] if r["relation"] == "headquarters")
    assert headq["n_covered"] == 1 and headq["runs_produced"] == 1
    text = cli("report", "--format", "csv", "--db", db).stdout
    rows = list(csv.reader(io.StringIO(text)))
    sections = [r[0] for r in rows if r and r[0].startswith("# ")]
    assert sections[:3] == ["# judge: offline judge", "# scores", "# interaction"]
    assert "# relation_coverage" in sections and "# runs" in sections


def test_html_report_is_self_contained_with_the_four_charts(cli, db, tmp_path):
    out = tmp_path / "r.html"
    res = cli("report", "--format", "html", "--out", out, "--db", db)
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "offline judge" in page
    for div in ("f1-by-config", "precision-recall", "f1-by-compactions", "relation-coverage"):
        assert f'id="{div}"' in page
    assert "<script" not in page  # the figures are inline SVG: no script, nothing fetched
    assert page.count('<figure class="chart"') == 4 and page.count("<svg ") == 4


def test_bad_format_and_empty_database(cli, tmp_path):
    assert cli("report", "--format", "pdf", "--db", tmp_path / "x.db").exit_code != 0
    empty = cli("report", "--db", tmp_path / "empty.db")
    assert empty.exit_code == 0 and "0 of 0 runs" in empty.stdout
