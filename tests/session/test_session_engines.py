"""The session tests' ``store`` and ``settings`` are one database on the engine the test id names
(``[sqlite]`` / ``[postgresql]``), and ``sqlite_only`` narrows a test to SQLite with a reason."""

from __future__ import annotations

import pytest

from _engines import sqlite_only
from vibesearch.store import Store


def test_store_and_settings_share_one_database_on_the_named_engine(request, store, settings):
    engine = request.node.callspec.params["db_url"]
    assert store.dialect == engine
    run = store.create_run("t")
    assert Store(settings.db).get_run(run.id).id == run.id  # what the settings name is that same database


@sqlite_only("checks the narrowing itself")
def test_sqlite_only_runs_once_on_sqlite_and_keeps_its_reason(request, store):
    assert request.node.callspec.params["db_url"] == "sqlite" and store.dialect == "sqlite"
    assert request.node.get_closest_marker("sqlite_only").kwargs["reason"] == "checks the narrowing itself"
    with pytest.raises(ValueError, match="say why"):
        sqlite_only(" ")
