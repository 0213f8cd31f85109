"""A label file is taken only when every row is right (issue item 13): the row must point at a
triple the run has, say ``covered`` as a boolean, name a person on one line (the name in its one
normalised form, so a padded name is the same person), carry no NUL, agree with any other row for
the same item and use only the label columns. Each refusal names the file, the row and the field,
and stores nothing."""

from __future__ import annotations

import json

import pytest
from scoring_helpers import T

from vibesearch._names import PersonNameError, annotator_name
from vibesearch.labels.campaigns import CampaignError, Item, adjudicate, create_campaign, get_campaign
from vibesearch.labels.labels_io import LabelFileError, import_labels, read_label_file

GT = [T(f"h{i}", "r", f"t{i}") for i in range(3)]  # gt_index 0 to 2
PRED = [T("p0", "r", "x"), T("p1", "r", "y")]  # evidence 0 and 1


@pytest.fixture
def rid(store, make_run):
    return make_run(store, GT, PRED)


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _csv(path, rows):
    """The rows as a label CSV (every cell text, evidence space-separated): where a padded name
    is normalised (a JSONL value must already be in its one form)."""
    import csv

    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=["run_id", "gt_index", "annotator", "covered", "evidence", "note"])
        out.writeheader()
        for r in rows:
            out.writerow({**r, "covered": str(r["covered"]).lower(), "evidence": " ".join(map(str, r["evidence"]))})
    return path


def _rows(store):
    return [(r.gt_index, r.annotator, r.covered, json.loads(r.evidence_json), r.note) for r in store.labels()]


def _good(rid, **over):
    return {"run_id": rid, "gt_index": 0, "annotator": "ann", "covered": True, "evidence": [0], "note": "", **over}


@pytest.mark.parametrize(("bad", "message"), [
    ({"gt_index": 3}, r":2: gt_index: 3 is past the run's ground truth: run '\w+' has 3 ground-truth triples \(0 to 2\)"),
    ({"evidence": [1, 2]}, r":2: evidence: 2 is past the run's predicted triples: run '\w+' has 2 predicted triples"),
    ({"covered": "true"}, r":2: covered: expected true or false \(a JSON boolean, without quotes\), got 'true'"),
    ({"covered": 1}, r":2: covered: expected true or false"),
    ({"gt_index": "1"}, r":2: gt_index: expected a whole number, got '1'"),
    ({"evidence": "0 1"}, r":2: evidence: expected a list of predicted-triple indices"),
    ({"annotator": "   "}, r":2: annotator: the name is only whitespace"),
    ({"annotator": "ann\nbob"}, r":2: annotator: 'ann\\nbob' spans several lines"),
    ({"annotator": "a\u2028b"}, r":2: annotator: .* spans several lines"),
    ({"annotator": "ann\x1b[2J"}, r":2: annotator: .* holds the control character U\+001B"),
    ({"annotator": "an\u200bn"}, r":2: annotator: .* holds the invisible character U\+200B"),
    ({"annotator": "an\x00n"}, r": line 2\.annotator: holds a NUL character"),
    ({"note": "ok\x00"}, r": line 2\.note: holds a NUL character"),
    ({"coverd": True}, r":2: 'coverd': not a label field"),
    ({"annotator": " ann "}, r":2: annotator: ' ann ' is not a name in its one form \(write 'ann'"),
])
def test_a_bad_jsonl_row_is_refused_naming_file_row_and_field(store, rid, tmp_path, bad, message):
    path = _jsonl(tmp_path / "labels.jsonl", [_good(rid), {**_good(rid, gt_index=1), **bad}])
    with pytest.raises(LabelFileError, match=message) as err:
        import_labels(store, path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)
    assert store.labels() == []  # all or nothing


CSV_HEADER = "run_id,gt_index,annotator,covered,evidence,note\n"


@pytest.mark.parametrize(("header", "row", "message"), [
    (CSV_HEADER, "{rid},2,ann,true,,,surplus\n", r":3: 7 cells, but the header has 6 columns"),
    (CSV_HEADER, "{rid},2,ann\n", r":3: 3 cells, but the header has 6 columns"),
    (CSV_HEADER.strip() + ",mood\n", "{rid},2,ann,true,,,happy\n", r":1: column 7: 'mood' is not a label column"),
    ("run_id,gt_index,annotator,covered,covered\n", "{rid},2,ann,true,false\n", r":1: column 5: 'covered' is given twice"),
    ("run_id,gt_index,annotator\n", "{rid},2,ann\n", r":1: the header has no covered column"),
    (CSV_HEADER, "{rid},2,\"ann\nbob\",true,,\n", r":3: annotator: .* spans several lines"),
    (CSV_HEADER, "{rid},2, \t ,true,,\n", r":3: annotator: the name is only whitespace"),
    (CSV_HEADER, "{rid},2,an\x00n,true,,\n", r":3: annotator: .* holds a NUL character"),
    (CSV_HEADER, "{rid},2,ann,true,,bad\x00note\n", r":3: note: holds a NUL character"),
    (CSV_HEADER, "{rid},9,ann,true,,\n", r":3: gt_index: 9 is past the run's ground truth"),
    (CSV_HEADER, "{rid},2,ann,true,0 7,\n", r":3: evidence: 7 is past the run's predicted triples"),
    (CSV_HEADER, "{rid},0,  ann ,false,0,\n", r":3: covered: contradicts row 2, which labels the same item \(run '\w+', gt_index 0, annotator 'ann'\)"),
])
def test_a_bad_csv_row_is_refused_naming_file_row_and_field(store, rid, tmp_path, header, row, message):
    path = tmp_path / "labels.csv"
    path.write_text(header + (f"{rid},0,ann,true,0,\n" if header == CSV_HEADER else "") + row.format(rid=rid), encoding="utf-8")
    with pytest.raises(LabelFileError, match=message) as err:
        import_labels(store, path)
    assert str(err.value).startswith(str(path))
    assert store.labels() == []


def test_two_rows_for_one_item_must_agree(store, rid, tmp_path):
    path = _csv(tmp_path / "labels.csv", [_good(rid), _good(rid, gt_index=1), _good(rid, annotator=" ann  ", evidence=[1])])
    with pytest.raises(LabelFileError, match=r":4: evidence: contradicts row 2, which labels the same item"):
        import_labels(store, path)
    assert store.labels() == []
    # the same label twice (a file pasted twice) is one label; another person's label is not a repeat
    same = _csv(tmp_path / "twice.csv", [_good(rid), _good(rid, annotator="ann ", evidence=[0]), _good(rid, annotator="bob", covered=False, evidence=[])])
    assert len(read_label_file(same)) == 2
    import_labels(store, same)
    assert _rows(store) == [(0, "ann", True, [0], ""), (0, "bob", False, [], "")]


def test_names_are_stored_in_one_form(store, rid, tmp_path):
    path = _csv(tmp_path / "labels.csv", [_good(rid, annotator="  Ann   Lee\t"), _good(rid, gt_index=1, annotator="Ann Lee")])
    import_labels(store, path)
    assert {r.annotator for r in store.labels()} == {"Ann Lee"}


def test_a_padded_name_cannot_adjudicate_its_own_disagreement(store, rid, tmp_path):
    """The hole the issue names: "ann " labelled an item, then "ann" resolved the disagreement as
    if she were a third person."""
    create_campaign(store, "c", runs=[rid], annotators=["ann", "bob"], sides=["coverage"], overlap=2)
    _csv(tmp_path / "labels.csv", [_good(rid, annotator=" ann "), _good(rid, annotator="bob", covered=False, evidence=[])])
    import_labels(store, tmp_path / "labels.csv")
    with pytest.raises(CampaignError, match="third person"):
        adjudicate(store, get_campaign(store, "c"), Item(rid, "coverage", 0), "ann", True)
    assert adjudicate(store, get_campaign(store, "c"), Item(rid, "coverage", 0), "cy", True).adjudicator == "cy"


@pytest.mark.parametrize(("value", "normal"), [("ann", "ann"), ("  ann ", "ann"), ("Ann\t \u3000Lee", "Ann Lee"), ("e\u0301", "\u00e9")])
def test_annotator_name_normalises(value, normal):
    assert annotator_name(value) == normal


@pytest.mark.parametrize(("value", "message"), [
    ("", "empty"), (" \t ", "only whitespace"), ("a\nb", "several lines"), ("a\r\nb", "several lines"), ("a\x85b", "several lines"),
    ("a\x00b", "NUL"), ("a\x07b", r"control character U\+0007"), ("a\u202eb", r"invisible character U\+202E"),
    ("x" * 201, "longer than 200"), (None, "expected a name"), (3, "expected a name"),
])
def test_annotator_name_refuses(value, message):
    with pytest.raises(PersonNameError, match=message):
        annotator_name(value)


# ---------------------------------------------------------------------- the meta-eval folder and the CLI's names
def _meta_folder(store, rid, tmp_path):
    import csv

    from vibesearch.labels.meta_eval_csv import GT_DIR, export_official
    from vibesearch.store.tables import ScoreRow, VerdictRow

    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]") for i in range(len(GT))]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=0.5, recall=1 / 3, f1=0.4, n_gt=3, n_pred=2, n_covered=1, n_valid=1), verdicts)
    out = tmp_path / "meta"
    export_official(store, out)
    (gt_file,) = (out / GT_DIR).glob("*.csv")
    rows = list(csv.reader(gt_file.read_text(encoding="utf-8-sig").splitlines()))
    rows[1][6], rows[1][7] = "yes", "fine"
    with gt_file.open("w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return out, gt_file


def test_a_meta_eval_folder_names_its_person_in_the_one_form(store, rid, tmp_path):
    from vibesearch.labels.meta_eval_csv import MetaEvalError, import_official

    out, _ = _meta_folder(store, rid, tmp_path)
    assert import_official(store, out, "  Ann   Lee ") == (1, 0)
    assert [(r.gt_index, r.annotator, r.covered, r.note) for r in store.labels()] == [(0, "Ann Lee", True, "fine")]
    for bad, said in (("ann\nbob", "--annotator: 'ann\\\\nbob' spans several lines"), ("a\x00b", "--annotator: .* NUL"), ("  ", "--annotator: the name is only whitespace")):
        with pytest.raises(MetaEvalError, match=said):
            import_official(store, out, bad)


def test_a_meta_eval_folder_is_read_strictly(store, rid, tmp_path):
    from vibesearch.labels.meta_eval_csv import MANIFEST, MetaEvalError, import_official

    out, gt_file = _meta_folder(store, rid, tmp_path)
    manifest = out / MANIFEST
    good = manifest.read_text(encoding="utf-8")
    manifest.write_text(good.replace('{\n  "runs"', '{"runs": {}, \n  "runs"', 1), encoding="utf-8")
    with pytest.raises(MetaEvalError, match=r"vibesearch_runs.json: not readable: .*the key 'runs' appears twice"):
        import_official(store, out, "ann")
    manifest.write_text(good, encoding="utf-8")
    gt_file.write_text(gt_file.read_text(encoding="utf-8-sig").replace("fine", "fi\x00ne"), encoding="utf-8-sig")
    with pytest.raises(MetaEvalError, match=r"row 2: human_comment holds a NUL character"):
        import_official(store, out, "ann")
    assert store.labels() == []


def test_the_cli_names_people_in_the_one_form(store, rid, tmp_db):
    """A campaign's annotators and its adjudicator come in through the CLI normalised, so the
    third-person rule compares the same names."""
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    def cli(*args):
        res = CliRunner().invoke(app, [str(a) for a in args])
        return res.exit_code, res.stdout + res.stderr

    code, said = cli("campaign", "create", "c", "--runs", rid, "--annotator", " ann ", "--annotator", "bob", "--overlap", "2",
                     "--sides", "coverage", "--db", tmp_db)
    assert code == 0, said
    assert get_campaign(store, "c").annotators() == ["ann", "bob"]
    code, said = cli("campaign", "create", "d", "--runs", rid, "--annotator", "ann\nbob", "--db", tmp_db)
    assert code == 1 and "--annotator: 'ann\\nbob' spans several lines" in said
    store.put_label(rid, 0, "ann", True, [0])
    store.put_label(rid, 0, "bob", False)
    code, said = cli("campaign", "adjudicate", "c", rid, "coverage", "1", "--by", "  ann", "--label", "yes", "--db", tmp_db)
    assert code == 1 and "third person" in said, said
    code, said = cli("campaign", "adjudicate", "c", rid, "coverage", "1", "--by", "c\x00y", "--label", "yes", "--db", tmp_db)
    assert code == 1 and "--by: " in said and "NUL" in said, said


def test_the_bulk_write_on_both_engines(db_url, tmp_path):
    """The import's one-transaction write (``store._labels_bulk``) on SQLite and PostgreSQL:
    inserts, a replaced label, both sides, a later record with the same key winning."""
    from vibesearch.run import GraphEvent
    from vibesearch.store import Store
    from vibesearch.store import put_labels_bulk
    from scoring_helpers import task_snapshot

    store = Store(db_url)
    rid = store.create_run("t1", task_json=task_snapshot(GT), status="finished").id
    store.add_graph(rid, GraphEvent(triples=PRED))
    store.put_label(rid, 1, "ann", False, note="old")
    store.put_label(rid, 2, "zed", False, [1], note="not in the file: kept")
    rows = [_good(rid, gt_index=i, annotator=f"a{i % 2}") for i in range(3)] + [_good(rid, gt_index=1, note="new")]
    path = _jsonl(tmp_path / "labels.jsonl", rows)
    assert import_labels(store, path) == 4
    assert _rows(store) == [(0, "a0", True, [0], ""), (1, "a1", True, [0], ""), (1, "ann", True, [0], "new"), (2, "a0", True, [0], ""),
                            (2, "zed", False, [1], "not in the file: kept")]
    validity = [{"run_id": rid, "pred_index": 0, "annotator": "ann", "valid": True, "evidence": [2]},
                {"run_id": rid, "pred_index": 0, "annotator": "ann", "valid": False, "evidence": []}]
    assert put_labels_bulk(store, [], validity) == (0, 2)
    assert [(r.pred_index, r.annotator, r.valid) for r in store.pred_labels()] == [(0, "ann", False)]
    store.engine.dispose()
