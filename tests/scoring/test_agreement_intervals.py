"""Judge comparison with bootstrap intervals: numbers against hand-worked values, the intervals
against a direct reimplementation and their known properties, the splits, judges per profile,
and the command's output."""

import json

import numpy as np
import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.scoring.bootstrap import SEED, bootstrap_intervals, point_measures
from vibesearch.labels.agreement import agreement_report, agreement_row
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

H = [True, True, True, False, False]
J = [True, True, False, True, False]


def test_point_measures_by_hand():
    # tp 2 (items 0, 1), fn 1 (item 2), fp 1 (item 3), tn 1 (item 4)
    # p_o = 3/5; both sides say yes 3 times in 5: p_e = 0.6*0.6 + 0.4*0.4 = 0.52; kappa = 0.08 / 0.48 = 1/6
    got = point_measures(H, J)
    assert got["agreement"] == pytest.approx(0.6)
    assert got["kappa"] == pytest.approx(1 / 6)
    assert got["precision"] == pytest.approx(2 / 3) and got["recall"] == pytest.approx(2 / 3)
    # no positive decision by the judge: precision undefined; no positive label: recall undefined
    none_said = point_measures([True, False], [False, False])
    assert none_said["precision"] is None and none_said["recall"] == 0.0
    assert point_measures([False, False], [True, False])["recall"] is None
    assert point_measures([], [])["agreement"] is None


def _direct(human, judge, resamples, seed):
    """The same percentile bootstrap written out item by item, without vectorising."""
    n = len(human)
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    vals = {"agreement": [], "kappa": [], "precision": [], "recall": []}
    for row in idx:
        h = [human[i] for i in row]
        j = [judge[i] for i in row]
        tp = sum(a and b for a, b in zip(h, j))
        fn = sum(a and not b for a, b in zip(h, j))
        fp = sum(b and not a for a, b in zip(h, j))
        po = sum(a == b for a, b in zip(h, j)) / n
        ph, pj = sum(h) / n, sum(j) / n
        pe = ph * pj + (1 - ph) * (1 - pj)
        vals["agreement"].append(po)
        if pe < 1:
            vals["kappa"].append((po - pe) / (1 - pe))
        if tp + fp:
            vals["precision"].append(tp / (tp + fp))
        if tp + fn:
            vals["recall"].append(tp / (tp + fn))
    return {k: list(np.percentile(v, [2.5, 97.5])) for k, v in vals.items()}


def test_intervals_match_a_direct_reimplementation():
    human = [True, True, False, True, False, False, True, True, False, True, True, False]
    judge = [True, False, False, True, True, False, True, True, False, False, True, False]
    got = bootstrap_intervals(human, judge, resamples=300, seed=7)
    want = _direct(human, judge, 300, 7)
    for k in want:
        assert got[k] == pytest.approx(want[k])


def test_interval_properties():
    human = [i % 3 != 0 for i in range(40)]
    judge = [h if i % 7 else not h for i, h in enumerate(human)]
    ci = bootstrap_intervals(human, judge)
    point = point_measures(human, judge)
    for k, (low, high) in ci.items():
        assert low <= point[k] <= high, k  # the interval holds the point estimate
        assert 0 <= high - low < 1
    assert bootstrap_intervals(human, judge) == ci  # the seed is fixed: the same report twice
    assert bootstrap_intervals(human, judge, seed=SEED + 1) != ci
    # an all-agreeing sample: every resample agrees completely
    same = bootstrap_intervals(human, human)
    assert same["agreement"] == [1.0, 1.0] and same["kappa"] == [1.0, 1.0]
    assert same["precision"] == [1.0, 1.0] and same["recall"] == [1.0, 1.0]
    # one class on both sides: kappa undefined in every resample, so no interval
    assert bootstrap_intervals([True] * 5, [True] * 5)["kappa"] is None
    assert bootstrap_intervals([], [])["agreement"] is None


def test_row_explains_a_single_class_judge():
    row = agreement_row([True, False, True], [True, True, True], positive="valid", unit="predicted triple", judge="offline")
    assert row["kappa"] == pytest.approx(0.0)
    assert "offline judge said \"valid\" for all 3 predicted triples" in row["kappa_note"]
    assert row["precision"] == pytest.approx(2 / 3) and row["recall"] == 1.0
    assert agreement_row(H, J, judge="offline")["kappa_note"] is None


def _score(store, rid, judge, covered, evidence, protocol=None):
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=c, evidence_json=json.dumps(e))
                for i, (c, e) in enumerate(zip(covered, evidence))]
    store.add_score(ScoreRow(run_id=rid, judge=judge, precision=0, recall=0, f1=0, n_gt=len(covered), n_pred=2,
                             n_covered=sum(bool(c) for c in covered), n_valid=0, protocol=protocol), verdicts)


@pytest.fixture
def two_runs(store, make_run):
    gt = [T("a", "born in", "x"), T("b", "born in", "y"), T("c", "works at", "z")]
    pred = [T("a", "born in", "x"), T("c", "employer", "z")]
    en = make_run(store, gt, pred, language="en", subset="pro")
    zh = make_run(store, gt, pred, task_id="t2", language="zh", subset="daily")
    # the offline judge: en covers 0 (by pred 0) and 2 (by pred 1); zh covers 0 only; the gt 1 of zh unscored
    _score(store, en, "offline", [True, False, True], [[0], [], [1]])
    _score(store, zh, "offline", [True, None, False], [[0], [], []])
    # a model judge under the official profile, on en only: says covered everywhere
    _score(store, en, "fake/judge", [True, True, True], [[0], [0], [1]], protocol="official")
    for rid, labels in ((en, [True, False, False]), (zh, [True, True, True])):
        for i, c in enumerate(labels):
            store.put_label(rid, i, "ann", c, [0] if c else [])
    store.put_pred_labels([{"run_id": en, "pred_index": p, "annotator": "ann", "valid": v} for p, v in enumerate([True, False])])
    return en, zh


def test_report_per_judge_profile_and_split(store, two_runs):
    rep = agreement_report(store)
    keys = [(r["judge"], r["profile"]) for r in rep["judges"]]
    assert keys == [("fake/judge", "official protocol, own prompts"), ("offline", "vibesearch profile")]
    off = rep["judges"][1]
    # items decided by both: en 0, 1, 2 and zh 0, 2 (zh 1 unscored)
    # human T F F | T T ; judge T F T | T F -> tp 2, fn 1, fp 1, tn 1
    assert off["n"] == 5 and off["confusion"] == {"tp": 2, "fn": 1, "fp": 1, "tn": 1}
    assert off["agreement"] == pytest.approx(0.6) and off["kappa"] == pytest.approx(1 / 6)
    assert off["precision"] == pytest.approx(2 / 3) and off["recall"] == pytest.approx(2 / 3)
    assert off["ci"]["agreement"][0] <= 0.6 <= off["ci"]["agreement"][1]
    by_lang = {g["group"]: g for g in off["by"]["language"]}
    assert by_lang["en"]["n"] == 3 and by_lang["en"]["agreement"] == pytest.approx(2 / 3)
    assert by_lang["zh"]["n"] == 2 and by_lang["zh"]["agreement"] == pytest.approx(0.5)
    assert [g["group"] for g in off["by"]["subset"]] == ["daily", "pro"]
    by_rel = {g["group"]: g for g in off["by"]["relation"]}
    # "born in": en 0 (T,T), en 1 (F,F), zh 0 (T,T) -> 3/3; "works at": en 2 (F,T), zh 2 (T,F) -> 0/2
    assert by_rel["born in"]["agreement"] == 1.0 and by_rel["works at"]["agreement"] == 0.0
    model = rep["judges"][0]
    assert model["n"] == 3 and model["agreement"] == pytest.approx(1 / 3) and model["kappa"] == pytest.approx(0.0)
    assert "said \"covered\" for all 3 ground-truth triples" in model["kappa_note"]
    # validity: ann T F on en; the offline judge supports pred 0 and 1 -> T T; the model judge T T
    val = {(r["judge"], r["against"]): r for r in rep["validity"]["judges"]}
    v = val[("offline", "human majority")]
    assert v["n"] == 2 and v["agreement"] == 0.5 and v["precision"] == 0.5 and v["recall"] == 1.0
    assert "\"valid\"" in v["kappa_note"]
    assert rep["bootstrap"]["resamples"] >= 1000
    prf = {e["run_id"]: e["judges"] for e in rep["prf"]}
    assert set(prf[two_runs[0]]) == {"offline", "fake/judge · official protocol, own prompts"} and set(prf[two_runs[1]]) == {"offline"}


def test_agreement_command_prints_intervals_and_splits(tmp_db, make_run):
    from vibesearch.cli.main import app

    store = Store(tmp_db)
    gt = [T("a", "born in", "x"), T("b", "born in", "y"), T("c", "works at", "z")]
    rid = make_run(store, gt, [T("a", "born in", "x")])
    _score(store, rid, "offline", [True, False, True], [[0], [], [0]])
    for i, c in enumerate([True, False, False]):
        store.put_label(rid, i, "ann", c)
    runner = CliRunner()
    js = runner.invoke(app, ["labels", "agreement", "--json", "--db", str(tmp_db)])
    assert js.exit_code == 0, js.output
    rep = json.loads(js.stdout)
    row = rep["judges"][0]
    assert set(row["ci"]) == {"agreement", "kappa", "ac1", "precision", "recall"} and set(row["by"]) == {"language", "subset", "relation"}
    text = runner.invoke(app, ["labels", "agreement", "--db", str(tmp_db)], env={"COLUMNS": "250"})
    assert text.exit_code == 0, text.output
    assert "95% bootstrap" in text.stdout and "by relation" in text.stdout and "resamples" in text.stdout
    assert "66.67 [" in text.stdout  # agreement 2/3 with its interval


def test_intervals_do_not_depend_on_the_block_size(monkeypatch):
    from vibesearch.scoring import bootstrap as _bootstrap

    human = [i % 3 != 0 for i in range(90)]
    judge = [h if i % 5 else not h for i, h in enumerate(human)]
    whole = bootstrap_intervals(human, judge)
    monkeypatch.setattr(_bootstrap, "CHUNK_CELLS", 1000)  # 11 resamples a block
    assert bootstrap_intervals(human, judge) == whole


def test_krippendorff_alpha_three_annotators_with_a_gap_by_hand():
    from vibesearch.labels.agreement import krippendorff_alpha

    # item 1: A, B, C say 1; item 2: A, B say 0 (C did not label it); item 3: A 1, B 0, C 0
    # coincidences (each ordered pair of a unit weighted 1/(m-1)): o11 = 3, o00 = 2 + 1, o10 = o01 = 1
    # n = 8, n1 = n0 = 4: D_o = 2/8, D_e = 2*4*4 / (8*7) = 4/7, alpha = 1 - (1/4) / (4/7) = 9/16
    ratings = {
        "A": {("r", 1): True, ("r", 2): False, ("r", 3): True},
        "B": {("r", 1): True, ("r", 2): False, ("r", 3): False},
        "C": {("r", 1): True, ("r", 3): False},
    }
    assert krippendorff_alpha(ratings) == pytest.approx(9 / 16)
