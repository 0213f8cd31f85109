"""``vibesearch votes import`` / ``votes export`` through the real CLI, on SQLite and PostgreSQL:
JSONL and CSV read back as they were written, Arena's battles name the configurations, a bad row
is refused with its file and line and stores nothing."""

from __future__ import annotations

import csv
import json

import pytest
from votes_helpers import cli, write_jsonl

from sqlmodel import Session, delete

from vibesearch.store import Store, VoteRow

FORMULA = "=HYPERLINK(\"http://x.example\",\"click\")"


def _votes(runs):
    rules, direct, staged = runs["rules"], runs["direct"], runs["staged"]
    return [
        {"run_a": staged[0], "run_b": direct[0], "winner": "a", "voter": "ann", "reason": FORMULA},
        {"run_a": direct[1], "run_b": rules[0], "winner": "tie", "voter": "ann"},
        {"run_a": rules[1], "run_b": staged[1], "winner": "both_bad", "voter": "bob", "reason": "neither names a temple"},
        {"run_a": staged[0], "run_b": direct[0], "winner": "b", "voter": "bob", "attention": "a", "campaign": "spring"},
    ]


def _stored(db):
    store = Store(db)
    rows = [(v.run_a, v.run_b, v.winner, v.voter, v.reason, v.attention, v.campaign) for v in store.votes()]
    store.engine.dispose()
    return rows


def test_jsonl_and_csv_round_trip_and_arena_battles(voted_db, tmp_path):
    db, runs = voted_db
    src = write_jsonl(tmp_path / "in.jsonl", _votes(runs))
    done = cli("votes", "import", src, "--db", db)
    assert done.exit_code == 0 and "imported 4 votes" in done.stdout, done.output
    first = _stored(db)
    assert [row[2] for row in first] == ["a", "tie", "both_bad", "b"] and first[0][4] == FORMULA and first[3][5:] == ("a", "spring")

    out = cli("votes", "export", "--db", db)
    exported = [json.loads(line) for line in out.stdout.splitlines()]
    assert [{k: r[k] for k in ("run_a", "run_b", "winner", "voter")} for r in exported] == [
        {k: v[k] for k in ("run_a", "run_b", "winner", "voter")} for v in _votes(runs)]
    assert exported[0]["config_a"] == "baseline (retrieval + oracle reader) · user staged"

    as_csv = tmp_path / "out" / "votes.csv"
    assert cli("votes", "export", as_csv, "--format", "csv", "--db", db).exit_code == 0
    table = list(csv.DictReader(as_csv.open(encoding="utf-8")))
    assert table[0]["reason"] == "'" + FORMULA  # a spreadsheet shows it as text
    store = Store(db)
    with Session(store.engine) as s:  # the same votes again, from the CSV
        s.exec(delete(VoteRow))
        s.commit()
    store.engine.dispose()
    again = cli("votes", "import", as_csv, "--db", db)
    assert again.exit_code == 0, again.output
    assert _stored(db) == first

    arena = json.loads(cli("votes", "export", "--format", "arena", "--db", db).stdout)
    assert [b["winner"] for b in arena] == ["model_a", "tie", "tie (bothbad)", "model_b"]
    assert (arena[0]["model_a"], arena[0]["model_b"], arena[0]["judge"]) == (
        "baseline (retrieval + oracle reader) · user staged", "baseline (retrieval + oracle reader) · user direct", "ann")
    assert json.loads(cli("votes", "export", "--campaign", "spring", "--db", db).stdout)["voter"] == "bob"


BAD = {
    "unknown run": ({"run_b": "nope"}, "run_b: run 'nope' is not in this database"),
    "different tasks": ({"run_b": "OTHER"}, "runs of different tasks"),
    "against itself": ({"run_b": "SELF"}, "is voted against itself"),
    "unknown winner": ({"winner": "A"}, "winner: 'A' is not one of a, b, tie, both_bad"),
    "padded voter": ({"voter": " ann"}, "voter: ' ann' is not a name in its one form"),
    "empty voter": ({"voter": ""}, "voter: the name is empty"),
    "missing winner": ({"winner": None}, "winner: missing"),
    "unknown key": ({"model_a": "x"}, "'model_a': not a vote field"),
    "duplicate": ({"run_a": "DIRECT", "run_b": "STAGED", "voter": "ann"}, "votes on runs"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_row_is_refused_with_its_line_and_nothing_is_stored(voted_db, tmp_path, case):
    db, runs = voted_db
    change, message = BAD[case]
    names = {"OTHER": runs["other"][0], "SELF": runs["staged"][0], "DIRECT": runs["direct"][0], "STAGED": runs["staged"][0]}
    bad = {"run_a": runs["staged"][0], "run_b": runs["rules"][0], "winner": "a", "voter": "ann"}
    bad.update({k: names.get(v, v) if isinstance(v, str) else v for k, v in change.items()})
    if bad["winner"] is None:
        del bad["winner"]
    good = _votes(runs)[:2]
    path = write_jsonl(tmp_path / "bad.jsonl", [good[0], good[1], bad])
    done = cli("votes", "import", path, "--db", db)
    assert done.exit_code == 1, done.output
    err = done.stderr.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: {path}:3: ") and message in err, err
    assert "Traceback" not in done.output
    assert _stored(db) == []


def test_a_vote_already_stored_is_refused_in_either_order(voted_db, tmp_path):
    db, runs = voted_db
    first = write_jsonl(tmp_path / "a.jsonl", _votes(runs)[:1])
    assert cli("votes", "import", first, "--db", db).exit_code == 0
    v = _votes(runs)[0]
    flipped = write_jsonl(tmp_path / "b.jsonl", [{**v, "run_a": v["run_b"], "run_b": v["run_a"], "winner": "b"}])
    done = cli("votes", "import", flipped, "--db", db)
    assert done.exit_code == 1 and f"{flipped}:1: voter: 'ann' has a stored vote" in done.stderr
    assert len(_stored(db)) == 1


def test_a_csv_row_with_a_bad_winner_names_its_line(voted_db, tmp_path):
    db, runs = voted_db
    path = tmp_path / "v.csv"
    path.write_text(f"run_a,run_b,winner,voter\n{runs['rules'][0]},{runs['direct'][0]},a,ann\n"
                    f"{runs['rules'][1]},{runs['direct'][1]},left,ann\n", encoding="utf-8")
    done = cli("votes", "import", path, "--db", db)
    assert done.exit_code == 1 and done.stderr.strip().startswith(f"error: {path}:3: winner: 'left'")
    assert _stored(db) == []
