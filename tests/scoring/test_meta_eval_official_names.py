"""The meta-eval CSVs under the official names: ``<qid>_sample<i>.csv`` in the folders the official
script writes, the task's node names as the official record has them (not stripped), one
sub-folder per configuration, and import reading both the new names and files named after runs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from scoring_helpers import T

from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.labels.meta_eval_csv import (
    GT_DIR,
    MANIFEST,
    PRED_DIR,
    MetaEvalError,
    export_official,
    import_official,
    sample_numbers,
)
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow
from vibesearch.tasks.official import official_to_task

MINI = Path(__file__).resolve().parents[1] / "tasks" / "data" / "valid" / "mini_official.json"
PRED = [T("Io", "moon of", "Jupiter"), T("Io", "found by", "Galileo")]


def official_snapshot(task_id: str) -> dict:
    """The bundled mini official task, its node names padded with spaces (our loader strips them)."""
    record = json.loads(MINI.read_text(encoding="utf-8"))
    record["task_id"] = task_id
    record["nodes"] = [{"node_id": 1, "node_name": " Io"}, {"node_id": 2, "node_name": "Jupiter  "}, {"node_id": 3, "node_name": "Galileo Galilei"}]
    task, problems = official_to_task(record, "mini.json")
    assert task is not None, problems
    assert task.graph[0].head == "Io"  # ours: stripped
    return task.model_dump(mode="json")


def add_run(store: Store, task_id: str = "task_io", *, model: str = "fake/a", status: str = "finished", covered=(True, False)) -> str:
    run = store.create_run(task_id, task_json=official_snapshot(task_id), agent="react", agent_model=model, user="rules", status=status,
                           termination="cancelled" if status == "cancelled" else "done")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, GraphEvent(triples=PRED, raw_text=json.dumps(PRED)))
    store.append(run.id, EndEvent(termination="cancelled" if status == "cancelled" else "done"))  # type: ignore[arg-type]
    rows = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=c, evidence_json=json.dumps([0] if c else []))
            for i, c in enumerate(covered)]
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=0.5, recall=0.5, f1=0.5, n_gt=2, n_pred=2, n_covered=1, n_valid=1), rows)
    return run.id


def read_csv(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def fill(path: Path, labels: dict[int, str]) -> None:
    rows = read_csv(path)
    for row in rows[1:]:
        if int(row[0]) in labels:
            row[6] = labels[int(row[0])]
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)


def coverage_labels(store: Store) -> list[tuple[str, int, bool]]:
    return sorted((r.run_id, r.gt_index, r.covered) for r in store.labels(annotator="ann"))


def test_sample_names_raw_node_names_and_round_trip(store, tmp_path):
    first = add_run(store)
    second = add_run(store, covered=(False, True))
    add_run(store, status="cancelled")  # not a sample: not written, not numbered
    out = tmp_path / "meta"
    assert sorted(export_official(store, out)) == sorted([first, second])
    names = sorted(p.name for p in (out / GT_DIR).iterdir())
    assert names == ["task_io_sample0.csv", "task_io_sample1.csv"] == sorted(p.name for p in (out / PRED_DIR).iterdir())
    assert json.loads((out / MANIFEST).read_text())["runs"] == {"task_io_sample0": first, "task_io_sample1": second}

    gt = read_csv(out / GT_DIR / "task_io_sample0.csv")
    # the official record's names, spaces kept, in the ground-truth cells and in the other side's support
    assert [r[1:4] for r in gt[1:]] == [[" Io", "moon of", "Jupiter  "], [" Io", "discovered by", "Galileo Galilei"]]
    assert [r[4] for r in gt[1:]] == ["是", "否"] and gt[1][5] == "(Io, moon of, Jupiter)"
    pred = read_csv(out / PRED_DIR / "task_io_sample0.csv")
    assert pred[1][1:6] == ["Io", "moon of", "Jupiter", "是", "( Io, moon of, Jupiter  )"]
    assert [r[4] for r in read_csv(out / GT_DIR / "task_io_sample1.csv")[1:]] == ["否", "是"]  # the second run's verdicts

    fill(out / GT_DIR / "task_io_sample0.csv", {0: "是"})
    fill(out / GT_DIR / "task_io_sample1.csv", {1: "否"})
    assert import_official(store, out, "ann") == (2, 0)
    assert coverage_labels(store) == sorted([(first, 0, True), (second, 1, False)])

    one = tmp_path / "one"  # a single run keeps its number
    assert export_official(store, one, run_ids=[second]) == [second]
    assert [p.name for p in (one / GT_DIR).iterdir()] == ["task_io_sample1.csv"]


def test_without_the_manifest_names_are_numbered_again_and_run_named_files_still_read(store, tmp_path):
    first, second = add_run(store), add_run(store)
    out = tmp_path / "meta"
    export_official(store, out)
    (out / MANIFEST).unlink()
    fill(out / GT_DIR / "task_io_sample1.csv", {0: "no"})
    # a file of an earlier export, named after its run
    (out / GT_DIR / "task_io_sample0.csv").rename(out / GT_DIR / f"{first}.csv")
    fill(out / GT_DIR / f"{first}.csv", {1: "yes"})
    assert import_official(store, out, "ann") == (2, 0)
    assert coverage_labels(store) == sorted([(first, 1, True), (second, 0, False)])


def test_several_configurations_get_a_folder_each_and_are_read_back_together(store, tmp_path):
    a = add_run(store, model="fake/a")
    b = add_run(store, model="fake/b")
    other = add_run(store, "task_two", model="fake/b")
    numbers = sample_numbers(store)
    assert {numbers[a][2], numbers[b][2], numbers[other][2]} == {0}
    out = tmp_path / "meta"
    assert sorted(export_official(store, out)) == sorted([a, b, other])
    folders = sorted(p.name for p in out.iterdir())
    assert len(folders) == 2 and all("fake_a" in f or "fake_b" in f for f in folders)
    b_folder = out / next(f for f in folders if "fake_b" in f)
    assert sorted(p.name for p in (b_folder / GT_DIR).iterdir()) == ["task_io_sample0.csv", "task_two_sample0.csv"]
    for folder in out.iterdir():
        for f in (folder / GT_DIR).iterdir():
            fill(f, {0: "是"})
    assert import_official(store, out, "ann") == (3, 0)
    assert coverage_labels(store) == sorted([(a, 0, True), (b, 0, True), (other, 0, True)])

    # without the manifests, a name two configurations share cannot be told apart
    for folder in out.iterdir():
        (folder / MANIFEST).unlink()
    with pytest.raises(MetaEvalError, match=r"'task_io_sample0' is a sample of 2 configurations"):
        import_official(store, out, "ann")


def test_a_named_run_that_is_not_a_sample_is_skipped_and_refused_by_the_cli(store, tmp_db, tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    cancelled = add_run(store, status="cancelled")
    scored = add_run(store)
    assert export_official(store, tmp_path / "x", run_ids=[cancelled, scored]) == [scored]  # (the app's export names readable runs)
    assert [p.name for p in (tmp_path / "x" / GT_DIR).iterdir()] == ["task_io_sample0.csv"]
    assert export_official(store, tmp_path / "y", run_ids=[scored], judge="someone") == []

    runner = CliRunner()
    out = runner.invoke(app, ["labels", "export", "--official", str(tmp_path / "z"), "--run", cancelled, "--db", str(tmp_db)])
    assert out.exit_code == 1 and f"run {cancelled} is not a sample of the meta-eval: a person cancelled it" in " ".join(out.output.split())
    out = runner.invoke(app, ["labels", "export", "--official", str(tmp_path / "z"), "--run", scored, "--judge", "someone", "--db", str(tmp_db)])
    assert out.exit_code == 1 and "it has no stored score by someone" in out.output
    assert not (tmp_path / "z").exists()
