"""The site's per-stage views: results.json holds the report's own ``stages`` figures, the front
page draws them with the report's HTML (stage names escaped), and ``site verify`` recomputes them
from the bundled rows and names an edited one."""

from __future__ import annotations

import json
import re
import shutil

from site_data import IMG


def test_the_site_shows_the_reports_stage_views(built_site, site_db):
    from vibesearch.reports import build_report
    from vibesearch.reports.stages import recall_rows
    from vibesearch.site.bundle import plain
    from vibesearch.store import Store

    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    report = build_report(Store(site_db.path))
    assert results["stages"] == plain(report["stages"]) and results["stages"]["stages"]
    index = (built_site / "index.html").read_text(encoding="utf-8")
    table = re.search(r"<table id='stages-recall'.*?</table>", index, re.S)
    assert table and "<h2>By stage</h2>" in index and "id='stages-f1'" in index and "id='stages-stall'" in index
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(0).split("<tbody>")[1])
    assert len(rows) == len(recall_rows(results["stages"]))
    first = recall_rows(results["stages"])[0]
    assert f"<td class='text'>{first[0]}</td>" in rows[0] and f"<td class='num'>{first[3]}</td>" in rows[0]
    # the markup task's first stage is named with an <img> tag: shown as text, never as markup
    assert IMG not in index
    if any(r["task"] == "xss-task" for r in results["stages"]["stages"]):
        assert "open &lt;img src=x onerror=" in index


def test_verify_recomputes_the_stage_views(cli, built_site, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(built_site, out)
    path = out / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["stages"]["stages"][0]["runs_reached"] += 7
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    res = cli("site", "verify", out)
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert "results.json" in res.output and "stages.stages[0].runs_reached" in res.output, res.output
