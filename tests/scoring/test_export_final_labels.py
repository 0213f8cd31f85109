"""Every label export fills its human label with each item's final label (issue 39, item 9):
the adjudication for a resolved item, else the strict majority, an open tie left blank and
marked; one annotator's labels only when asked by name; and each export says which rule filled it.
Through the real CLI (``labels export``, ``labels export --official``, ``campaign export``)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.labels.campaigns import Item, adjudicate, create_campaign, final_label
from vibesearch.labels.human_label import item_finals
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

GT = [T("Kyoto", "has temple", "Kinkaku-ji"), T("Nara", "has park", "Nara Park"), T("Osaka", "has", "castle"), T("Kobe", "has", "beef")]
PRED = [T("Kyoto", "has temple", "Kinkaku-ji"), T("Nara", "has", "deer")]
TIE = "open tie: 1 yes, 1 no, not adjudicated (no final label)"


def cli(*args):
    """``vibesearch ARGS`` through the real CLI, in this process."""
    from vibesearch.cli.main import app

    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def labelled(tmp_db, make_run):
    """One scored run. Coverage: gt 0 ann covered / bob not, resolved *not covered* by cy (the
    issue's item); gt 1 ann, bob covered / carl not (majority covered); gt 2 ann not / bob covered
    (an open tie); gt 3 unlabelled. Validity: pred 0 ann not / bob valid, resolved valid by cy;
    pred 1 ann valid / bob, carl not (majority not valid)."""
    store = Store(tmp_db)
    rid = make_run(store, GT, PRED)
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]") for i in range(4)]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=0.5, recall=0.25, f1=1 / 3, n_gt=4, n_pred=2, n_covered=1, n_valid=1), verdicts)
    camp = create_campaign(store, "c", runs=[rid], annotators=["ann", "bob", "carl"], sides=["coverage", "validity"], overlap=2)
    for i, said in enumerate([{"ann": True, "bob": False}, {"ann": True, "bob": True, "carl": False}, {"ann": False, "bob": True}]):
        for who, covered in said.items():
            store.put_label(rid, i, who, covered, evidence=[0] if covered else [], note=f"{who} on {i}")
    store.put_pred_labels([{"run_id": rid, "pred_index": p, "annotator": who, "valid": v, "note": f"{who} on pred {p}"}
                           for p, said in enumerate([{"ann": False, "bob": True}, {"ann": True, "bob": False, "carl": False}])
                           for who, v in said.items()])
    adjudicate(store, camp, Item(rid, "coverage", 0), "cy", False, "not on the page")
    adjudicate(store, camp, Item(rid, "validity", 0), "cy", True, "it is there")
    return store, rid


def said(result) -> str:
    """What the command printed, its line wrapping undone."""
    return " ".join(result.stdout.split())


def read_csv(path):
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


def test_the_one_function_gives_each_step_of_the_rule(labelled):
    store, rid = labelled
    cov = item_finals(store, "coverage", [rid])
    assert [(i, f.label, f.source, f.comment) for (_, i), f in cov.items()] == [
        (0, False, "adjudication", "not on the page"), (1, True, "majority", ""), (2, None, "open tie", "")]
    assert [final_label(store, Item(rid, "coverage", i)) for i in range(4)] == [False, True, None, None]  # the campaign's view agrees
    assert [(f.label, f.source) for f in item_finals(store, "validity").values()] == [(True, "adjudication"), (False, "majority")]


def test_official_export_fills_human_label_with_the_final_labels_by_default(tmp_db, labelled, tmp_path):
    store, rid = labelled
    out = tmp_path / "meta"
    got = cli("labels", "export", "--official", out, "--db", tmp_db)
    assert got.exit_code == 0, got.output
    gt = read_csv(out / "gt_recall_check" / "t1_sample0.csv")[1:]
    # gt 0: ann said covered, the adjudication says not: the file has the adjudication (and cy's comment)
    assert [(r[6], r[7]) for r in gt] == [("否", "not on the page"), ("是", ""), ("", TIE), ("", "")]
    pred = read_csv(out / "pred_precision_check" / "t1_sample0.csv")[1:]
    assert [(r[6], r[7]) for r in pred] == [("是", "it is there"), ("否", "")]
    manifest = json.loads((out / "vibesearch_runs.json").read_text(encoding="utf-8"))
    assert manifest["runs"] == {"t1_sample0": rid}
    assert manifest["human_label"]["rule"] == "final" and "strict majority" in manifest["human_label"]["says"]
    assert manifest["human_label"]["items"] == {"coverage": {"adjudication": 1, "majority": 1, "open tie": 1},
                                                "validity": {"adjudication": 1, "majority": 1, "open tie": 0}}
    assert "human_label: each item's final label: the adjudication" in said(got)
    assert "(2 item(s) by adjudication, 2 by majority, 1 open tie(s) left blank and marked in human_comment)" in said(got)
    # --final names the default: the same files
    again = cli("labels", "export", "--official", tmp_path / "again", "--final", "--db", tmp_db)
    assert again.exit_code == 0, again.output
    assert read_csv(tmp_path / "again" / "gt_recall_check" / "t1_sample0.csv") == read_csv(out / "gt_recall_check" / "t1_sample0.csv")


def test_one_annotators_labels_only_when_asked_by_name(tmp_db, labelled, tmp_path):
    out = tmp_path / "ann"
    got = cli("labels", "export", "--official", out, "--annotator", "ann", "--db", tmp_db)
    assert got.exit_code == 0, got.output
    assert [(r[6], r[7]) for r in read_csv(out / "gt_recall_check" / "t1_sample0.csv")[1:]] == [
        ("是", "ann on 0"), ("是", "ann on 1"), ("否", "ann on 2"), ("", "")]
    manifest = json.loads((out / "vibesearch_runs.json").read_text(encoding="utf-8"))
    assert manifest["human_label"] == {"rule": "annotator", "annotator": "ann", "says": "one annotator's labels: ann's (no majority, no adjudication)"}
    assert "human_label: one annotator's labels: ann's" in said(got)
    both = cli("labels", "export", "--official", tmp_path / "x", "--annotator", "ann", "--final", "--db", tmp_db)
    assert both.exit_code == 1 and both.output.strip() == "error: give --annotator or --final, not both"
    loose = cli("labels", "export", "--out", tmp_path / "l.csv", "--annotator", "ann", "--db", tmp_db)
    assert loose.exit_code == 1 and len(loose.output.strip().splitlines()) == 1 and "go with --official" in loose.output


def test_label_file_carries_each_items_final_label_and_reads_back(tmp_db, labelled, tmp_path):
    store, rid = labelled
    out = tmp_path / "labels.csv"
    got = cli("labels", "export", "--out", out, "--db", tmp_db)
    assert got.exit_code == 0, got.output
    assert "final_label column: each item's final label" in said(got)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    finals = {(r["gt_index"], r["annotator"]): (r["covered"], r["final_label"], r["final_from"]) for r in rows}
    assert finals[("0", "ann")] == ("true", "false", "adjudication") and finals[("0", "bob")] == ("false", "false", "adjudication")
    assert finals[("1", "carl")] == ("false", "true", "majority") and finals[("2", "ann")] == ("false", "", "open tie")
    jsonl = tmp_path / "labels.jsonl"
    assert cli("labels", "export", "--format", "jsonl", "--out", jsonl, "--db", tmp_db).exit_code == 0
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert {(r["gt_index"], r["final_label"], r["final_from"]) for r in records} == {(0, False, "adjudication"), (1, True, "majority"), (2, None, "open tie")}
    # the file still reads back as every annotator's own labels (the final columns are ignored)
    before = sorted((r.gt_index, r.annotator, r.covered) for r in store.labels())
    for path in (out, jsonl):
        back = cli("labels", "import", path, "--db", tmp_db)
        assert back.exit_code == 0, back.output
        assert sorted((r.gt_index, r.annotator, r.covered) for r in Store(tmp_db).labels()) == before


def test_campaign_export_says_which_step_gave_the_final_label(tmp_db, labelled, tmp_path):
    out = tmp_path / "c.jsonl"
    got = cli("campaign", "export", "c", out, "--db", tmp_db)
    assert got.exit_code == 0, got.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    seen = {(r["side"], r["index"], r["final_label"], r["final_from"]) for r in rows}
    assert seen == {("coverage", 0, False, "adjudication"), ("coverage", 1, True, "majority"), ("coverage", 2, None, "open tie"),
                    ("validity", 0, True, "adjudication"), ("validity", 1, False, "majority")}
