"""Under ``VIBESEARCH_READ_RUNS=own`` another person's run answers Stop and Continue exactly as a run
id that does not exist (issue 40 item 5): the Runs tab's two handlers and the API's ``stop_run`` /
``continue_run``, the real handlers of the built app called as the page calls them (a login's
``gr.Request``). With reads open the same person is told the run is not theirs (they may read it),
and the owner can stop it."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from vibesearch.app.context import RunView
from vibesearch.app.ui import build_app
from vibesearch.config import Settings


def _handlers(demo) -> dict:
    """The built app's handlers by name (the Runs tab's methods, the API's endpoints)."""
    out = {}
    for bf in demo.fns.values():
        fn = bf.fn
        name = getattr(fn, "__name__", "")
        if name in ("on_stop", "on_continue", "stop_run", "continue_run"):
            out[name] = fn
    return out


@pytest.fixture(params=["own", "all"])
def app(request, tmp_path):
    settings = Settings(db=tmp_path / "t.db", tasks="", auth="ann:pw-ann-1,bob:pw-bob-1", read_runs=request.param)
    demo = build_app(settings)
    ctx = demo.vibesearch
    run = ctx.store.create_run("daily-en-japan-heritage-trip", task_json={}, status="interrupted", owner="user:bob")
    yield SimpleNamespace(h=_handlers(demo), ctx=ctx, run_id=run.id, own=request.param == "own")
    ctx.manager.shutdown()


def _as(login: str):
    return SimpleNamespace(username=login, query_params={}, headers={})


def _answer(call, run_id: str) -> str:
    with pytest.raises(gr.Error) as err:
        call(run_id)
    return str(err.value.message)


def test_anothers_run_answers_stop_and_continue_as_no_run(app):
    missing = "f" * len(app.run_id)  # an id of the same length that no run has
    assert missing != app.run_id
    calls = {
        "Runs Stop": lambda rid: app.h["on_stop"](None, RunView(run_id=rid), _as("ann")),
        "Runs Continue": lambda rid: app.h["on_continue"](None, RunView(run_id=rid), _as("ann")),
        "API stop_run": lambda rid: app.h["stop_run"](rid, "", _as("ann")),
        "API continue_run": lambda rid: app.h["continue_run"](rid, "", _as("ann")),
    }
    assert len(app.h) == 4
    for what, call in calls.items():
        theirs, nothing = _answer(call, app.run_id), _answer(call, missing)
        assert nothing == f"no run with id {missing!r} in this database", (what, nothing)
        if app.own:  # exactly the answer for no run at all, the id aside
            assert theirs.replace(app.run_id, missing) == nothing, (what, theirs)
        else:  # they may read it: told it is not theirs
            assert "no run with id" not in theirs and ("another" in theirs or "Only the" in theirs), (what, theirs)
    assert app.ctx.store.get_run(app.run_id).status == "interrupted"  # nothing happened to it


def test_the_owner_still_stops_their_run(app):
    assert app.h["stop_run"](app.run_id, "", _as("bob")) == "stopped"
    assert app.ctx.store.get_run(app.run_id).status == "cancelled"
