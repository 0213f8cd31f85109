"""Files a command is asked to write are written whole or not at all, and a target that cannot
be written is one line naming it (exit 1): a folder, a device, a missing permission."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from vibesearch._files import OutputFileError, write_output


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args], capture_output=True, text=True, timeout=120)


def test_report_and_label_exports_name_the_file_they_cannot_write(tmp_path):
    db = tmp_path / "r.db"
    assert _cli("run", "--tasks", "daily-en-japan-heritage-trip", "--max-user-turns", "1", "--db", str(db)).returncode == 0
    assert _cli("score", "--all", "--db", str(db)).returncode == 0
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for args in (("report", "--out", str(folder)), ("report", "--out", "/dev/null"), ("labels", "export", "--out", str(folder))):
        done = _cli(*args, "--db", str(db))
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        assert done.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), (args, done.stderr)
        assert str(args[-1]) in lines[0] and "Traceback" not in done.stderr
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")  # the device was left alone
    good = tmp_path / "out" / "report.md"
    assert _cli("report", "--out", str(good), "--db", str(db)).returncode == 0 and good.read_text().strip()


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("the old report")
    with pytest.raises(OutputFileError, match="not valid Unicode"):
        write_output(target, "half written \ud800 then broken")  # fails in the middle of the write
    assert target.read_text() == "the old report" and [p.name for p in tmp_path.iterdir()] == ["report.md"]
    under_a_file = target / "x.md"  # its folder is a file
    with pytest.raises(OutputFileError, match="cannot write it"):
        write_output(under_a_file, "text")
