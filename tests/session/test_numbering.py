"""One numbering for people: the opening is stage 1 and user turn 1 in the app's stepper and
stage timeline, the terminal's stage card and the report (stored indices stay 0-based)."""

from __future__ import annotations

import asyncio

import pytest

from _parts import parts

from vibesearch.app.render import stage_timeline_html, stepper_html
from vibesearch.cli import stage_panel
from vibesearch.reports import build_report
from vibesearch.reports.text import to_markdown
from vibesearch.run import UserAway
from vibesearch.run.events import EndEvent, StageEvent
from vibesearch.session import run_session
from vibesearch.users import UserTurn


async def _left_after_the_opening(task, store, settings):
    """A person's run left (Ctrl-C) at the first decision: only the opening was said."""
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    run = asyncio.create_task(run_session(config, task, agent, user, store, settings))
    state = await asyncio.wait_for(user.wait_pending(), 30)
    user.leave()
    with pytest.raises(UserAway):
        await asyncio.wait_for(run, 30)
    return store.list_runs()[0].id, state


async def test_the_opening_is_stage_1_and_user_turn_1_everywhere(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    n = len(task.stages)
    run_id, state = await _left_after_the_opening(task, store, settings)
    events = store.events(run_id)
    opening = [e.data for e in events if isinstance(e.data, StageEvent)]
    assert [s.stage_index for s in opening] == [0]  # stored data stays 0-based

    # the person left: no end written, the run can be resumed
    assert store.get_run(run_id).status == "interrupted"
    assert not any(isinstance(e.data, EndEvent) for e in events)

    # app: stepper and stage timeline
    stepper = stepper_html(task, events)
    assert f"<b>1. {task.stages[0].name}</b>" in stepper and "disclosed on user turn 1" in stepper
    assert "Stages: 1 / " in stepper
    timeline = stage_timeline_html(task, events)
    first_row = timeline.split("<tr class=")[1]
    assert "<td>1</td>" in first_row and "open" in first_row and f"<td>1. {task.stages[0].name}</td>" in first_row
    assert "<td>0</td>" not in timeline

    # terminal: the stage card at the first decision
    card = str(stage_panel(state).renderable)
    assert f"reached:[/b] stage 1 of {n}" in card and f"next:[/b] stage 2 — {task.stages[1].name}" in card
    assert stage_panel(state).title == "stage card · user turn 2"  # the opening was user turn 1

    # report: a run whose person said done at the first decision reached only the opening stage
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    run = asyncio.create_task(run_session(config, task, agent, user, store, settings))
    await asyncio.wait_for(user.wait_pending(), 30)
    await user.submit(UserTurn(message="", reply_kind="done", decided_by="human"))
    result = await asyncio.wait_for(run, 60)
    assert result.status == "finished" and result.stages_reached == 1
    report = build_report(store)
    row = next(r for r in report["runs"] if r["run_id"] == result.run_id)
    assert row["last_stage"] == f"stage 1 of {n}" and row["stages_reached"] == 1
    md = to_markdown(report)
    assert f"stage 1 of {n}" in md and "the opening query is stage 1 and user turn 1" in md


async def test_timeline_counts_turns_from_the_opening(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="rules")
    result = await asyncio.wait_for(run_session(config, task, agent, user, store, settings), 60)
    timeline = stage_timeline_html(task, store.events(result.run_id))
    turns = [int(cell.split("</td>")[0]) for cell in timeline.split("<tr class=")[1:] for cell in [cell.split("<td>")[1]]]
    assert turns == list(range(1, len(turns) + 1))  # 1, 2, 3 … with no gap after the opening
    stepper = stepper_html(task, store.events(result.run_id), running=False)
    assert "disclosed on user turn 1" in stepper and "disclosed on user turn 2" in stepper
