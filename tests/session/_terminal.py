"""A child process on a pseudo-terminal with a minimal expect(), for driving `vibesearch play`.

The child gets the pty as its controlling terminal (its own session), so Ctrl-C typed into the
terminal reaches it as SIGINT exactly as at a keyboard.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\r")
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def _take_terminal() -> None:  # runs in the child after setsid(): stdin (the pty) becomes its terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def play_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")]),
        VIBESEARCH_FAKE_MODELS="_session_fakes:register",
        COLUMNS="400",
        LINES="60",
        TERM="xterm",
        NO_COLOR="1",
    )
    return env


def vibesearch(*args: str) -> list[str]:
    return [sys.executable, "-m", "vibesearch.cli.main", *args]


class Terminal:
    def __init__(self, cmd: list[str], env: dict, cwd):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True, preexec_fn=_take_terminal
        )
        os.close(slave)
        self.buffer = ""
        self.seen = ""

    def expect(self, pattern: str, timeout: float = 90) -> str:
        """Everything up to the first match of ``pattern`` (waiting for it up to ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.S)
        while True:
            m = rx.search(self.buffer)
            if m:
                before = self.buffer[: m.end()]
                self.buffer = self.buffer[m.end() :]
                return before
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; screen so far:\n{self.seen[-3000:]}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:  # the child closed the terminal
                    chunk = ""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"process ended (rc {self.proc.returncode}) before {pattern!r}:\n{self.seen[-3000:]}")
                text = ANSI.sub("", chunk)
                self.buffer += text
                self.seen += text

    def rest(self, timeout: float = 30) -> str:
        """Whatever is printed until the child exits (it must, within ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None or select.select([self.master], [], [], 0)[0]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the process did not end within {timeout}s; screen so far:\n{self.seen[-3000:]}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
                if not chunk:
                    break
                text = ANSI.sub("", chunk)
                self.buffer += text
                self.seen += text
        out, self.buffer = self.buffer, ""
        return out

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.master)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
