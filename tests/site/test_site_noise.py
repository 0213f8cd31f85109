"""The site shows the noise floor's three-way split (``noise_rank.noise_of``): the report's own
figures in results.json, and its table on the leaderboard page."""

from __future__ import annotations

import json


def test_the_site_shows_the_reports_noise_split(built_site, site_db):
    from vibesearch.reports import build_report
    from vibesearch.store import Store

    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    report = build_report(Store(site_db.path))
    assert {"user", "agent", "judge", "combined"} <= set(results["noise"])
    for part in ("user", "agent", "judge", "combined"):
        assert results["noise"][part] == json.loads(json.dumps(report["noise"][part])), part
    # the offline judge is deterministic: its part is 0 by construction, said so
    assert results["noise"]["judge"]["estimate"] == 0 and "deterministic" in results["noise"]["judge"]["note"]
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert '<table id="noise">' in index and "user (simulator)" in index and "Noise: user, agent, judge" in index
