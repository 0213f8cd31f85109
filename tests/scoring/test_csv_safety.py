"""CSV files meant for spreadsheets never hold a cell a spreadsheet would run as a formula (text
starting with =, +, -, @, tab or CR gets a leading '), and our own label CSV reads back as written.
The official meta-eval CSVs are left as they are: they are data for the official scripts."""

from __future__ import annotations

import csv

from scoring_helpers import T

from vibesearch._files import csv_plain, csv_safe
from vibesearch.reports.text import to_csv
from vibesearch.labels.campaigns import create_campaign, get_campaign
from vibesearch.labels.campaign_export import export_campaign
from vibesearch.labels.labels_io import export_labels, read_label_file
from vibesearch.store import Store

GT = [T("=HYPERLINK(\"http://x\")", "-relation", "@tail")]


def test_the_cell_rule_and_its_inverse():
    for text in ("=1+1", "+1", "-x", "@a", "\tq", "\rq"):
        assert csv_safe(text) == "'" + text and csv_plain(csv_safe(text)) == text
    for text in ("plain", "'quoted", "", "1-2"):
        assert csv_safe(text) == text and csv_plain(text) == text


def test_label_csv_is_formula_free_and_reads_back_as_written(tmp_db, make_run, tmp_path):
    store = Store(tmp_db)
    run = make_run(store, GT, [GT[0]])
    store.put_label(run, 0, "=cmd|' /C calc'!A0", True, evidence=[0], note="-looks right")
    out = tmp_path / "labels.csv"
    assert export_labels(store, out, fmt="csv") == 1
    row = next(csv.DictReader(out.open(encoding="utf-8")))
    assert row["annotator"].startswith("'=") and row["note"] == "'-looks right" and row["head"].startswith("'=")
    (back,) = read_label_file(out)
    assert back["annotator"] == "=cmd|' /C calc'!A0" and back["note"] == "-looks right"


def test_campaign_and_report_csvs_are_formula_free(tmp_db, make_run, tmp_path):
    store = Store(tmp_db)
    run = make_run(store, GT, [GT[0]])
    create_campaign(store, "c1", runs=[run], annotators=["ann"], sides=["coverage"], overlap=1)
    store.put_label(run, 0, "ann", True, note="=2+3")
    out = tmp_path / "c1.csv"
    export_campaign(store, get_campaign(store, "c1"), out)
    row = next(csv.DictReader(out.open(encoding="utf-8")))
    assert row["note"] == "'=2+3" and row["head"].startswith("'=") and row["relation"] == "'-relation"
    errors = {"f1_by_compactions": [], "f1_by_user_turns": [], "termination": {}, "relation_coverage": [],
              "generation": {"over_generation_runs": [], "under_generation_runs": []}}
    report = {"judge_label": "offline", "profiles": [], "errors": errors, "scores": [{"task": "=evil()", "f1": -0.5}],
              "interaction": [], "summary": [], "left_out": [], "runs": []}
    text = to_csv(report)
    assert "'=evil()" in text and ",-0.5" in text  # numbers stay numbers
