"""Play's status line and result for a person's run (app/play.py ``refresh``): while the person's
turn is awaited the status line says so and the line above the controls marks it (the page script
scrolls to that mark); a run they stop reads as cancelled, not scored and left out of the scores,
never as "Not scored yet"."""

from __future__ import annotations


from app_harness import wait_until

from vibesearch.app import form_request
from vibesearch.app.context import RunView
from vibesearch.app.play import refresh

COMPONENTS = {name: name for name in (
    "view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score",
    "table_answer", "pred_table", "timer", "persona", "human_turn", "stop_box",
)}


def test_the_turn_is_said_in_the_status_and_a_stopped_run_is_said_unscored(app_ctx, settings):
    ctx = app_ctx
    who = ctx.who(None, ctx.access.issue())
    task = ctx.catalog.get(ctx.catalog.default_id())
    live = ctx.manager.start(form_request(settings, task_id=task.id, user="human"), task, who.owner)
    wait_until(lambda: live.pending() is not None, "the person's turn")
    view = RunView(run_id=live.run_id)
    out = refresh(ctx, who, view, COMPONENTS)
    assert "your turn" in out["status"] and "running" in out["status"]
    assert "id='vs-your-turn'" in out["human_turn"]
    ctx.manager.stop(live.run_id, who.owner)
    ctx.manager.wait(live.run_id, timeout=30)
    over = refresh(ctx, who, view, COMPONENTS)
    assert "cancelled" in over["status"] and "not scored" in over["status"] and "your turn" not in over["status"]
    assert "left out of every score" in over["score"] and "Not scored yet" not in over["score"]
    assert over["stop_box"] is not None  # a confirmation left open is folded away
