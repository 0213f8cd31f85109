"""Judges against the human ceiling (issue 37 §4): Gwet's AC1 against published worked examples,
the ceiling (people against people on the items two or more of them labelled), the prevalence of
"covered", through `labels import` → `labels agreement --json`, and `--min-judge-agreement
ceiling-M` on `report` (marking, the one line without a ceiling, bad values)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.cli.main import app
from vibesearch.scoring.bootstrap import point_measures
from vibesearch.labels import gwet_ac1, human_ceiling
from vibesearch.labels.judge_trust import MARK, CeilingMargin, parse_threshold
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

# Gwet, Handbook of Inter-Rater Reliability (4th ed., 2014): 4 raters, 12 subjects, 5 categories,
# some ratings missing; published p_a 0.818, p_e 0.190, AC1 0.775 (also the irrCAC packages' test values)
FOUR_RATERS = [[1, 1, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
               [2, 2, 2, 2], [5, 5, 5], [1, 1], [3]]
# the same book's two raters (Ben, Gerry), 12 units, one of Gerry's missing: p_a 0.727, p_e 0.194, AC1 0.661
BEN_GERRY = [["a", "b"], ["a", "a"], ["b", "b"], ["b", "b"], ["d", "b"], ["c", "c"], ["c", "c"], ["c", "c"], ["e", "e"], ["d"],
             ["d", "d"], ["a", "d"]]


@pytest.mark.parametrize("ratings, want", [(FOUR_RATERS, (0.775, 0.818, 0.190)), (BEN_GERRY, (0.661, 0.727, 0.194))])
def test_ac1_against_published_worked_examples(ratings, want):
    got = gwet_ac1(ratings)
    assert got is not None
    assert [round(x, 3) for x in got] == list(want)


def test_two_rater_ac1_of_the_bootstrap_is_the_general_formula():
    human = [True, False, False, False, True, False, False, False, False, False, False, True]
    judge = [True, False, True, False, False, False, False, False, False, False, False, True]
    general = gwet_ac1([[h, j] for h, j in zip(human, judge)], (False, True))
    assert general is not None and point_measures(human, judge)["ac1"] == pytest.approx(general[0])
    # skewed labels: kappa collapses to 0 when the judge never says "covered", AC1 stays near the agreement
    skewed = point_measures([False] * 19 + [True], [False] * 20)
    assert skewed["kappa"] == pytest.approx(0.0) and skewed["ac1"] == pytest.approx((0.95 - 2 * 0.025 * 0.975) / (1 - 2 * 0.025 * 0.975))
    # one label everywhere: kappa undefined, AC1 1
    same = point_measures([False] * 5, [False] * 5)
    assert same["kappa"] is None and same["ac1"] == 1.0


# ten ground-truth triples of one run, labelled by three people (cy only the first five):
#   ann T F F F F F F F F F;  bob T F F F F F F F F T;  cy T F F T F
ANN = [True] + [False] * 9
BOB = [True] + [False] * 8 + [True]
CY = [True, False, False, True, False]
# the judge says covered for 0, 3, 5 and 9
JUDGE = [i in (0, 3, 5, 9) for i in range(10)]


def test_ceiling_by_hand():
    votes = {i: [ANN[i], BOB[i]] + ([CY[i]] if i < 5 else []) for i in range(10)}
    got = human_ceiling(votes)
    assert got is not None
    # pairs agreeing per item: 1 everywhere but item 3 (F F T: 1 pair of 3) and item 9 (F T: 0 of 1) -> 25/3 over 10 items
    assert got["agreement"] == pytest.approx(5 / 6) and got["n_items"] == 10 and got["n_pairs"] == 5 * 3 + 5 * 1
    # pi = (1 + 1/3 + 1/2) / 10 = 11/60; p_e = 2 pi (1 - pi) = 539/1800; AC1 = (5/6 - p_e) / (1 - p_e) = 961/1261
    assert got["ac1"] == pytest.approx(float(Fraction(961, 1261)))
    assert got["ci"][0] <= 5 / 6 <= got["ci"][1] and got["ac1_ci"][0] <= got["ac1"] <= got["ac1_ci"][1]
    assert human_ceiling({1: [True], 2: [False]}) is None  # nobody labelled an item twice


@pytest.fixture
def labelled(tmp_db, tmp_path, make_run):
    """A run with ten ground-truth triples, its judge score, and three people's labels imported."""
    store = Store(tmp_db)
    gt = [T(f"e{i}", "born in", f"c{i}") for i in range(10)]
    rid = make_run(store, gt, [T("e0", "born in", "c0")])
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=c, evidence_json="[0]" if c else "[]") for i, c in enumerate(JUDGE)]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=0, recall=0, f1=0, n_gt=10, n_pred=1,
                             n_covered=sum(JUDGE), n_valid=0), verdicts)
    rows = [{"run_id": rid, "gt_index": i, "annotator": who, "covered": said, "evidence": [0] if said else []}
            for who, labels in (("ann", ANN), ("bob", BOB), ("cy", CY)) for i, said in enumerate(labels)]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = CliRunner().invoke(app, ["labels", "import", str(path), "--db", str(tmp_db)])
    assert res.exit_code == 0, res.output
    return tmp_db


def test_labels_agreement_json_has_ceiling_ac1_prevalence_per_side(labelled):
    res = CliRunner().invoke(app, ["labels", "agreement", "--json", "--db", str(labelled)])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    cov = rep["human_ceiling"]
    assert cov["agreement"] == pytest.approx(5 / 6) and cov["n_items"] == 10 and cov["ac1"] == pytest.approx(961 / 1261)
    # final labels: majority T at 0, F at 1..8; item 9 (ann F, bob T) an open tie, left out -> 1 covered of 9
    assert rep["prevalence"] == {"label": "covered", "share": pytest.approx(1 / 9), "n": 9, "ci": rep["prevalence"]["ci"]}
    row = rep["judges"][0]
    # judge against the final labels on items 0..8: tp 1, fp 2 (3, 5), tn 6 -> 7/9; kappa 0.4;
    # AC1: pi = (1/9 + 3/9) / 2 = 2/9, p_e = 28/81, (63/81 - 28/81) / (53/81) = 35/53
    assert row["agreement"] == pytest.approx(7 / 9) and row["kappa"] == pytest.approx(0.4)
    assert row["ac1"] == pytest.approx(35 / 53) and row["ci"]["ac1"][0] <= 35 / 53 <= row["ci"]["ac1"][1]
    assert row["prevalence"] == {"human": pytest.approx(1 / 9), "judge": pytest.approx(3 / 9)}
    val = rep["validity"]  # nobody labelled predicted triples: the keys are there, empty
    assert val["human_ceiling"] is None and val["prevalence"]["share"] is None and val["prevalence"]["label"] == "valid"

    text = CliRunner().invoke(app, ["labels", "agreement", "--db", str(labelled)], env={"COLUMNS": "100"})
    assert text.exit_code == 0, text.output
    flat = " ".join(text.stdout.split())
    assert "Human ceiling: people agree 83.33% [" in flat and "with each other (n 10 items, 20 pairs), AC1 0.762" in flat
    assert 'Prevalence: "covered" in 11.11% of 9 final human labels' in flat
    assert "0.660 [" in flat  # the judge's AC1 with its interval


def _report(db, threshold, *more):
    return CliRunner().invoke(app, ["report", "--db", str(db), "--judge", "offline", "--format", "json", *more,
                                    "--min-judge-agreement", threshold])


def test_min_judge_agreement_relative_to_the_ceiling(labelled):
    # the judge agrees 7/9 = 77.78%; people agree 83.33%: ceiling-0.02 asks 81.33% -> marked; ceiling-0.1 asks 73.33% -> not
    strict = _report(labelled, "ceiling-0.02")
    assert strict.exit_code == 0, strict.output
    js = json.loads(strict.stdout)
    assert js["scores"][0]["judge_marked"] is True and js["min_judge_agreement"] == "ceiling-0.02"
    assert js["human_ceiling"]["coverage"]["agreement"] == pytest.approx(5 / 6)
    assert "81.33% on the coverage side" in js["judge_footnote"] and "validity side has no ceiling" in js["judge_footnote"]
    assert "people agree 83.33%" in js["judge_agreement"][0]["text"]
    loose = json.loads(_report(labelled, "ceiling-10").stdout)  # 10 points, as a percentage is elsewhere
    assert loose["scores"][0]["judge_marked"] is False and loose["min_judge_agreement"] == "ceiling-0.1"
    assert json.loads(_report(labelled, "0.75").stdout)["scores"][0]["judge_marked"] is False  # absolute still works
    md = CliRunner().invoke(app, ["report", "--db", str(labelled), "--judge", "offline", "--min-judge-agreement", "ceiling-0.02"])
    assert md.exit_code == 0 and MARK in md.stdout
    rows = list(csv.reader(io.StringIO(_report(labelled, "ceiling-0.02", "--format", "csv").stdout)))
    at = next(i for i, r in enumerate(rows) if r and r[0] == "# judge_agreement")
    head, values = rows[at + 1], rows[at + 2]
    assert float(values[head.index("coverage_human_ceiling")]) == pytest.approx(5 / 6)
    assert float(values[head.index("coverage_ac1")]) == pytest.approx(35 / 53) and values[head.index("marked")] == "True"


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("bad", ["ceiling-x", "ceiling+5", "ceiling-150", "ceilings", "abc"])
def test_bad_relative_values_are_one_line(labelled, bad, command):
    args = ["report", "--db", str(labelled)] if command == "report" else ["compare", "run-a", "run-b", "--db", str(labelled)]
    res = CliRunner().invoke(app, [*args, "--min-judge-agreement", bad])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --min-judge-agreement") and "Traceback" not in res.output


def test_no_ceiling_marks_every_judge_in_one_line(tmp_db, make_run):
    store = Store(tmp_db)
    rid = make_run(store, [T("a", "born in", "x"), T("b", "born in", "y")], [T("a", "born in", "x")])
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=1, recall=0.5, f1=2 / 3, n_gt=2, n_pred=1, n_covered=1, n_valid=1),
                    [VerdictRow(score_id=0, run_id=rid, gt_index=0, covered=True, evidence_json="[0]"),
                     VerdictRow(score_id=0, run_id=rid, gt_index=1, covered=False, evidence_json="[]")])
    store.put_label(rid, 0, "ann", True, [0])
    store.put_label(rid, 1, "ann", False)
    js = json.loads(_report(tmp_db, "ceiling").stdout)  # the judge agrees 100% with its one annotator, but nobody checked her
    assert js["scores"][0]["judge_marked"] is True and js["human_ceiling"]["coverage"] is None
    note = js["judge_footnote"]
    assert "no human ceiling can be computed (fewer than 2 annotators on shared items)" in note and len(note.splitlines()) == 1


def test_parse_threshold():
    assert parse_threshold("ceiling-0.02") == CeilingMargin(0.02) and parse_threshold("ceiling") == CeilingMargin(0.0)
    assert parse_threshold("Ceiling-2") == CeilingMargin(0.02) and str(CeilingMargin(0.02)) == "ceiling-0.02"
    assert parse_threshold("98.5") == pytest.approx(0.985) and parse_threshold(None) is None
    for bad in ("ceiling+0.01", "ceiling-", "ceiling-1e3", "nan", "-1"):
        with pytest.raises(ValueError):
            parse_threshold(bad)
