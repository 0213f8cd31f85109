"""Imports are all or nothing (issue 10): a bad value anywhere in a trajectory — even in a late
turn — or in a label file stores nothing, and a write that fails half-way is rolled back."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError
from typer.testing import CliRunner

from vibesearch.interop.official_trajectories import ImportFileError, import_trajectory, prepare_import
from vibesearch.labels.labels_io import LabelFileError, import_labels
from vibesearch.store import build_run
from vibesearch.run import MessageEvent, NoteEvent

FUZZ = Path(__file__).resolve().parents[1] / "data" / "fuzz"
TRAJ = FUZZ / "trajectories"
VALID = FUZZ / "valid"


def invoke(*args):
    from vibesearch.cli.main import app

    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize(
    "name, where",
    [
        ("sample_idx_superscript.json", "sample_idx: expected a whole number"),
        ("sample_idx_e30.json", "sample_idx: expected a whole number"),
        ("sample_idx_arabic_indic.json", "sample_idx: expected a whole number"),
        ("sample_idx_digits_5000.json", "sample_idx: expected a whole number"),
        ("sample_idx_digits_json_5000.json", "invalid JSON: a number has too many digits"),
        ("late_surrogate_content.json", "turns[36].content: holds a lone surrogate"),
        ("late_surrogate_tool_result.json", "turns[34].tool_calls[0].result: holds a lone surrogate"),
        ("late_deep_args_900.json", "turns[34].tool_calls[0].args.q[0]"),
        ("late_bad_type.json", "turns[36].type: expected 'user' or 'assistant'"),
        ("excerpt_header_sample_idx.json", "sample_idx: expected a whole number"),
        ("excerpt_deep_literal.json", "first_turns_condensed: nested more than 100 levels"),
        ("excerpt_bad_literal.json", "first_turns_condensed: neither JSON nor a Python literal"),
    ],
)
def test_a_bad_value_anywhere_stores_nothing(store, name, where):
    with pytest.raises(ImportFileError) as err:
        import_trajectory(store, TRAJ / name)
    assert str(err.value).startswith(str(TRAJ / name)) and where in str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 400
    assert store.list_runs() == []


def test_a_good_trajectory_is_stored_whole_and_finished(store):
    result = import_trajectory(store, VALID / "trajectory.json")
    (run,) = store.list_runs()
    assert (run.status, run.termination, run.run_index) == ("finished", "answer", 1)
    assert result.matches is True
    events = store.events(run.id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].kind == "end" and store.latest_graph(run.id) is not None


def test_the_cli_checks_every_file_before_it_opens_the_database(tmp_path):
    db = tmp_path / "runs.db"
    out = invoke("import", VALID / "trajectory.json", TRAJ / "late_deep_args_900.json", "--db", db)
    assert out.exit_code == 1 and "late_deep_args_900.json" in out.stderr
    assert not db.exists()  # not even an empty database
    assert invoke("import", VALID / "trajectory.json", "--db", db).exit_code == 0
    out = invoke("import", VALID / "trajectory.json", TRAJ / "sample_idx_e30.json", "--db", db)
    assert out.exit_code == 1
    from vibesearch.store import open_db

    assert len(open_db(db).list_runs()) == 1  # the earlier import only


def test_a_failing_write_rolls_back_every_run(store):
    good = prepare_import(VALID / "trajectory.json")
    store.create_run("taken", run_id="taken-id")
    clash = build_run("x", run_id="taken-id")  # its id is already used: the insert fails
    with pytest.raises(IntegrityError):
        store.import_runs([(good.run, good.events), (clash, [NoteEvent(text="x"), MessageEvent(role="user", content="hi")])])
    assert [r.id for r in store.list_runs()] == ["taken-id"]
    assert store.events(good.run.id) == []


def test_the_attached_task_s_warnings_are_shown(tmp_path):
    out = invoke("import", VALID / "trajectory.json", "--task", VALID / "official_klingon.json", "--db", tmp_path / "r.db")
    assert out.exit_code == 0, out.output
    assert "warning: " in out.stderr and "official_klingon.json: language: unknown language 'klingon'" in out.stderr


# ---------------------------------------------------------------------- labels
def _run_with_id(store, run_id="fuzzrun00001"):
    store.create_run("fuzz-ours", run_id=run_id, status="finished")


@pytest.mark.parametrize("name", ["third_row_gt_index_e30.jsonl", "third_row_gt_index_superscript.jsonl", "csv_third_row_gt_index_e30.csv",
                                  "third_row_gt_index_huge_float.jsonl", "evidence_e30.jsonl", "unknown_run.jsonl"])
def test_a_bad_label_row_stores_none_of_the_file(store, name):
    _run_with_id(store)
    with pytest.raises(LabelFileError) as err:
        import_labels(store, FUZZ / "labels" / name)
    assert str(FUZZ / "labels" / name) in str(err.value)
    assert store.labels() == []


def test_a_label_write_that_fails_stores_nothing(store):
    _run_with_id(store)
    good = {"run_id": "fuzzrun00001", "annotator": "a", "covered": True}
    with pytest.raises(OverflowError):  # SQLite integers stop at 2**63: the third write fails
        store.put_labels([{**good, "gt_index": 0}, {**good, "gt_index": 1}, {**good, "gt_index": 10**30}])
    assert store.labels() == []
    assert store.put_labels([{**good, "gt_index": 0}, {**good, "gt_index": 0, "covered": False}]) == 2
    (label,) = store.labels()
    assert label.covered is False  # the later row with the same key wins
