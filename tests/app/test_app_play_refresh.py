"""The Play tab's timer is the one writer of what a run's state decides, so a reply of a button
that lands late cannot leave the page stale: while the person's turn is awaited, every tick sends
the person's controls again (Send's own "Sent…" reply may arrive after the tick that showed the
next turn). (Stop answers with a notice, not on the status line the timer owns: the browser tests
wait for "cancelled" there after Stop.)"""

from __future__ import annotations


import pytest
from app_harness import wait_until

from vibesearch.app import form_request
from vibesearch.app.context import RunView
from vibesearch.app.play import refresh

# refresh() keys its output by the components it was given; names stand in for them here
COMPONENTS = {name: name for name in (
    "view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score",
    "table_answer", "pred_table", "timer", "persona", "human_turn",
)}


@pytest.fixture
def ctx(app_ctx):
    return app_ctx




def test_every_tick_sends_the_person_controls_while_their_turn_waits(ctx, settings):
    token = ctx.access.issue()
    who = ctx.who(None, token)
    task = ctx.catalog.get(ctx.catalog.default_id())
    live = ctx.manager.start(form_request(settings, task_id=task.id, user="human"), task, who.owner)
    wait_until(lambda: live.pending() is not None, "the person's turn")
    view = RunView(run_id=live.run_id)
    first = refresh(ctx, who, view, COMPONENTS)
    assert "Your turn" in first["human_turn"] and "Your turn" not in first["human_card"] and first["send"] is not None
    # nothing changed since: the status is not sent again, the person's controls are
    second = refresh(ctx, who, view, COMPONENTS)
    assert "status" not in second
    assert "Your turn" in second["human_turn"] and "Next stage" in second["human_card"]
    ctx.manager.stop(live.run_id, who.owner)
    ctx.manager.wait(live.run_id, timeout=30)
    over = refresh(ctx, who, view, COMPONENTS)
    assert "cancelled" in over["status"]
    assert over["human_box"].visible is False  # the controls go away once, and are not sent again
    assert "human_card" not in refresh(ctx, who, view, COMPONENTS)
