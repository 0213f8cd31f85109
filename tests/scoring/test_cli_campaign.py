"""``vibesearch campaign create|status|export`` through the real CLI."""

from __future__ import annotations

import csv
import json

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.labels.campaigns import Item, adjudicate, get_campaign
from vibesearch.store import Store

GT = [T("Kyoto", "has temple", "Kinkaku-ji"), T("Nara", "has park", "Nara Park")]
PRED = [T("Kyoto", "has temple", "Kinkaku-ji")]


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def labelled(tmp_db, make_run):
    """A campaign over two runs where ann and bob disagree on one item and cy resolved it."""
    store = Store(tmp_db)
    r1, r2 = make_run(store, GT, PRED), make_run(store, GT, PRED, language="zh")
    return store, r1, r2


def test_create_status_and_export(cli, tmp_db, labelled, tmp_path):
    store, r1, r2 = labelled
    out = cli("campaign", "create", "spring", "--runs", f"{r1},{r2}", "--annotator", "ann", "--annotator", "bob",
              "--sides", "coverage,validity", "--overlap", "2", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert "campaign spring: 2 runs, sides coverage, validity, annotators ann, bob, overlap 2" in out.stdout
    store.put_label(r1, 0, "ann", True, evidence=[0], note="same temple")
    store.put_label(r1, 0, "bob", False)
    store.put_pred_labels([{"run_id": r1, "pred_index": 0, "annotator": "ann", "valid": True}])

    status = cli("campaign", "status", "spring", "--json", "--db", tmp_db)
    assert status.exit_code == 0, status.output
    data = json.loads(status.stdout)
    assert (data["items"], data["labels"], data["disagreements_pending"]) == (6, 3, 1)
    assert data["annotators"]["ann"] == {"labelled": 2, "queue": 4}
    assert data["pending"] == [{"run_id": r1, "side": "coverage", "index": 0, "number": 1, "labels": {"ann": True, "bob": False}}]
    text = cli("campaign", "status", "spring", "--db", tmp_db)
    assert "1 waiting for adjudication" in text.stdout and "ann=yes, bob=no" in text.stdout

    adjudicate(store, get_campaign(store, "spring"), Item(r1, "coverage", 0), "cy", True, "checked the page")
    jsonl = tmp_path / "out" / "spring.jsonl"
    done = cli("campaign", "export", "spring", jsonl, "--db", tmp_db)
    assert done.exit_code == 0 and "wrote 3 labels" in done.stdout
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    first = rows[0]
    assert (first["head"], first["relation"], first["tail"], first["annotator"], first["label"]) == ("Kyoto", "has temple", "Kinkaku-ji", "ann", True)
    assert (first["adjudicator"], first["adjudicated_label"], first["adjudication_comment"], first["final_label"]) == ("cy", True, "checked the page", True)
    assert first["note"] == "same temple" and first["evidence"] == [0]
    assert rows[2]["side"] == "validity" and rows[2]["adjudicator"] == "" and rows[2]["final_label"] is True

    as_csv = tmp_path / "spring.csv"
    assert cli("campaign", "export", "spring", as_csv, "--db", tmp_db).exit_code == 0
    table = list(csv.DictReader(as_csv.open(encoding="utf-8")))
    assert [(r["annotator"], r["label"], r["final_label"]) for r in table] == [("ann", "true", "true"), ("bob", "false", "true"), ("ann", "true", "true")]


def test_a_filter_makes_a_campaign(cli, tmp_db, labelled):
    _, _, r2 = labelled
    out = cli("campaign", "create", "zh", "--filter", "language=zh", "--filter", "status=finished", "--annotator", "ann",
              "--sides", "validity", "--overlap", "1", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert json.loads(cli("campaign", "status", "zh", "--json", "--db", tmp_db).stdout)["items"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create", "c", "--runs", "nope", "--annotator", "a", "--overlap", "1"], "run 'nope': no such run"),
        (["create", "c", "--annotator", "a", "--overlap", "1"], "name the campaign's runs"),
        (["create", "c", "--filter", "colour=red", "--annotator", "a", "--overlap", "1"], "unknown key 'colour'"),
        (["create", "c", "--filter", "language=en", "--annotator", "a", "--overlap", "2"], "overlap 2 must be between"),
        (["create", "c", "--filter", "language=en", "--annotator", "a", "--overlap", "1", "--sides", "both"], "unknown side 'both'"),
        (["status", "nope"], "no campaign named 'nope'"),
        (["export", "nope", "x.jsonl"], "no campaign named 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(cli, tmp_db, labelled, args, message):
    out = cli("campaign", *args, "--db", tmp_db)
    assert out.exit_code == 1
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], out.output
    assert Store(tmp_db).campaigns() == []


def test_export_refuses_an_unknown_suffix_and_writes_nothing(cli, tmp_db, labelled, tmp_path):
    _, r1, _ = labelled
    assert cli("campaign", "create", "c", "--runs", r1, "--annotator", "a", "--overlap", "1", "--db", tmp_db).exit_code == 0
    out = cli("campaign", "export", "c", tmp_path / "labels.xlsx", "--db", tmp_db)
    assert out.exit_code == 1 and "must end in .jsonl or .csv, not '.xlsx'" in out.stderr
    assert list(tmp_path.glob("labels*")) == []


def test_adjudicate_from_the_cli_by_the_number_status_shows(cli, tmp_db, labelled):
    store, r1, _ = labelled
    assert cli("campaign", "create", "c", "--runs", r1, "--annotator", "ann", "--annotator", "bob", "--overlap", "2", "--db", tmp_db).exit_code == 0
    store.put_label(r1, 1, "ann", True, evidence=[0])
    store.put_label(r1, 1, "bob", False)
    text = cli("campaign", "status", "c", "--db", tmp_db).stdout
    assert f"{r1} coverage #2: ann=yes, bob=no" in text and "campaign adjudicate" in text
    assert json.loads(cli("campaign", "status", "c", "--json", "--db", tmp_db).stdout)["pending"][0]["number"] == 2

    def refused(*args: object) -> str:
        out = cli("campaign", "adjudicate", "c", *args, "--db", tmp_db)
        lines = [line for line in out.stderr.splitlines() if line.strip()]
        assert out.exit_code == 1 and len(lines) == 1, out.output
        return lines[0]

    assert "labelled coverage #2 of run" in refused(r1, "coverage", 2, "--by", "bob", "--label", "no")
    assert "coverage #1 of run" in refused(r1, "coverage", 1, "--by", "cy", "--label", "no")  # nothing to resolve
    assert "side must be coverage or validity" in refused(r1, "both", 2, "--by", "cy", "--label", "no")
    assert "--label must be yes or no" in refused(r1, "coverage", 2, "--by", "cy", "--label", "maybe")
    assert "counts from 1" in refused(r1, "coverage", 0, "--by", "cy", "--label", "no")
    assert "no campaign named 'x'" in cli("campaign", "adjudicate", "x", r1, "coverage", 2, "--by", "cy", "--label", "no", "--db", tmp_db).stderr
    assert store.adjudications() == []

    done = cli("campaign", "adjudicate", "c", r1, "coverage", 2, "--by", "cy", "--label", "no", "--comment", "Nara is not in Kyoto", "--db", tmp_db)
    assert done.exit_code == 0 and f"resolved coverage #2 of run {r1}: no, by cy" in done.stdout, done.output
    (row,) = store.adjudications()
    assert (row.item_index, row.label, row.adjudicator, row.comment, row.campaign) == (1, False, "cy", "Nara is not in Kyoto", "c")
    assert json.loads(cli("campaign", "status", "c", "--json", "--db", tmp_db).stdout)["pending"] == []


def test_blind_or_not_is_chosen_at_creation_and_said_by_list_status_and_export(cli, db_url, make_run, tmp_path):
    """``--blind`` (the default) or ``--no-blind``, on SQLite and on PostgreSQL: ``campaign list``,
    ``status`` (text and JSON) and both export formats say which a campaign is."""
    store = Store(db_url)
    r1 = make_run(store, GT, PRED)
    made = cli("campaign", "create", "quiet", "--runs", r1, "--annotator", "ann", "--overlap", "1", "--db", db_url)
    assert made.exit_code == 0 and made.stdout.strip().endswith("overlap 1, blind"), made.output
    review = cli("campaign", "create", "review", "--runs", r1, "--annotator", "ann", "--overlap", "1", "--no-blind", "--db", db_url)
    assert review.exit_code == 0 and "overlap 1, not blind (judge review)" in review.stdout, review.output
    assert cli("campaign", "create", "loud", "--runs", r1, "--annotator", "ann", "--overlap", "1", "--blind", "--db", db_url).exit_code == 0
    assert {c.name: c.blind for c in Store(db_url).campaigns()} == {"loud": True, "quiet": True, "review": False}

    listed = cli("campaign", "list", "--json", "--db", db_url)
    assert listed.exit_code == 0, listed.output
    assert [(c["campaign"], c["blind"], c["runs"]) for c in json.loads(listed.stdout)] == [("loud", True, 1), ("quiet", True, 1), ("review", False, 1)]
    text = cli("campaign", "list", "--db", db_url).stdout
    shown = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.splitlines() if line.count("│") > 3 and line.split("│")[1].strip()}
    assert shown == {"loud": "blind", "quiet": "blind", "review": "not blind (judge review)"}, text

    assert json.loads(cli("campaign", "status", "review", "--json", "--db", db_url).stdout)["blind"] is False
    assert json.loads(cli("campaign", "status", "quiet", "--json", "--db", db_url).stdout)["blind"] is True
    assert cli("campaign", "status", "review", "--db", db_url).stdout.startswith("campaign review (not blind (judge review)):")

    store.put_label(r1, 0, "ann", True, evidence=[0])
    for name, blind in (("review", False), ("quiet", True)):
        jsonl, as_csv = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.csv"
        assert cli("campaign", "export", name, jsonl, "--db", db_url).exit_code == 0
        assert cli("campaign", "export", name, as_csv, "--db", db_url).exit_code == 0
        rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
        assert rows and all(r["blind"] is blind for r in rows)
        table = list(csv.DictReader(as_csv.open(encoding="utf-8")))
        assert table and {r["blind"] for r in table} == {"true" if blind else "false"}


def test_campaign_list_with_none_says_so(cli, tmp_db):
    out = cli("campaign", "list", "--db", tmp_db)
    assert out.exit_code == 0 and "no campaign yet" in out.stdout
    assert json.loads(cli("campaign", "list", "--json", "--db", tmp_db).stdout) == []
