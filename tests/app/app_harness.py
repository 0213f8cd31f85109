"""The app as a subprocess for tests: ``python app.py`` on a free port with a temporary database,
a clean environment (no keys) and, optionally, the scripted models of ``app_fakes``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import httpx

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCREENSHOTS = REPO / "artifacts" / "screenshots"
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402,F401 - kept here for the app tests' imports


def run_cli(*args: str) -> str:
    """``vibesearch ARGS`` in a subprocess with the scripted models of ``app_fakes``; its output
    (the command must succeed)."""
    env = {**os.environ, "VIBESEARCH_FAKE_MODELS": "app_fakes:register_fakes",
           "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AppServer:
    url: str
    db: Path
    proc: subprocess.Popen
    log: Path
    log_file: BinaryIO

    ready_at: int = 0  # the log's size when the app first answered: its start-up part

    def logs(self, since: int = 0, until: int | None = None) -> str:
        """The log, or the part of it between two sizes (``log_size()``, ``ready_at``)."""
        with open(self.log, "rb") as fh:
            fh.seek(since)
            return fh.read(-1 if until is None else max(0, until - since)).decode(errors="replace")

    def log_size(self) -> int:
        """Where the log ends now: pass it to ``logs`` to read only what comes after."""
        return self.log.stat().st_size


def start_app(tmp: Path, *, fakes: bool = True, extra_env: dict | None = None, timeout: float = 90.0, port: int | None = None) -> AppServer:
    """``python app.py`` in a clean environment (no keys, no network settings), waited for (on
    ``port`` when given: a restarted server at the same address, so a browser keeps its data)."""
    port = port or free_port()
    db = tmp / "app.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_") and not k.endswith("_API_KEY")}
    env.update(
        VIBESEARCH_DB=str(db),
        VIBESEARCH_PORT=str(port),
        VIBESEARCH_HOST="127.0.0.1",
        GRADIO_ANALYTICS_ENABLED="False",
        PYTHONUNBUFFERED="1",
        NO_PROXY="127.0.0.1,localhost",
    )
    if fakes:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)
        env["VIBESEARCH_FAKE_MODELS"] = "app_fakes:register_fakes"
    env.update(extra_env or {})
    log = tmp / "app.log"
    fh = open(log, "wb")
    # its own process group, so stopping it also ends whatever it started (sandboxes, workers)
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT,
                            start_new_session=True)
    server = AppServer(url=f"http://127.0.0.1:{port}/", db=db, proc=proc, log=log, log_file=fh)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # polls the page until it answers: the app is up
        if proc.poll() is not None:
            stop_app(server)
            raise RuntimeError(f"the app exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with httpx.Client(timeout=2, trust_env=False) as http:
                if http.get(server.url).status_code == 200:
                    server.ready_at = server.log_size()
                    return server
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    stop_app(server)
    raise RuntimeError(f"the app did not answer on {server.url} within {timeout:.0f}s:\n{log.read_text(errors='replace')[-3000:]}")


def stop_app(server: AppServer) -> None:
    """End the app and its process group by id: SIGTERM, then SIGKILL if it lingers."""
    pgid = server.proc.pid  # start_new_session: the group id is the app's pid
    for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        try:
            server.proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    try:  # anything the app left behind in its group
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    server.proc.wait(timeout=5)
    server.log_file.close()


def wait_until(pred, what: str, timeout: float = 30.0) -> None:
    """Poll ``pred`` until it holds (AssertionError naming ``what`` after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
