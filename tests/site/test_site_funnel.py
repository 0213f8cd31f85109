"""Where each fact was lost (issue 41) on the site: results.json holds the funnel per configuration
× profile (``results.analysis.series_funnels``), the front page shows its counts and each run page
its own funnel, every count data-checked (``site verify`` recomputing them and refusing an edited
one: tests/site/test_site_verify.py). Text from the task stays text."""

from __future__ import annotations

import html
import json
import re

from site_data import IMG, SCRIPT

BUCKETS = ("not_asked", "not_seen", "not_written", "judged_not_covered", "covered")


def _checked(page: str) -> dict[str, str]:
    return {html.unescape(c): html.unescape(v) for c, v in re.findall(r'data-check="([^"]*)" data-value="([^"]*)"', page)}


def test_the_front_page_shows_the_funnel_per_configuration(built_site):
    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    rows = results["funnel"]
    assert rows, "no funnel in results.json"
    for r in rows:
        assert sum(r[b] for b in BUCKETS) == r["n_gt"] > 0
    # the scored samples of each configuration × profile are the ones the leaderboard counts
    scored = {(s["config"], s["profile"]): s["n_runs"] for s in results["scores"] if s["group"] == "all"}
    assert {r["group"]: r["n_runs"] for r in rows} == {f"{c} · {p}": n for (c, p), n in scored.items()}
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert "<h2>Where each fact was lost</h2>" in index and "<table id=\"funnel\">" in index
    shown = _checked(index)
    for i, r in enumerate(rows):
        for b in (*BUCKETS, "n_gt", "n_runs"):
            assert int(shown[f"funnel[{i}].{b}"]) == r[b]


def test_each_run_page_shows_its_funnel_as_the_database_gives_it(built_site, site_db):
    from vibesearch.results.funnel import stored_funnel
    from vibesearch.site.funnel_html import BundleOnly
    from vibesearch.store import Store

    store = Store(site_db.path)
    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    samples = {r["run_id"]: json.loads((built_site / r["sample_file"]).read_text(encoding="utf-8")) for r in results["runs"]}
    checked_runs = 0
    for run in results["runs"]:
        page = (built_site / run["page"]).read_text(encoding="utf-8")
        records = [e["record"] for e in samples[run["run_id"]]["records"]]
        first = next((k for k, rec in enumerate(records) if rec.get("score_id") is not None), None)
        if first is None:
            assert 'id="run-funnel">Not scored' in page
            continue
        funnel = stored_funnel(store, run["run_id"], records[first]["score_id"], corpora=BundleOnly())
        if funnel is None:
            continue
        shown = _checked(page)
        prefix = f"funnel_run:{run['run_id']}:{first}"
        assert {b: int(shown[f"{prefix}.{b}"]) for b in BUCKETS} == {b: n for b, n in funnel.counts().items()}
        assert int(shown[f"{prefix}.n_gt"]) == funnel.n_gt == sum(funnel.counts().values())
        table = re.search(r'<table id="run-funnel">.*?</table>', page, re.S)
        assert table is not None
        assert len(re.findall(r"<tr data-bucket=", table.group(0))) == funnel.n_gt
        checked_runs += 1
    assert checked_runs >= 2
    # the markup task's triples (a script and an img tag) are shown as text in its funnel
    xss = next(r for r in results["runs"] if r["run_id"] == site_db.xss_run)
    table = re.search(r'<table id="run-funnel">.*?</table>', (built_site / xss["page"]).read_text(encoding="utf-8"), re.S)
    assert table is not None and IMG not in table.group(0) and SCRIPT not in table.group(0)
    assert html.escape(IMG, quote=True) in table.group(0) or html.escape(IMG) in table.group(0)
