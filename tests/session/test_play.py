"""`vibesearch play` driven through a pseudo-terminal, as a person at a keyboard would."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from conftest import HERE
from vibesearch.store import Store

REPO = HERE.parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\r")


class Terminal:
    """A child process on a pty with a minimal expect()."""

    def __init__(self, cmd: list[str], env: dict, cwd):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True)
        os.close(slave)
        self.buffer = ""
        self.seen = ""

    def expect(self, pattern: str, timeout: float = 90) -> str:
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

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.master)


@pytest.mark.slow
def test_terminal_play_with_a_shadow(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "play.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")]),
        VIBESEARCH_FAKE_MODELS="_session_fakes:register",
        COLUMNS="400",
        LINES="60",
        TERM="xterm",
        NO_COLOR="1",
    )
    cmd = [sys.executable, "-m", "vibesearch.cli.main", "play", "--task", task.id, "--agent", "react", "--model", "fake/agent", "--shadow-model", "fake/sim", "--db", str(db)]
    term = Terminal(cmd, env, tmp_path)
    try:
        first = term.expect(r"decision \[d=disclose")
        assert "you are playing" in first and task.persona.background[:40] in first  # persona card
        assert "stage card" in first and task.stages[1].trigger.condition[:40] in first
        assert task.stages[1].line[:40] in first and "if not met" in first
        assert "agent" in first  # the agent's reply was shown
        term.send("d\r")
        term.expect(r"Enter accepts the line")
        term.send("\r")  # accept the pre-filled line
        second = term.expect(r"decision \[d=disclose")
        assert "shadow simulator would have" in second
        term.send("p\r")
        term.expect(r"message \(Enter")
        term.send("Keep going on that please\r")
        term.expect(r"decision \[d=disclose")
        term.send("f\r")
        term.expect(r"message \(Enter")
        term.send("\r")  # empty: a push from the fallback
        term.expect(r"decision \[d=disclose")
        term.send("x\r")
        end = term.expect(r"shadow agreement: \d+/\d+ turns")
        assert "finished (done)" in end
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    store = Store(db)
    run = store.list_runs()[0]
    assert run.user == "human" and run.status == "finished" and run.termination == "done"
    stages = [e.data for e in store.events(run.id, kinds=["stage"])]
    primary = [s for s in stages if not s.shadow]
    assert [(s.reply_kind, s.decided_by) for s in primary] == [
        ("open", "human"), ("disclose", "human"), ("push", "human"), ("perfunctory", "human"), ("done", "human")
    ]
    assert sum(s.shadow for s in stages) == 4
    users = [e.data.content for e in store.events(run.id, kinds=["message"]) if e.data.role == "user" and e.data.phase == "dialogue"]
    assert users[1] == task.stages[1].line  # the pre-filled line, accepted with Enter
    assert users[2] == "Keep going on that please"
    assert users[3].startswith(("No particular preference", "这个我不太在意")) and len(users[3]) > 30
    assert users[4] == "[DONE]"
