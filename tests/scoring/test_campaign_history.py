"""A campaign item resolved more than once: ``campaign status`` says how many times each
adjudication was replaced, ``campaign adjudicate`` says what it replaced, and the export (JSONL and
CSV, cells csv-safe) carries the replaced adjudications, oldest first. On both engines."""

from __future__ import annotations

import csv
import json

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.labels.campaign_export import FIELDS, export_rows
from vibesearch.labels.campaigns import Item, adjudicate, create_campaign, get_campaign, item_labels, replaced_note
from vibesearch.store import Store

GT = [T("Kyoto", "has temple", "Kinkaku-ji"), T("Nara", "has park", "Nara Park")]
PRED = [T("Kyoto", "has temple", "Kinkaku-ji")]
EVIL = "=HYPERLINK(\"http://x\")"  # a name a spreadsheet would run


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def disputed(db_url, make_run):
    """Campaign "spring": ann and bob disagree on coverage #1 and on validity #1 of one run."""
    store = Store(db_url)
    run = make_run(store, GT, PRED)
    create_campaign(store, "spring", runs=[run], annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    store.put_label(run, 0, "ann", True)
    store.put_label(run, 0, "bob", False)
    store.put_pred_labels([{"run_id": run, "pred_index": 0, "annotator": "ann", "valid": True, "evidence": [0]},
                           {"run_id": run, "pred_index": 0, "annotator": "bob", "valid": False}])
    return store, run


def test_status_counts_the_replacements_per_adjudicated_item(cli, db_url, disputed):
    store, run = disputed
    camp = get_campaign(store, "spring")
    adjudicate(store, camp, Item(run, "coverage", 0), "cy", True, "first")
    adjudicate(store, camp, Item(run, "coverage", 0), "dee", False, "second")
    adjudicate(store, camp, Item(run, "coverage", 0), "cy", True, "third")
    adjudicate(store, camp, Item(run, "validity", 0), "cy", False)

    data = json.loads(cli("campaign", "status", "spring", "--json", "--db", db_url).stdout)
    assert data["adjudicated"] == [
        {"run_id": run, "side": "coverage", "index": 0, "number": 1, "label": True, "adjudicator": "cy", "replaced": 2},
        {"run_id": run, "side": "validity", "index": 0, "number": 1, "label": False, "adjudicator": "cy", "replaced": 0},
    ]
    assert data["pending"] == [] and data["disagreements_pending"] == 0
    text = cli("campaign", "status", "spring", "--db", db_url).stdout
    assert "adjudicated: 2 (1 of them replaced at least once)" in text
    assert f"{run} coverage #1: yes by cy, replaced 2 times (last by cy)" in text
    assert f"{run} validity #1: no by cy, never replaced" in text

    entry = next(e for e in item_labels(store, camp) if e.item == Item(run, "coverage", 0))
    assert entry.replaced == 2 and replaced_note(entry) == "replaced 2 times (last by cy)"
    assert [(h.adjudicator, h.comment, h.replaced_by) for h in entry.history] == [("cy", "first", "dee"), ("dee", "second", "cy")]


def test_adjudicate_says_what_it_replaced(cli, db_url, disputed):
    _, run = disputed
    first = cli("campaign", "adjudicate", "spring", run, "coverage", 1, "--by", "cy", "--label", "yes", "--db", db_url)
    assert first.exit_code == 0, first.output
    assert "replaces" not in first.stdout
    again = cli("campaign", "adjudicate", "spring", run, "coverage", 1, "--by", "[b]dee[/b]", "--label", "no", "--db", db_url)
    assert again.exit_code == 0, again.output
    assert "by [b]dee[/b]" in again.stdout  # a name is printed as typed, never read as console markup
    assert "it replaces the resolution by cy; this item's resolution was replaced 1 time" in again.stdout


def test_the_export_carries_the_history(cli, db_url, disputed, tmp_path):
    store, run = disputed
    camp = get_campaign(store, "spring")
    adjudicate(store, camp, Item(run, "coverage", 0), EVIL, True, "-looks covered")
    adjudicate(store, camp, Item(run, "coverage", 0), "dee", False, "not on the page")
    adjudicate(store, camp, Item(run, "coverage", 0), "cy", True, "it is, on page 2")

    jsonl = tmp_path / "spring.jsonl"
    done = cli("campaign", "export", "spring", jsonl, "--db", db_url)
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    cov = [r for r in rows if r["side"] == "coverage"]
    assert [r["annotator"] for r in cov] == ["ann", "bob"]
    for r in cov:  # every label row of the item carries the item's history
        assert (r["adjudicator"], r["adjudication_comment"], r["final_label"], r["adjudication_replaced"]) == ("cy", "it is, on page 2", True, 2)
        assert [(h["label"], h["adjudicator"], h["comment"], h["campaign"], h["replaced_by"]) for h in r["adjudication_history"]] == [
            (True, EVIL, "-looks covered", "spring", "dee"), (False, "dee", "not on the page", "spring", "cy"),
        ]
        assert all(h["adjudicated_at"] and h["replaced_at"] for h in r["adjudication_history"])
    val = [r for r in rows if r["side"] == "validity"]
    assert val and all(r["adjudication_replaced"] == 0 and r["adjudication_history"] == [] for r in val)
    assert rows == json.loads(json.dumps(export_rows(store, camp), default=str))

    as_csv = tmp_path / "spring.csv"
    assert cli("campaign", "export", "spring", as_csv, "--db", db_url).exit_code == 0
    with as_csv.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == FIELDS
        table = list(reader)
    first = table[0]
    assert (first["side"], first["adjudication_replaced"]) == ("coverage", "2")
    history = json.loads(first["adjudication_history"])  # one cell of JSON text, starting with "["
    assert [(h["adjudicator"], h["comment"], h["replaced_by"]) for h in history] == [
        (EVIL, "-looks covered", "dee"), ("dee", "not on the page", "cy"),
    ]
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in table for cell in row.values())
    assert [(r["adjudication_replaced"], r["adjudication_history"]) for r in table if r["side"] == "validity"] == [("0", "")] * 2

