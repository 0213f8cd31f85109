"""``vibesearch corpus fetch TASK`` (docs/web.md "Fetch"): the pages a task's ground truth cites
are fetched by the visit tool's code into the recorded web — a page, a redirect, a 404 and a
non-UTF-8 page, all from this test's own server on 127.0.0.1 (allowed by
VIBESEARCH_WEB_ALLOW_PRIVATE; without it the same addresses are refused by the public-address
guard and nothing reaches the server). The fetched run is never scored; a replay of the task then
serves the pages with nothing running, and ``corpus freeze`` writes them as the task's corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vibesearch.cli.main import app
from vibesearch.config import reset_settings
from vibesearch.store import Store
from vibesearch.tasks.models import Task

from test_web_record_replay import _pages, _task

runner = CliRunner()


def _cited_task(folder: Path, base: str) -> Path:
    _task(folder)
    path = folder / "valdoria.json"
    task = json.loads(path.read_text(encoding="utf-8"))
    task["sources"] = [f"{base}/old-bridge", f"{base}/cafe", f"{base}/gone", "ftp://example.invalid/not-the-web", f"{base}/cafe"]
    path.write_text(json.dumps(task, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def pages(monkeypatch):
    server = _pages()
    monkeypatch.setenv("VIBESEARCH_HTTP_TIMEOUT_S", "5")
    reset_settings()
    yield server
    server.stop()
    reset_settings()


def test_fetch_records_the_cited_pages_then_replay_and_freeze_serve_them(pages, tmp_path, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_WEB_ALLOW_PRIVATE", "true")
    reset_settings()
    tasks, db = _cited_task(tmp_path / "tasks", pages.base), tmp_path / "web.db"
    out = runner.invoke(app, ["corpus", "fetch", str(tasks / "valdoria.json"), "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert f"not fetched: {pages.base}/gone" in out.output
    assert "fetched 2 of 3 cited pages of valdoria-web into run " in out.output  # ftp dropped, the repeat once
    assert sorted(pages.seen) == ["/bridge", "/cafe", "/gone", "/old-bridge"]  # each once: the repeat fetched once

    store = Store(str(db))
    (run,) = store.list_runs(task_id="valdoria-web")
    assert (run.source, run.status, run.agent) == ("fetched", "cancelled", "fetched")  # never scored
    web = store.recorded_web("valdoria-web")
    visits = {e.url: e for e in web}
    assert set(visits) == {f"{pages.base}/old-bridge", f"{pages.base}/cafe", f"{pages.base}/gone"}
    assert visits[f"{pages.base}/old-bridge"].final_url == f"{pages.base}/bridge"
    assert visits[f"{pages.base}/gone"].status == 404 and visits[f"{pages.base}/gone"].error
    assert "Jürgen Müller" in (visits[f"{pages.base}/cafe"].text() or "")  # latin-1 read as such
    assert "Aldo Ferri" in (visits[f"{pages.base}/old-bridge"].text() or "")

    report = runner.invoke(app, ["report", "--db", str(db)])  # the fetched run is listed with its web, never scored
    assert report.exit_code == 0, report.output
    row = next(ln for ln in report.stdout.split("### The web of the runs", 1)[1].splitlines() if ln.startswith(f"| {run.id} "))
    assert row.replace(" ", "") == f"|{run.id}|valdoria-web|3|0|0|"

    pages.stop()  # the fetched web is all there is now
    frozen = runner.invoke(app, ["corpus", "freeze", str(tmp_path / "frozen"), "--task", "valdoria-web", "--db", str(db)])
    assert frozen.exit_code == 0, frozen.output
    lines = [json.loads(x) for x in (tmp_path / "frozen" / "corpus" / "valdoria-web.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [d["url"] for d in lines] == [f"{pages.base}/bridge", f"{pages.base}/cafe"]


def test_without_the_private_switch_the_guard_refuses_local_addresses(pages, tmp_path):
    tasks, db = _cited_task(tmp_path / "tasks", pages.base), tmp_path / "web.db"
    out = runner.invoke(app, ["corpus", "fetch", str(tasks / "valdoria.json"), "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "fetched 0 of 3 cited pages" in out.output
    assert pages.seen == []  # the guard refused before connecting


def test_a_task_citing_nothing_is_refused_in_one_line(tmp_path):
    tasks, db = _task(tmp_path / "tasks"), tmp_path / "web.db"
    out = runner.invoke(app, ["corpus", "fetch", str(tasks / "valdoria.json"), "--db", str(db)])
    assert out.exit_code == 1
    assert out.output.strip() == "error: valdoria-web: the task cites no web address (its sources, or source_urls in an official record)"
    assert not db.exists()


def test_cited_urls_reads_an_official_records_source_urls():
    base = json.loads(json.dumps({
        "id": "t1", "subset": "pro", "language": "en", "sources": ["https://a.example/1"],
        "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "q"}]},
        "graph": [{"head": "h", "relation": "r", "tail": "t"}],
        "extra": {"source_urls": ["https://a.example/1", "https://b.example/2"],
                  "official_triples": [{"head_id": 1, "relation": "r", "tail_id": 2, "source_url": "https://c.example/3"},
                                       {"head_id": 1, "relation": "r", "tail_id": 3, "source_urls": ["javascript:alert(1)", 7]}],
                  "official_nodes": [{"node_id": 1, "node_name": "n", "source_urls": "https://d.example/4"}]},
    }))
    assert Task.model_validate(base).cited_urls() == ["https://a.example/1", "https://b.example/2", "https://d.example/4", "https://c.example/3"]
