"""The app as a subprocess for tests: ``python app.py`` on a free port with a temporary database,
a clean environment (no keys) and, optionally, the scripted models of ``app_fakes``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCREENSHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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

    def logs(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def start_app(tmp: Path, *, fakes: bool = True, extra_env: dict | None = None, timeout: float = 90.0) -> AppServer:
    """``python app.py`` in a clean environment (no keys, no network settings), waited for."""
    port = free_port()
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
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return AppServer(url=url, db=db, proc=proc, log=log)
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the app did not answer on {url} within {timeout:.0f}s:\n{log.read_text(errors='replace')[-3000:]}")


def stop_app(server: AppServer) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(timeout=5)
