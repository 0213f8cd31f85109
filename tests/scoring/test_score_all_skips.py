"""`score --all` leaves runs the same judge already scored under the same profile, unless --rescore."""

import json

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.store import Store

GT = [T("A", "r", "B"), T("C", "r", "D")]


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_score_all_skips_what_is_scored_and_rescore_scores_again(cli, tmp_db, make_run):
    store = Store(tmp_db)
    first = make_run(store, GT, [T("A", "r", "B")])
    second = make_run(store, GT, GT)
    assert cli("score", first, "--db", tmp_db).exit_code == 0  # one run scored beforehand, by the offline judge

    out = cli("score", "--all", "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert [r["run_id"] for r in json.loads(out.stdout)] == [second]
    assert "skipped 1 run already scored by the same judge and profile" in " ".join(out.stderr.split())
    assert (len(store.scores(first)), len(store.scores(second))) == (1, 1)

    again = cli("score", "--all", "--db", tmp_db)
    assert again.exit_code == 0 and "skipped 2 runs" in again.stderr
    assert (len(store.scores(first)), len(store.scores(second))) == (1, 1)

    redo = cli("score", "--all", "--rescore", "--json", "--db", tmp_db)
    assert redo.exit_code == 0 and "skipped" not in redo.stderr
    assert sorted(r["run_id"] for r in json.loads(redo.stdout)) == sorted([first, second])
    assert (len(store.scores(first)), len(store.scores(second))) == (2, 2)

    # a run named by id is always scored; --rescore only means something with --all
    assert cli("score", first, "--db", tmp_db).exit_code == 0 and len(store.scores(first)) == 3
    lone = cli("score", first, "--rescore", "--db", tmp_db)
    assert lone.exit_code == 1 and "--rescore" in lone.output and len(lone.output.strip().splitlines()) == 1


def test_another_profile_is_not_the_same_score(cli, tmp_db, make_run):
    """A score under our profile does not stand for one under the official profile."""
    store = Store(tmp_db)
    rid = make_run(store, GT, GT)
    assert cli("score", "--all", "--db", tmp_db).exit_code == 0 and len(store.scores(rid)) == 1
    # the official profile refuses the offline judge: the run is tried (not skipped) and the refusal named
    official = cli("score", "--all", "--protocol", "official", "--db", tmp_db)
    assert "skipped 1 run already scored" not in official.stderr
    assert "the official profile is judged by an LLM" in " ".join(official.output.split())
    assert len(store.scores(rid)) == 1
