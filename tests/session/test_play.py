"""`vibesearch play` driven through a pseudo-terminal, as a person at a keyboard would."""

from __future__ import annotations

import pytest

from _terminal import Terminal, play_env, vibesearch
from vibesearch.store import Store
from vibesearch.users import PERFUNCTORY


@pytest.mark.slow
def test_terminal_play_with_a_shadow(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "play.db"
    env = play_env()
    cmd = vibesearch("play", "--task", task.id, "--agent", "react", "--model", "fake/agent", "--shadow-model", "fake/sim", "--db", str(db))
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
    assert users[3].startswith(tuple(PERFUNCTORY.values())) and len(users[3]) > 30
    assert "?." not in users[3] and "— " not in users[3]
    assert users[4] == "[DONE]"
