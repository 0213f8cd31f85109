"""``vibesearch votes report`` on real offline runs (three configurations of one task: the staged
and rules users reach F1 0.81 with the baseline agent, the direct user 0.40), on SQLite and
PostgreSQL: the JSON keys the issue names, a preference seen with an interval excluding 0 and
none seen with one covering 0, the metric against the votes, and the quality checks (a voter who
fails attention items is flagged, the ratings shown without them)."""

from __future__ import annotations

import json

import pytest
from votes_helpers import cli, write_jsonl

STAGED = "baseline (retrieval + oracle reader) · user staged"
DIRECT = "baseline (retrieval + oracle reader) · user direct"
RULES = "baseline (retrieval + oracle reader) · user rules"


def _votes(runs):
    """Ten voters on each of the 4 staged×direct pairs (staged preferred by 8 of 10: 80%) and on
    each of the 4 rules×direct pairs (5 of 10 each way); sides alternate. ``zed`` answers 4
    attention items against the side they expect."""
    out = []
    for i, (s, d) in enumerate((s, d) for s in runs["staged"] for d in runs["direct"]):
        for v in range(10):
            staged_wins = v < 8
            if (i + v) % 2:
                out.append({"run_a": s, "run_b": d, "winner": "a" if staged_wins else "b", "voter": f"v{v}"})
            else:
                out.append({"run_a": d, "run_b": s, "winner": "b" if staged_wins else "a", "voter": f"v{v}"})
        out.append({"run_a": s, "run_b": d, "winner": "b", "voter": "zed", "attention": "a"})
    for i, (r, d) in enumerate((r, d) for r in runs["rules"] for d in runs["direct"]):
        for v in range(10):
            side_a = (i + v) % 2 == 0
            out.append({"run_a": r if side_a else d, "run_b": d if side_a else r, "winner": "a" if v % 2 else "b", "voter": f"v{v}"})
    return out


@pytest.fixture
def reported(voted_db, tmp_path):
    db, runs = voted_db
    votes = _votes(runs)
    done = cli("votes", "import", write_jsonl(tmp_path / "v.jsonl", votes), "--db", db)
    assert done.exit_code == 0, done.output
    out = cli("votes", "report", "--json", "--resamples", 300, "--db", db)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout), votes, db


def test_the_report_holds_what_the_issue_names(reported):
    report, votes, _ = reported
    assert {"ratings", "win_matrix", "metric_vs_votes", "quality"} <= set(report)
    assert report["votes"] == len(votes) == 84 and report["judge"] == "offline"
    for r in report["ratings"]:
        assert {"label", "rating", "ci"} <= set(r) and len(r["ci"]) == 2 and r["ci"][0] <= r["rating"] <= r["ci"][1]
    assert {"p_prefer_higher_f1", "kendall_tau", "predictors"} <= set(report["metric_vs_votes"])
    assert "ci" in report["metric_vs_votes"]["kendall_tau"]
    assert {"attention", "position_bias", "outliers"} <= set(report["quality"])

    diffs = {(d["a"], d["b"]): d for d in report["differences"]}
    staged = diffs[(STAGED, DIRECT)]
    assert staged["ci"][0] > 0  # preferred 80%: above, the interval excluding 0
    neutral = diffs.get((RULES, DIRECT)) or diffs[(DIRECT, RULES)]
    assert neutral["ci"][0] < 0 < neutral["ci"][1]  # no preference: covering 0
    assert report["ratings"][0]["label"] == STAGED
    m = report["win_matrix"]
    i, j = m["labels"].index(STAGED), m["labels"].index(DIRECT)
    assert (m["battles"][i][j], m["wins"][i][j]) == (44, 32)  # zed's 4 for direct


def test_the_metric_against_the_votes(reported):
    report, votes, _ = reported
    mv = report["metric_vs_votes"]
    p = mv["p_prefer_higher_f1"]
    # every vote is between runs of different F1 (0.81 against 0.40); 32 + 20 prefer the higher
    assert (p["votes_with_f1_difference"], round(p["share"] * 84)) == (84, 52)
    assert p["slope"] > 0 and p["slope_ci"][0] < p["slope"] < p["slope_ci"][1]
    assert [c["delta_f1"] for c in p["curve"]] == [0.05, 0.1, 0.2, 0.3, 0.5]
    assert all(0.5 < c["p"] < 1 and c["ci"][0] < c["p"] < c["ci"][1] for c in p["curve"])
    f1_row = next(t for t in mv["predictors"] if t["measure"] == "f1")
    assert (f1_row["decided"], round(f1_row["accuracy"] * 84)) == (84, 52)
    assert {t["measure"] for t in mv["predictors"]} == {"f1", "precision", "recall", "stages", "answer_chars", "citations"}
    dis = mv["disagreements"]
    assert (dis["votes"], len(dis["pairs"])) == (84, 32) and abs(dis["share"] - 32 / 84) < 1e-9
    assert all(d["f1_a"] != d["f1_b"] and d["preferred"] in (d["run_a"], d["run_b"]) for d in dis["pairs"])
    tau = mv["kendall_tau"]
    assert tau["configurations"] == 3 and -1 <= tau["tau"] <= 1 and tau["ci"][0] <= tau["tau"] <= tau["ci"][1]
    assert mv["avg_f1"][STAGED] > mv["avg_f1"][DIRECT]


def test_the_quality_checks(reported):
    report, votes, _ = reported
    q = report["quality"]
    assert (q["attention"]["checked"], q["attention"]["failed"]) == (4, 4)
    assert q["attention"]["per_voter"] == {"zed": {"checked": 4, "failed": 4}}
    assert [o["voter"] for o in q["outliers"]] == ["zed"] and "failed 4 attention checks" in q["outliers"][0]["why"]
    without = q["ratings_without_outliers"]
    assert without is not None and sum(r["battles"] for r in without) == 2 * 80
    pb = q["position_bias"]
    assert (pb["decisive"], pb["a"]) == (84, sum(v["winner"] == "a" for v in votes))
    assert pb["ci"][0] < pb["rate_a"] < pb["ci"][1]
    agree = q["majority_agreement"]["v0"]
    assert agree["votes"] == 8 and agree["compared"] >= 4
    assert q["voter_alpha"] is not None and -1 <= q["voter_alpha"] <= 1


def test_the_text_report_and_a_filter(reported):
    _, _, db = reported
    text = cli("votes", "report", "--resamples", 100, "--db", db)
    assert text.exit_code == 0 and "Preference (Bradley–Terry, 84 votes)" in text.stdout and "outliers: zed" in text.stdout
    other = json.loads(cli("votes", "report", "--json", "--resamples", 100, "--where", "task=nothing-here", "--db", db).stdout)
    assert other["votes"] == 0 and other["ratings"] == []
    bad = cli("votes", "report", "--where", "colour=red", "--db", db)
    assert bad.exit_code == 1 and bad.stderr.strip().startswith("error: --where: unknown key 'colour'")
