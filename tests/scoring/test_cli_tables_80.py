"""`score --all` and `labels agreement` at 80 columns (COLUMNS=80, a real process): every number
printed whole, no line wider than the terminal, nothing cut with an ellipsis."""

import json
import os
import subprocess
import sys

from scoring_helpers import T

from vibesearch.store import Store

GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000"), T("oneworld", "founded in", "1999")]


def _cli(*args, columns=80):
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


def _fits(text, columns=80):
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= columns, text


def test_score_all_reads_at_80_columns(tmp_db, make_run):
    store = Store(tmp_db)
    long_task = "daily-en-a-task-id-long-enough-to-wrap-in-the-table"
    ids = [make_run(store, GT, GT[:k] + [T("x", "y", "z")], task_id=long_task) for k in (1, 2, 3)]
    out = _cli("score", "--all", "--db", tmp_db)
    assert out.returncode == 0, out.stderr
    _fits(out.stdout)
    rows = json.loads(_cli("score", "--all", "--rescore", "--json", "--db", tmp_db).stdout)
    for r in rows:  # every figure of every run, whole
        for key in ("precision", "recall", "f1"):
            assert f"{100 * r[key]:.2f}" in out.stdout
    for rid in ids:
        assert rid in out.stdout  # the run ids are never folded: numbers and ids keep their width


def test_labels_agreement_prf_table_reads_at_80_columns(tmp_db, tmp_path, make_run):
    store = Store(tmp_db)
    rid = make_run(store, GT, GT[:2])
    assert _cli("score", rid, "--db", tmp_db).returncode == 0
    src = tmp_path / "labels.jsonl"
    src.write_text("\n".join(json.dumps({"run_id": rid, "gt_index": i, "annotator": "ann", "covered": i != 1}) for i in range(3)))
    assert _cli("labels", "import", src, "--db", tmp_db).returncode == 0
    out = _cli("labels", "agreement", "--db", tmp_db)
    assert out.returncode == 0, out.stderr
    block = out.stdout[out.stdout.index("P / R / F1 (%) from human labels"):]
    _fits(block)
    (entry,) = json.loads(_cli("labels", "agreement", "--json", "--db", tmp_db).stdout)["prf"]
    h = entry["human"]
    assert f"{100 * h['precision']:.2f}/{100 * h['recall']:.2f}/{100 * h['f1']:.2f}" in block  # the people's figures, whole
    assert f"{entry['n_labelled']}/{entry['n_gt']}" in block and rid in block


def test_labels_agreement_judge_tables_read_at_80_columns(tmp_db, make_run):
    """The judge-vs-human tables of both sides, their splits and the per-annotator rows: every
    measure and its interval whole, no line wider than 80 columns, nothing cut with an ellipsis;
    an open tie is said to be left out."""
    from vibesearch.store.tables import ScoreRow, VerdictRow

    store = Store(tmp_db)
    rid = make_run(store, GT, GT[:2] + [T("x", "y", "z")], task_id="daily-en-a-task-id-long-enough-to-wrap-in-the-table")
    long_judge = "openai/a-judge-model-with-a-rather-long-name-2026-01-01"
    for judge, said in (("offline", [True, True, False]), (long_judge, [True, False, False])):
        verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=c, evidence_json="[0]" if c else "[]") for i, c in enumerate(said)]
        store.add_score(ScoreRow(run_id=rid, judge=judge, precision=0.5, recall=0.5, f1=0.5, n_gt=3, n_pred=3, n_covered=1, n_valid=1), verdicts)
    for who, labels in (("annotator-with-a-long-name", [True, True, False]), ("bob", [True, False, False])):
        for i, c in enumerate(labels):
            store.put_label(rid, i, who, c, [0] if c else [])
    store.put_pred_labels([{"run_id": rid, "pred_index": p, "annotator": "bob", "valid": p == 0} for p in range(3)])
    out = _cli("labels", "agreement", "--db", tmp_db)
    assert out.returncode == 0, out.stderr
    _fits(out.stdout)
    report = json.loads(_cli("labels", "agreement", "--json", "--db", tmp_db).stdout)
    assert report["n_open_ties"] == 1 and "1 item(s) left out as open ties" in out.stdout

    def whole(row, measure, percent=True):
        value, ci = row[measure], row["ci"][measure]
        fmt = (lambda x: f"{100 * x:.2f}") if percent else (lambda x: f"{x:.3f}")
        return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")

    for side in (report, report["validity"]):
        for row in side["judges"] + side["judge_vs_annotator"]:
            if row["n"] and row["agreement"] is not None:
                assert whole(row, "agreement") in out.stdout  # each figure with its interval, on one line
            if row["kappa"] is not None:
                assert whole(row, "kappa", percent=False) in out.stdout


def test_labels_calibrate_reads_at_80_columns():
    """Every figure of the calibration tables whole at 80 columns (they used to be cut to "agree…")."""
    from pathlib import Path

    cases = Path(__file__).resolve().parent.parent / "data" / "judge_cases_test.jsonl"
    out = _cli("labels", "calibrate", cases)
    assert out.returncode == 0, out.stderr
    body = out.stdout.split(" disagrees on:")[0]  # the id list after the tables is plain text, wrapped by the terminal
    _fits(body)
    rep = json.loads(_cli("labels", "calibrate", cases, "--json").stdout)["judges"][0]
    c = rep["confusion"]
    for shown in (f"{100 * rep['agreement']:.2f}", f"{rep['kappa']:.3f}", f"{c['tp']}/{c['fn']}/{c['fp']}/{c['tn']}", "offline judge",
                  "agreement %", "false covered", "precision %", "recall %"):
        assert shown in body, shown
