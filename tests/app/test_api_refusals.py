"""The API's refusals and a PostgreSQL outage in the server's log (issue 40 item 7): the real
endpoints (``app.api.register`` inside a gradio Blocks) over a real store. A refused call is one
log line and reaches gradio without its traceback (``print_exception`` False: gradio prints the
traceback of every other exception); while PostgreSQL is down every call is refused with one
line saying so, and the outage is logged once when it begins and once when it ends."""

from __future__ import annotations

import logging

import gradio as gr
import pytest

from vibesearch.app import UNREACHABLE, Access
from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.context import AppContext
from vibesearch.app.live import RunManager
from vibesearch.config import Settings
from vibesearch.store import Store, upgrade_database

LOGGER = "vibesearch.app._refusals"


def _endpoints(db: str):
    from vibesearch.app import api

    settings = Settings(db=db, tasks="")
    store = Store(db)
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings),
                     manager=RunManager(store, settings), access=Access(settings))
    with gr.Blocks() as blocks:
        api.register(ctx)
    return ctx, {bf.api_name: bf.fn for bf in blocks.fns.values()}


def _refused(fn, *args) -> gr.Error:
    with pytest.raises(gr.Error) as err:
        fn(*args)
    assert err.value.print_exception is False  # gradio prints no traceback for it
    return err.value


def test_a_refused_call_is_one_line_without_a_traceback(db_url, caplog):
    ctx, api = _endpoints(db_url)
    try:
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            assert "no run with id 'nope'" in _refused(api["run_status"], "nope", None).message
            assert "run_id must be a run id" in _refused(api["run_events"], "x" * 10_000, 0, None).message
        lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
        assert lines == ["run_status refused: no run with id 'nope' in this database", "run_events refused: run_id must be a run id"]
        assert all(r.exc_info is None for r in caplog.records)
    finally:
        ctx.manager.shutdown()


def test_an_outage_is_one_line_and_each_call_meanwhile_one_refusal(private_pg_cluster, caplog):
    db = private_pg_cluster.new_database()
    upgrade_database(db)
    ctx, api = _endpoints(db)
    try:
        run = ctx.store.create_run("t")
        assert api["run_status"](run.id, None)["run_id"] == run.id
        ctx.store.engine.dispose()
        private_pg_cluster.halt()
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            for _ in range(5):
                assert _refused(api["run_status"], run.id, None).message == UNREACHABLE
            down = [r.getMessage() for r in caplog.records if r.name == LOGGER]
            private_pg_cluster.restart()
            assert api["run_status"](run.id, None)["run_id"] == run.id
            api["run_status"](run.id, None)
        lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
        assert len(down) == 1 and down[0].startswith("the database cannot be reached (") and "Traceback" not in down[0], down
        assert lines == down + ["the database can be reached again"]
        assert all(r.exc_info is None for r in caplog.records)
    finally:
        ctx.manager.shutdown()
        ctx.store.engine.dispose()
