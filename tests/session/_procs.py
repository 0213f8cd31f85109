"""Running the real CLI in subprocesses for the session tests (fake models loaded from
``_session_fakes``), and waiting on conditions with a deadline instead of sleeping."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
LEASE_LINE = r"^error: run \w+ is being driven by another process \(pid \d+, host \S+\); its lease expires in \d+ s$"


def env(**extra: str) -> dict:
    out = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    out["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), out.get("PYTHONPATH", "")])
    out["VIBESEARCH_FAKE_MODELS"] = "_session_fakes:register"
    out["COLUMNS"] = "200"  # one error line stays one line
    out.update(extra)
    return out


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "vibesearch.cli.main", *args]


def wait_for(what: str, check: Callable[[], Any], timeout: float = 120.0, every: float = 0.05) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


def read_events_until(proc: subprocess.Popen, stop: Callable[[list[dict]], bool]) -> list[dict]:
    """Read ``--events`` lines from ``proc`` until ``stop(lines)``; the lines read."""
    lines: list[dict] = []
    for raw in proc.stdout:  # type: ignore[union-attr]
        lines.append(json.loads(raw))
        if stop(lines):
            break
    return lines
