"""Terminal play keys through a pty: the persona once (again on ?), what Enter sends named in each
prompt, x scores the run, Ctrl-C at the prompt leaves at once with the resume command, and
`play --resume` continues that run."""

from __future__ import annotations

import re
import time

import pytest

from _terminal import Terminal, play_env, vibesearch
from vibesearch.run.events import EndEvent
from vibesearch.store import Store

PROMPT = r"decision \[d=disclose[^\n]*\] > "
SCORE = r"score \([^)]*\): P [\d.]+ · R [\d.]+ · F1 [\d.]+"


def _play(task_id: str, db, tmp_path, *extra: str) -> Terminal:
    cmd = vibesearch("play", "--task", task_id, "--agent", "react", "--model", "fake/agent", "--db", str(db), *extra)
    return Terminal(cmd, play_env(), tmp_path)


@pytest.mark.slow
def test_persona_once_enter_named_and_x_prints_a_score(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "keys.db"
    term = _play(task.id, db, tmp_path)
    try:
        first = term.expect(PROMPT)
        assert first.count("you are playing") == 1
        assert "reached: stage 1 of " + str(len(task.stages)) in first and "stage card · user turn 2" in first
        term.send("p\r")
        said = term.expect(r"message \(Enter sends: “(.+?)”\) > ")
        sends = re.search(r"Enter sends: “(.+?)”", said, re.S).group(1)  # type: ignore[union-attr]
        assert sends and "?." not in sends and ".." not in sends
        term.send("\r")
        second = term.expect(PROMPT)
        assert "you are playing" not in second  # not printed again before the next turn
        assert "stage card · user turn 3" in second and sends.replace("\n", " ")[:30] in second.replace("\n", " ")
        term.send("?\r")
        again = term.expect(PROMPT)
        assert again.count("you are playing") == 1 and "f perfunctory:" in again  # on ?, with what each key does
        term.send("x\r")
        scored = term.expect(SCORE)
        assert "finished (done)" in scored
        term.expect(r"missed ground-truth triples")
        term.rest()
        assert term.close() == 0
    finally:
        term.kill()
    store = Store(db)
    run = store.list_runs()[0]
    assert [s.judge for s in store.scores(run.id)] == ["offline"]


@pytest.mark.slow
def test_ctrl_c_at_the_prompt_leaves_at_once_and_the_run_resumes(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "away.db"
    term = _play(task.id, db, tmp_path)
    try:
        term.expect(PROMPT)
        pressed = time.monotonic()
        term.send("\x03")  # Ctrl-C, no Enter
        hint = term.expect(r"vibesearch play --resume (\S+) --db (\S+)", timeout=15)
        assert time.monotonic() - pressed < 10
        run_id = re.search(r"--resume (\S+)", hint).group(1)  # type: ignore[union-attr]
        assert "interrupted" in hint
        term.rest()
        assert term.close() == 130
    finally:
        term.kill()
    store = Store(db)
    run = store.get_run(run_id)
    assert run.status == "interrupted"
    assert not any(isinstance(e.data, EndEvent) for e in store.events(run_id))

    again = Terminal(vibesearch("play", "--resume", run_id, "--db", str(db)), play_env(), tmp_path)
    try:
        opened = again.expect(PROMPT)
        assert f"continuing run {run_id}" in opened and opened.count("you are playing") == 1
        again.send("x\r")
        again.expect(SCORE)
        again.rest()
        assert again.close() == 0
    finally:
        again.kill()
    run = Store(db).get_run(run_id)
    assert run.status == "finished" and run.termination == "done"


def test_resume_of_a_run_that_is_not_there_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    result = CliRunner().invoke(app, ["play", "--resume", "nope", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 1
    assert "--resume nope" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "none.db").exists()  # nothing written


@pytest.mark.slow
def test_ctrl_c_while_the_agent_works_leaves_at_the_next_turn(persona_tasks, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "busy.db"
    env = {**play_env(), "VIBESEARCH_TEST_FAKE_DELAY": "1.5"}  # every model call takes a while
    cmd = vibesearch("play", "--task", task.id, "--agent", "react", "--model", "fake/agent", "--db", str(db))
    term = Terminal(cmd, env, tmp_path)
    try:
        term.expect(PROMPT)
        term.send("p\r")
        term.expect(r"message \(Enter sends")
        term.send("Go on please\r")
        term.expect(r"you said: Go on please")  # the agent is working now
        term.send("\x03")
        term.expect(r"leaving at your next turn", timeout=15)
        hint = term.expect(r"vibesearch play --resume (\S+) --db", timeout=60)
        assert "decision [" not in hint  # no prompt once the agent had replied
        term.rest()
        assert term.close() == 130
    finally:
        term.kill()
    assert Store(db).list_runs()[0].status == "interrupted"
