"""The official meta-eval CSVs (both sides) written, filled and read back; agreement per side."""

import csv
import io
import json
import shutil

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.labels.agreement import agreement_report
from vibesearch.labels.labels_io import export_labels
from vibesearch.labels.meta_eval_csv import (
    GT_DIR,
    GT_HEADER,
    PRED_DIR,
    PRED_HEADER,
    MetaEvalError,
    export_official,
    import_official,
    judge_sides,
)
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

GT = [T("珠穆朗玛峰", "高度", "8848.86米"), T("MIT", "located in", "Cambridge, MA"), T("A", "r", "B"), T("C", "r", "D")]
PRED = [T("Everest", "height", "8849 m"), T("X", "y", "z"), T("MIT", "city", "Cambridge")]
# the judge: gt 0 covered by pred 0; gt 1 covered by preds 0 and 2; gt 2 and 3 not covered
# -> pred 0 valid (gt 0, 1), pred 1 not valid, pred 2 valid (gt 1)
VERDICTS = [(True, [0]), (True, [0, 2]), (False, []), (False, [])]
NAME = "t1_sample0"  # the files of the run: task t1, its first sample (the official <qid>_sample<i>)


@pytest.fixture
def run(store, make_run):
    rid = make_run(store, GT, PRED)
    rows = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=c, evidence_json=json.dumps(e)) for i, (c, e) in enumerate(VERDICTS)]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=2 / 3, recall=0.5, f1=4 / 7, n_gt=4, n_pred=3, n_covered=2, n_valid=2), rows)
    return rid


def read_csv(path):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def write_csv(path, rows):
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)


def fill(path, labels):
    """Set human_label / human_comment of the rows named in ``labels`` (index -> (label, comment))."""
    rows = read_csv(path)
    for row in rows[1:]:
        if int(row[0]) in labels:
            row[6], row[7] = labels[int(row[0])]
    write_csv(path, rows)


def cov(store, who):
    return [(r.gt_index, r.covered, json.loads(r.evidence_json), r.note) for r in store.labels(annotator=who)]


def val(store, who):
    return [(r.pred_index, r.valid, json.loads(r.evidence_json), r.note) for r in store.pred_labels(annotator=who)]


def test_judge_sides(store, run):
    s = judge_sides(store, run)
    assert s.judge == "offline"
    assert s.valid == {0: True, 1: False, 2: True}
    assert s.pred_support == {0: [0, 1], 1: [], 2: [1]}


def test_layout_bom_header_and_cells(store, run, tmp_path):
    assert export_official(store, tmp_path / "out") == [run]
    gt = read_csv(tmp_path / "out" / GT_DIR / f"{NAME}.csv")
    pred = read_csv(tmp_path / "out" / PRED_DIR / f"{NAME}.csv")
    assert gt[0] == ["gt_index", "head", "relation", "tail", "model_covered", "supporting_pred_triples", "human_label", "human_comment"]
    assert pred[0] == ["pred_index", "head", "relation", "tail", "model_valid", "supporting_gt_triples", "human_label", "human_comment"]
    assert gt[1] == ["0", "珠穆朗玛峰", "高度", "8848.86米", "是", "(Everest, height, 8849 m)", "", ""]
    assert gt[2][3:6] == ["Cambridge, MA", "是", "(Everest, height, 8849 m)\n(MIT, city, Cambridge)"]
    assert [r[4] for r in gt[1:]] == ["是", "是", "否", "否"] and gt[3][5] == ""
    assert [r[4] for r in pred[1:]] == ["是", "否", "是"]
    assert pred[1][5] == "(珠穆朗玛峰, 高度, 8848.86米)\n(MIT, located in, Cambridge, MA)"
    assert pred[3][5] == "(MIT, located in, Cambridge, MA)"


def test_export_fill_import_round_trip(store, run, tmp_path):
    out = tmp_path / "out"
    export_official(store, out)
    fill(out / GT_DIR / f"{NAME}.csv", {0: ("是", "fine"), 1: ("no", "wrong city,\nsee note"), 2: (" Y ", ""), 3: ("", "")})
    fill(out / PRED_DIR / f"{NAME}.csv", {0: ("TRUE", ""), 1: ("1", "加州的剑桥"), 2: ("false", "")})
    assert import_official(store, out, "bob") == (3, 3)
    # a "yes" the judge shared takes the judge's support; any other decision has none
    assert cov(store, "bob") == [(0, True, [0], "fine"), (1, False, [], "wrong city,\nsee note"), (2, True, [], "")]
    assert val(store, "bob") == [(0, True, [0, 1], ""), (1, True, [], "加州的剑桥"), (2, False, [], "")]

    # the labels written come back out, and reading them again changes nothing (evidence kept)
    store.put_label(run, 2, "bob", True, [1], "by hand")
    store.put_pred_labels([{"run_id": run, "pred_index": 1, "annotator": "bob", "valid": True, "evidence": [3], "note": "加州的剑桥"}])
    before_cov, before_val = cov(store, "bob"), val(store, "bob")
    again = tmp_path / "again"
    export_official(store, again, annotator="bob")
    gt = read_csv(again / GT_DIR / f"{NAME}.csv")
    assert [r[6:] for r in gt[1:]] == [["是", "fine"], ["否", "wrong city,\nsee note"], ["是", "by hand"], ["", ""]]
    pred = read_csv(again / PRED_DIR / f"{NAME}.csv")
    assert [r[6:] for r in pred[1:]] == [["是", ""], ["是", "加州的剑桥"], ["否", ""]]
    assert import_official(store, again, "bob") == (3, 3)
    assert cov(store, "bob") == before_cov and val(store, "bob") == before_val


def bad_folder(store, run, tmp_path):
    out = tmp_path / "bad"
    if out.exists():
        shutil.rmtree(out)
    export_official(store, out)
    fill(out / GT_DIR / f"{NAME}.csv", {0: ("是", "good row")})  # a good label beside the bad one
    return out


@pytest.mark.parametrize(
    "side, mutate, message",
    [
        ("pred", lambda rows: rows[3].__setitem__(6, "maybe"), r"pred_precision_check/{run}\.csv: row 4: human_label 'maybe'"),
        ("gt", lambda rows: rows[2].__setitem__(0, "9"), r"gt_recall_check/{run}\.csv: row 3: gt_index '9' is not an index"),
        ("pred", lambda rows: rows[0].__setitem__(6, "label"), r"pred_precision_check/{run}\.csv: row 1: header '.*label,human_comment'"),
    ],
    ids=["bad label", "unknown index", "wrong header"],
)
def test_malformed_folder_is_refused_whole(store, run, tmp_path, side, mutate, message):
    out = bad_folder(store, run, tmp_path)
    path = out / (GT_DIR if side == "gt" else PRED_DIR) / f"{NAME}.csv"
    rows = read_csv(path)
    mutate(rows)
    write_csv(path, rows)
    with pytest.raises(MetaEvalError, match=message.format(run=NAME)):
        import_official(store, out, "bob")
    assert store.labels() == [] and store.pred_labels() == []  # nothing half-imported


def test_unknown_run_name_is_refused(store, run, tmp_path):
    out = bad_folder(store, run, tmp_path)
    (out / PRED_DIR / f"{NAME}.csv").rename(out / PRED_DIR / "no-such-run.csv")
    with pytest.raises(MetaEvalError, match=r"no-such-run\.csv: run 'no-such-run' \(the file's name\) is not in this database"):
        import_official(store, out, "bob")
    assert store.labels() == [] and store.pred_labels() == []


def test_cli_official_round_trip_and_errors(store, run, tmp_db, tmp_path):
    from vibesearch.cli.main import app

    runner = CliRunner()

    def cli(*args):
        return runner.invoke(app, [str(a) for a in args])

    out = tmp_path / "meta"
    res = cli("labels", "export", "--official", out, "--db", tmp_db)
    assert res.exit_code == 0, res.output
    assert read_csv(out / GT_DIR / f"{NAME}.csv")[0] == GT_HEADER and read_csv(out / PRED_DIR / f"{NAME}.csv")[0] == PRED_HEADER
    fill(out / GT_DIR / f"{NAME}.csv", {1: ("否", "")})
    fill(out / PRED_DIR / f"{NAME}.csv", {2: ("oui", "")})
    bad = cli("labels", "import", out, "--annotator", "ann", "--db", tmp_db)
    assert bad.exit_code == 1
    assert f"{NAME}.csv: row 4: human_label 'oui'" in bad.output and len(bad.output.strip().splitlines()) == 1
    assert Store(tmp_db).labels() == []
    fill(out / PRED_DIR / f"{NAME}.csv", {2: ("n", "")})
    ok = cli("labels", "import", out, "--annotator", "ann", "--db", tmp_db)
    assert ok.exit_code == 0, ok.output
    assert "1 coverage and 1 validity labels" in ok.output
    text = cli("labels", "agreement", "--db", tmp_db)
    assert text.exit_code == 0, text.output
    assert "coverage of ground-truth triples" in text.stdout and "validity of predicted triples" in text.stdout
    rep = json.loads(cli("labels", "agreement", "--json", "--db", tmp_db).stdout)
    assert rep["validity"]["judges"][0]["confusion"] == {"tp": 0, "fn": 0, "fp": 1, "tn": 0}  # pred 2: judge valid, ann no
    assert cli("labels", "import", out, "--db", tmp_db).exit_code == 1  # a folder needs --annotator
    missing = tmp_path / "nowhere.db"
    none = cli("labels", "import", out, "--annotator", "ann", "--db", missing)
    assert none.exit_code == 1 and "no database there" in none.output
    assert not missing.exists()  # refused before any file was created


def test_own_export_carries_triple_text(store, run, tmp_path):
    store.put_label(run, 1, "ann", True, [2])
    out = tmp_path / "l.jsonl"
    export_labels(store, out, "jsonl")
    rec = json.loads(out.read_text().splitlines()[0])
    assert (rec["gt_index"], rec["head"], rec["relation"], rec["tail"]) == (1, "MIT", "located in", "Cambridge, MA")
    out_csv = tmp_path / "l.csv"
    export_labels(store, out_csv, "csv")
    row = next(csv.DictReader(out_csv.open(encoding="utf-8", newline="")))
    assert (row["head"], row["tail"]) == ("MIT", "Cambridge, MA")


def test_agreement_per_side_by_hand(store, run):
    # coverage: ann1 says T, F, T, F; the judge T, T, F, F -> agreement 2/4, p_e = 0.5, kappa 0
    for i, c in enumerate([True, False, True, False]):
        store.put_label(run, i, "ann1", c)
    # validity: ann1 says T, T, F; the judge T, F, T -> agreement 1/3;
    # p_e = (2/3)(2/3) + (1/3)(1/3) = 5/9, kappa = (1/3 - 5/9) / (4/9) = -0.5
    # ann2 says T, F, T: items 1 and 2 are open ties, left out; on item 0 (both T) the judge agrees -> 1/1
    store.put_pred_labels([{"run_id": run, "pred_index": p, "annotator": "ann1", "valid": v} for p, v in enumerate([True, True, False])]
                          + [{"run_id": run, "pred_index": p, "annotator": "ann2", "valid": v} for p, v in enumerate([True, False, True])])
    rep = agreement_report(store)
    c1 = next(r for r in rep["judge_vs_annotator"] if r["against"] == "ann1")
    assert c1["agreement"] == pytest.approx(0.5) and c1["kappa"] == pytest.approx(0.0)
    v = rep["validity"]
    assert v["n_items"] == 3 and v["annotators"] == ["ann1", "ann2"]
    v1 = next(r for r in v["judge_vs_annotator"] if r["against"] == "ann1")
    assert v1["agreement"] == pytest.approx(1 / 3) and v1["kappa"] == pytest.approx(-0.5)
    assert v1["confusion"] == {"tp": 1, "fn": 1, "fp": 1, "tn": 0}
    v2 = next(r for r in v["judge_vs_annotator"] if r["against"] == "ann2")
    assert v2["agreement"] == pytest.approx(1.0)
    assert v["judges"][0]["against"] == "human majority" and v["judges"][0]["agreement"] == pytest.approx(1.0)
    assert v["judges"][0]["n"] == 1 and v["n_open_ties"] == 2  # (a tie used to count as "not valid": 2/3 over 3)
    # coincidences: o11 = 2, o10 = o01 = 2, o00 = 0 (n = 6, n1 = 4, n0 = 2):
    # D_o = 4/6, D_e = 2*4*2/(6*5) = 16/30, alpha = 1 - (4/6)/(16/30) = -0.25
    assert v["human_alpha"] == pytest.approx(-0.25)


def test_old_database_gets_the_validity_table(tmp_path, make_run):
    path = tmp_path / "old.db"
    rid = make_run(Store(path), GT, PRED)
    old = Store(path)
    with old.engine.begin() as conn:  # a file written before the table existed
        conn.exec_driver_sql("DROP TABLE pred_labels")
        conn.exec_driver_sql("DROP TABLE alembic_version")  # (and before the schema's migrations)
    assert Store(path, read_only=True).pred_labels() == []  # read-only: no table is no labels
    reopened = Store(path)  # the migration adds the table
    reopened.put_pred_labels([{"run_id": rid, "pred_index": 0, "annotator": "a", "valid": True, "evidence": [0]}])
    assert val(reopened, "a") == [(0, True, [0], "")]


def test_final_labels_fill_the_export_adjudication_first(store, run, tmp_path):
    from vibesearch.labels.campaigns import Item, adjudicate, create_campaign

    camp = create_campaign(store, "c", runs=[run], annotators=["a", "b", "c"], sides=["coverage"], overlap=2)
    # gt 0: a and b say yes (majority yes); gt 1: a yes, b no (a tie, then resolved no by d); gt 2: a no, b yes (a tie left open)
    for i, (a, b) in enumerate([(True, True), (True, False), (False, True)]):
        store.put_label(run, i, "a", a, evidence=[0] if a else [])
        store.put_label(run, i, "b", b, evidence=[0] if b else [])
    adjudicate(store, camp, Item(run, "coverage", 1), "d", False, "the page says otherwise")
    out = tmp_path / "final"
    export_official(store, out)  # the final labels are the default
    rows = read_csv(out / GT_DIR / f"{NAME}.csv")[1:]
    tie = "open tie: 1 yes, 1 no, not adjudicated (no final label)"
    assert [(r[6], r[7]) for r in rows] == [("是", ""), ("否", "the page says otherwise"), ("", tie), ("", "")]
    one = tmp_path / "one"  # one annotator's labels, as before
    export_official(store, one, annotator="b")
    assert [r[6] for r in read_csv(one / GT_DIR / f"{NAME}.csv")[1:]] == ["是", "否", "是", ""]
