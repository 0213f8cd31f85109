"""A usage error (a value of the wrong kind, out of range, an unknown option or command) ends
like every other refusal: exit code 1 and one line ``error: …`` naming the option — not click's
exit code 2 and its box."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("args", "named"), [
    (("run", "--runs", "NaN"), "--runs"),
    (("run", "--concurrency", "0"), "--concurrency"),
    (("run", "--no-such-option"), "--no-such-option"),
    (("no-such-command",), "no-such-command"),
    (("score", "--judge"), "--judge"),
])
def test_usage_errors_are_one_line_and_exit_1(args, named):
    done = _cli(*args)
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 1, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0], done.stderr
    assert "╭" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "named", "said"), [
    (("run", "--budget-usd", "nan"), "--budget-usd", "nan is not a finite number"),
    (("run", "--budget-usd", "inf"), "--budget-usd", "inf is not a finite number"),
    (("run", "--budget-usd", "-Infinity"), "--budget-usd", "-inf is not a finite number"),
    (("run", "--budget-usd", "1e309"), "--budget-usd", "inf is not a finite number"),
    (("run", "--budget-usd", "-1"), "--budget-usd", "is negative"),
    (("run", "--budget-tokens", "-5"), "--budget-tokens", "-5 is negative"),
    (("score", "--concurrency", "-2"), "--concurrency", "-2 is negative"),
    (("score", "--batch-size", "-1"), "--batch-size", "-1 is negative"),
    (("report", "--num-samples", "-3"), "--num-samples", "-3 is negative"),
])
def test_numeric_options_must_be_finite_and_not_negative(tmp_path, args, named, said):
    """A budget of NaN never stops a run, -1 stops it before it starts: both are usage errors."""
    db = tmp_path / "runs.db"
    done = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args, "--db", str(db)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 1, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0] and said in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not db.exists() and not list(tmp_path.iterdir())


def test_help_still_exits_0():
    done = _cli("run", "--help")
    assert done.returncode == 0 and "--runs" in done.stdout


def test_error_lines_show_control_and_bidi_characters_as_escapes():
    """An id from the command line (or a file) cannot reorder, recolour or hide the error line."""
    done = _cli("run", "--tasks", "evil\u202edi-ksat\x1b[31mred")
    assert done.returncode == 1
    assert "\u202e" not in done.stderr and "\x1b[31m" not in done.stderr
    assert "\\u202e" in done.stderr
    from vibesearch.cli import printable

    assert printable("a\u202eb\x1b[31mc\u2066d\u200be") == "a\\u202eb\\u001b[31mc\\u2066d\\u200be"
    assert printable("plain text, 中文, émoji 🙂") == "plain text, 中文, émoji 🙂"
