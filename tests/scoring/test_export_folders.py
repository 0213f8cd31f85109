"""Folder exports (``results export --official``, ``labels export --official``) land whole or not
at all: a file in the way, a folder where a file goes, a full disk mid-export each give exit 1 and
one line naming the file, and leave the target as it was (no half-written file, no staging left)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from scoring_helpers import T
from test_official_padding import add_official_score, add_run
from typer.testing import CliRunner

from vibesearch._files import OutputFileError, StagedFolder
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (hidden ones too) -> its text."""
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8-sig") for p in sorted(root.rglob("*")) if p.is_file()}


def one_error_line(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


@pytest.fixture
def official_db(tmp_path) -> Path:
    path = tmp_path / "official.db"
    store = Store(path)
    for task, f1 in (("A", 0.5), ("A", 0.25), ("B", 0.75)):
        add_official_score(store, add_run(store, task), f1=f1, p=f1, r=f1, node_f1=f1)
    return path


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_a_failed_file_leaves_the_folder_as_it_was(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("the old summary")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputFileError, match=r"out/b\.json: cannot write it \(the text is not valid Unicode"):
        with StagedFolder(out) as folder:
            folder.write("summary.json", "the new summary")
            folder.write("b.json", "broken \ud800 half way")
    assert tree(out) == {"summary.json": "the old summary", "notes.txt": "mine"}
    with StagedFolder(out) as folder:  # the same export that works replaces only its own files
        folder.write("summary.json", "the new summary")
        folder.write("sub/c.json", "c")
    assert tree(out) == {"summary.json": "the new summary", "notes.txt": "mine", "sub/c.json": "c"}


def test_results_export_refuses_targets_in_the_way(cli, official_db, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("keep me")
    line = one_error_line(cli("results", "export", "--official", a_file, "--db", official_db).output)
    assert line == f"error: {a_file}: is not a folder" and a_file.read_text() == "keep me"

    out = tmp_path / "eval"
    (out / "summary.json").mkdir(parents=True)  # a folder where the summary goes
    done = cli("results", "export", "--official", out, "--db", official_db)
    assert done.exit_code == 1 and one_error_line(done.output) == f"error: {out / 'summary.json'}: is a folder"
    assert tree(out) == {} and [p.name for p in out.iterdir()] == ["summary.json"]  # no sample file, no staging

    os.rmdir(out / "summary.json")
    assert cli("results", "export", "--official", out, "--db", official_db).exit_code == 0
    assert sorted(tree(out)) == ["A_sample0.json", "A_sample1.json", "B_sample0.json", "B_sample1.json",  # B padded to N = 2
                                 "item_ratings.json", "per_query_scores.json", "summary.json"]


def _small_disk() -> None:
    """In the child: files larger than 800 bytes cannot be written (EFBIG), as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (800, 800))


def test_a_full_disk_mid_export_names_the_file_and_writes_nothing(official_db, tmp_path):
    out = tmp_path / "eval"
    out.mkdir()
    (out / "summary.json").write_text("the old summary")
    done = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "results", "export", "--official", str(out), "--db", str(official_db)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_small_disk)
    assert done.returncode == 1, done.stderr
    line = one_error_line(done.stderr)
    # item_ratings.json (every sample) is the first file over the limit; the samples before it stay staged
    assert line == f"error: {out / 'item_ratings.json'}: cannot write it (File too large)", line
    assert tree(out) == {"summary.json": "the old summary"} and [p.name for p in out.iterdir()] == ["summary.json"]


def test_labels_export_official_refuses_a_file_where_its_folder_goes(store, tmp_db, tmp_path, make_run, cli):
    rid = make_run(store, [T("A", "r", "B")], [T("A", "r", "B")])
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=1.0, recall=1.0, f1=1.0, n_gt=1, n_pred=1, n_covered=1, n_valid=1), [])
    out = tmp_path / "meta"
    out.mkdir()
    (out / "gt_recall_check").write_text("a file, not a folder")
    done = cli("labels", "export", "--official", out, "--db", tmp_db)
    assert done.exit_code == 1 and one_error_line(done.output) == f"error: {out / 'gt_recall_check'}: is not a folder"
    assert tree(out) == {"gt_recall_check": "a file, not a folder"}
    (out / "gt_recall_check").unlink()
    assert cli("labels", "export", "--official", out, "--db", tmp_db).exit_code == 0
    assert sorted(tree(out)) == ["gt_recall_check/t1_sample0.csv", "pred_precision_check/t1_sample0.csv", "vibesearch_runs.json"]


def test_tasks_export_onto_a_folder_is_one_line(cli, tmp_path):
    done = cli("tasks", "export", "daily-en-japan-heritage-trip", "--out", tmp_path)
    assert done.exit_code == 1 and one_error_line(done.output) == f"error: {tmp_path}: is a folder; give a file name"
