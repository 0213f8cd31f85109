"""Malformed inputs the CLI used to take or answer with "unexpected error" (issue 40 item 14):
each is refused by the real command with exit 1 and one line ``error: ...`` naming the file (or
setting) and the field, and nothing is written (no database made, no label stored)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

import pytest
from cli_harness import RUN_ID, VALID, assert_refused
from cli_harness import Refusal as Case


def _trajectory(tmp: Path, **change: object) -> Path:
    data = json.loads((VALID / "trajectory.json").read_text(encoding="utf-8"))
    data.update(change)
    path = tmp / "trajectory.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _case_file(tmp: Path, **change: object) -> Path:
    case = json.loads((VALID / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0])
    path = tmp / "cases.jsonl"
    path.write_text(json.dumps({**case, **change}) + "\n", encoding="utf-8")
    return path


def _sample_idx(tmp: Path) -> Case:
    return Case(["import", _trajectory(tmp, sample_idx=-0.0), "--db", "{db}"], ["trajectory.json", "sample_idx"])


def _triplet_f1(tmp: Path) -> Case:
    path = _trajectory(tmp, metrics={"triplet_f1": 1.25, "triplet_recall": 0.5})
    return Case(["import", path, "--db", "{db}"], ["trajectory.json", "metrics.triplet_f1", "less than or equal to 1"])


def _padded_annotator(tmp: Path) -> Case:
    path = tmp / "labels.jsonl"
    row = {"run_id": RUN_ID, "gt_index": 0, "annotator": " ann ", "covered": True, "evidence": [0]}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return Case(["labels", "import", path, "--db", "{db}"], ["labels.jsonl:1", "annotator", "one form"], label_db=True)


def _evidence_minus_zero(tmp: Path) -> Case:
    return Case(["labels", "calibrate", _case_file(tmp, evidence=[-0.0])], ["cases.jsonl:1", "evidence.0"])


def _covered_yes(tmp: Path) -> Case:
    return Case(["labels", "calibrate", _case_file(tmp, covered="yes")], ["cases.jsonl:1", "covered"])


def _nul_in_answer(tmp: Path) -> Case:
    path = tmp / "answer.md"
    path.write_text("| Moon | Discoverer |\n|---|---|\n| Io\x00 | Galileo |\n| Europa | Galileo |\n", encoding="utf-8")
    return Case(["table", "score", VALID / "table.json", "fuzz-table", path], ["answer.md", "line 3", "NUL"])


def _budget_nan(tmp: Path) -> Case:
    return Case(["run", "--tasks", "daily-en-japan-heritage-trip", "--db", "{db}"], ["VIBESEARCH_BUDGET_USD", "finite"],
                env={"VIBESEARCH_BUDGET_USD": "nan"})


def _gold_csv_loop(tmp: Path) -> Case:
    os.symlink("gold.csv", tmp / "gold.csv")  # a link to itself
    task = {"id": "loop-table", "language": "en", "query": "q", "columns": [{"name": "Moon", "metric": "exact"}],
            "primary_key": ["Moon"], "gold": "gold.csv"}
    (tmp / "table.json").write_text(json.dumps(task), encoding="utf-8")
    return Case(["table", "score", tmp / "table.json", "loop-table", VALID / "answer.md"], ["gold.csv", "gold", "symbolic links loop"])


def _db_loop(tmp: Path) -> Case:
    os.symlink("b.db", tmp / "a.db")
    os.symlink("a.db", tmp / "b.db")
    return Case(["report", "--db", tmp / "a.db"], ["a.db", "symbolic links loop"])


CASES: dict[str, Callable[[Path], Case]] = {
    "trajectory sample_idx -0.0": _sample_idx,
    "trajectory triplet_f1 above 1": _triplet_f1,
    "labels JSONL padded annotator": _padded_annotator,
    "calibration evidence -0.0": _evidence_minus_zero,
    'calibration covered "yes"': _covered_yes,
    "table answer with a NUL": _nul_in_answer,
    "VIBESEARCH_BUDGET_USD=nan": _budget_nan,
    "gold CSV symlink loop": _gold_csv_loop,
    "--db symlink loop": _db_loop,
}


@pytest.mark.parametrize("name", list(CASES))
def test_refused_in_one_line_naming_file_and_field(tmp_path, name):
    inputs = tmp_path / "in"
    inputs.mkdir()
    assert_refused(tmp_path, CASES[name](inputs))
