import json

import pytest
from scoring_helpers import T

from vibesearch.labels.agreement import agreement_report, cohen_kappa, krippendorff_alpha, percent_agreement
from vibesearch.labels.labels_io import LabelFileError, export_labels, import_labels
from vibesearch.store.tables import ScoreRow, VerdictRow

JUDGE = [1, 1, 1, 1, 1, 0, 0, 0, 1, 0]
ANN_1 = [1, 1, 1, 1, 0, 0, 0, 0, 1, 1]
ANN_2 = [1, 1, 1, 0, 0, 0, 0, 0, 1, 1]


def test_percent_and_kappa_by_hand():
    j, h = [bool(x) for x in JUDGE], [bool(x) for x in ANN_1]
    assert percent_agreement(h, j) == pytest.approx(0.8)
    # p_o = 0.8; both say covered 6 times in 10: p_e = 0.6*0.6 + 0.4*0.4 = 0.52
    assert cohen_kappa(h, j) == pytest.approx((0.8 - 0.52) / (1 - 0.52))


def test_kappa_degenerate_cases():
    assert cohen_kappa([True] * 5, [True] * 5) is None  # chance agreement 1: undefined
    assert cohen_kappa([], []) is None
    assert cohen_kappa([True, True], [True, False]) == pytest.approx(0.0)


def test_krippendorff_alpha_by_hand():
    r1 = {("r", i): bool(v) for i, v in enumerate(ANN_1)}
    r2 = {("r", i): bool(v) for i, v in enumerate(ANN_2)}
    # coincidences: o11 = 10, o00 = 8, o01 = o10 = 1, n = 20 (n1 = 11, n0 = 9)
    # D_o = 2/20; D_e = 2*11*9 / (20*19); alpha = 1 - D_o / D_e = 1 - 38/198
    assert krippendorff_alpha({"ann1": r1, "ann2": r2}) == pytest.approx(1 - 38 / 198)
    assert krippendorff_alpha({"ann1": r1}) is None
    same = {("r", i): True for i in range(4)}
    assert krippendorff_alpha({"a": same, "b": same}) is None  # one value only: undefined


@pytest.fixture
def labelled(store, make_run):
    gt = [T(f"h{i}", "r", f"t{i}") for i in range(10)]
    pred = [T(f"p{i}", "r", "x") for i in range(5)]
    rid = make_run(store, gt, pred)
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=bool(c), evidence_json=json.dumps([i % 4] if c else [])) for i, c in enumerate(JUDGE)]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=0.8, recall=0.6, f1=0.6857, n_gt=10, n_pred=5, n_covered=6, n_valid=4), verdicts)
    for name, labels in (("ann1", ANN_1), ("ann2", ANN_2)):
        for i, c in enumerate(labels):
            store.put_label(rid, i, name, bool(c), [i % 4] if c else [])
    return rid


def test_agreement_report(store, labelled):
    rep = agreement_report(store)
    assert rep["n_items"] == 10 and rep["annotators"] == ["ann1", "ann2"]
    vs_ann1 = next(r for r in rep["judge_vs_annotator"] if r["against"] == "ann1")
    assert vs_ann1["agreement"] == pytest.approx(0.8)
    assert vs_ann1["kappa"] == pytest.approx(0.28 / 0.48)
    assert vs_ann1["confusion"] == {"tp": 5, "fn": 1, "fp": 1, "tn": 3}
    # the two annotators split on item 3 only: an open tie, left out of the judge's comparison
    # (it used to count as "not covered"); on the other 9 the judge differs at items 4 and 9
    vs_major = rep["judges"][0]
    assert vs_major["against"] == "human majority" and vs_major["agreement"] == pytest.approx(7 / 9) and vs_major["n"] == 9
    assert (rep["n_open_ties"], rep["n_final"]) == (1, 9)
    assert rep["human_alpha"] == pytest.approx(1 - 38 / 198)
    prf = rep["prf"][0]
    # majority-covered items 0, 1, 2, 8, 9 of the 9 with a final label -> recall 5/9; their evidence {0, 1, 2} of 5 predicted
    assert prf["n_labelled"] == 9
    assert prf["human"]["recall"] == pytest.approx(5 / 9) and prf["human"]["precision"] == pytest.approx(0.6)
    assert prf["human"]["f1"] == pytest.approx(2 * 0.6 * (5 / 9) / (0.6 + 5 / 9))
    assert prf["judges"]["offline"]["f1"] == pytest.approx(0.6857)
    assert agreement_report(store, run_id="nope")["n_items"] == 0


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_labels_round_trip(store, labelled, tmp_path, fmt):
    out = tmp_path / f"labels.{fmt}"
    assert export_labels(store, out, fmt) == 20
    before = [(r.run_id, r.gt_index, r.annotator, r.covered, r.evidence_json) for r in store.labels()]
    for r in store.labels(annotator="ann1"):
        store.put_label(r.run_id, r.gt_index, "ann1", not r.covered)
    assert import_labels(store, out) == 20
    after = [(r.run_id, r.gt_index, r.annotator, r.covered, r.evidence_json) for r in store.labels()]
    assert after == before


def test_bad_label_files_name_the_line(store, labelled, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"run_id": labelled, "gt_index": 0, "annotator": "x", "covered": True}) + "\n"
                   + json.dumps({"run_id": labelled, "gt_index": "two", "annotator": "x", "covered": True}) + "\n")
    with pytest.raises(LabelFileError, match=r"bad.jsonl:2: gt_index"):
        import_labels(store, bad)
    assert not store.labels(annotator="x")  # nothing half-imported
    csv_bad = tmp_path / "bad.csv"
    csv_bad.write_text("run_id,gt_index,annotator,covered\n" + f"{labelled},0,x,maybe\n")
    with pytest.raises(LabelFileError, match=r"bad.csv:2: covered"):
        import_labels(store, csv_bad)
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(json.dumps({"run_id": "nope", "gt_index": 0, "annotator": "x", "covered": False}) + "\n")
    with pytest.raises(LabelFileError, match="not in this database"):
        import_labels(store, unknown)
