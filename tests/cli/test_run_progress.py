"""What ``vibesearch run`` prints while a batch runs, with its output piped (not a terminal, as in
a CI log or a benchmark): one line per finished run and nothing per event, then the summary table
and the footer; ``--json`` prints the JSON list only. (On a terminal a live display redraws at a
bounded rate: ``vibesearch/cli/_progress.py``.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TASK = "daily-en-japan-heritage-trip"
RUN_LINE = re.compile(rf"^{TASK}#([0-2])  finished \(done\)  9/9 stages$")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update({"PYTHONPATH": str(REPO), "COLUMNS": "120"})
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", "run", "-t", TASK, "--runs", "3", "--db", str(tmp_path / "v.db"), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_piped_output_has_one_line_per_finished_run_and_none_per_event(tmp_path):
    proc = _run(tmp_path)
    lines = proc.stderr.splitlines()
    runs, rest = [line for line in lines if RUN_LINE.match(line)], [line for line in lines if not RUN_LINE.match(line)]
    assert sorted(RUN_LINE.match(line).group(1) for line in runs) == ["0", "1", "2"]  # each run once
    assert len(rest) == 1 and rest[0].startswith("batch ") and "· database " in rest[0]  # the footer
    assert "\x1b[" not in proc.stderr + proc.stdout  # no cursor movement or colour: not a terminal
    # stdout: the summary table, one row per run (a run's task cell may wrap onto a second line)
    ids = re.findall(r"^ ([0-9a-f]{12}) ", proc.stdout, flags=re.M)
    assert len(set(ids)) == 3
    assert "stages finished" not in proc.stdout and "running" not in proc.stdout

    # the same batch with --events: each run stores many events, still one progress line per run
    again = _run(tmp_path, "--events")
    events = [line for line in again.stdout.splitlines() if line.startswith("{")]
    assert len(events) >= 10 * 3
    assert sum(1 for line in again.stderr.splitlines() if RUN_LINE.match(line)) == 3


def test_json_output_is_the_json_list_only(tmp_path):
    proc = _run(tmp_path, "--json")
    rows = json.loads(proc.stdout)
    assert [(r["task_id"], r["status"]) for r in rows] == [(TASK, "finished")] * 3
    assert proc.stderr == ""
