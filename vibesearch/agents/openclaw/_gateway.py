"""One OpenClaw gateway, started and stopped with its run.

The gateway runs in a process group of its own on a free loopback port, with the run's state
folder (``OPENCLAW_STATE_DIR``). Stopping it ends the whole group (TERM, then KILL after a grace
period); on Linux every OpenClaw process started here also gets a parent-death signal, so a
vibesearch process killed outright takes its gateway with it.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ._install import Install


class GatewayError(RuntimeError):
    """The gateway did not start, or stopped while the run needed it."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


def openclaw_env(install: Install, state_dir: Path, port: int) -> dict[str, str]:
    env = install.env()
    env.update({
        "OPENCLAW_STATE_DIR": str(state_dir),
        "OPENCLAW_CONFIG_PATH": str(state_dir / "openclaw.json"),
        "OPENCLAW_GATEWAY_PORT": str(port),
        "HOME": str(state_dir / "home"),  # nothing read from or written to the user's own ~/.openclaw
        "NO_COLOR": "1",
    })
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "XAI_API_KEY"):
        env.pop(name, None)  # OpenClaw's providers would pick keys up from the environment
    return env


class Gateway:
    def __init__(self, install: Install, state_dir: Path, config: dict[str, Any], *, port: int | None = None):
        self.install = install
        self.state_dir = state_dir
        self.port = port or free_port()
        config = dict(config)
        config["gateway"] = {**config.get("gateway", {}), "port": self.port}
        self.config = config
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = state_dir / "logs" / "gateway.out"

    @property
    def env(self) -> dict[str, str]:
        return openclaw_env(self.install, self.state_dir, self.port)

    def write_config(self) -> None:
        (self.state_dir / "home").mkdir(parents=True, exist_ok=True)
        (self.state_dir / "logs").mkdir(parents=True, exist_ok=True)
        path = self.state_dir / "openclaw.json"
        path.write_text(json.dumps(self.config, indent=2, ensure_ascii=False), encoding="utf-8")
        path.chmod(0o600)  # it holds the run's bridge token

    def spawn(self) -> subprocess.Popen[bytes]:
        """Start the gateway process (from the run loop's thread: the parent-death signal is tied
        to the thread that starts it)."""
        self.write_config()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.install.openclaw), "gateway", "run", "--port", str(self.port), "--allow-unconfigured"],
                env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent, cwd=str(self.state_dir),
            )
        return self.proc

    async def start(self, timeout_s: float) -> None:
        proc = self.spawn()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.proc = None
                raise GatewayError(f"the OpenClaw gateway exited at start (code {proc.returncode}): {self.last_log_line()}")
            if await asyncio.to_thread(self._healthy):
                return
            await asyncio.sleep(0.5)
        self.stop()
        raise GatewayError(f"the OpenClaw gateway was not ready within {timeout_s:.0f} s: {self.last_log_line()}")

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as resp:
                return bool(json.loads(resp.read() or b"{}").get("ok"))
        except (OSError, ValueError, urllib.error.URLError):
            return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def last_log_line(self) -> str:
        try:
            lines = [ln for ln in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        except OSError:
            return "no output"
        return lines[-1][-300:] if lines else "no output"

    def stop(self, grace_s: float = 5.0) -> None:
        """End the gateway's process group (every process it started); safe to call twice."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        kill_group(proc.pid, grace_s)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass


def kill_group(pgid: int, grace_s: float = 5.0) -> None:
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
