"""Migration 0005: every run gets its configuration resolved for its profile, once, when the file is
upgraded — so resume, batches and scoring read one shape.

A database at revision 0004 is made by hand the way the release before wrote one: an official run
whose stored config left the profile's limits implicit (and kept an ignored ``--max-user-turns
50``), a run of ours with no config at all (from before configs were stored) whose batch plan
names none either, and an imported trajectory."""

from __future__ import annotations

import json
import sqlite3

from vibesearch.config import Settings
from vibesearch.protocol import build_config, profile_of
from vibesearch.runner import config_of_run
from vibesearch.store import Store, migrations


def _make_0004_file(path) -> dict[str, str]:
    store = Store(path)
    settings = Settings(db=path)
    official = build_config(settings, task_id="t-off", agent="react", agent_model="fake/a", user="paper", simulator_model="fake/s",
                            protocol="official")
    ids = {
        "official": store.create_run("t-off", run_config=official, agent="react", user="paper").id,
        "old": store.create_run(
            "t-old", agent="baseline", user="rules", config={**settings.snapshot(), "max_user_turns": 7, "search_topn": 4},
            meta={"agent_config": {"kind": "baseline"}, "user_config": {"kind": "rules"},
                  "batch": {"batch_id": "b1", "tasks": ["t-old"], "runs": 1, "agent": "baseline"}},
            batch_id="b1",
        ).id,
        "imported": store.create_run("t-imp", agent="imported", user="simulator", source="imported", config={"imported_from": "x.json"}).id,
    }
    store.engine.dispose()
    with sqlite3.connect(path) as conn:
        old_shape = json.loads(official.model_dump_json())
        old_shape["limits"].update({"max_user_turns": 50, "max_steps_per_turn": 30})
        for name in ("max_rounds", "compaction_tokens"):
            del old_shape["limits"][name]
        conn.execute("UPDATE runs SET run_config_json = ? WHERE id = ?", (json.dumps(old_shape), ids["official"]))
        conn.execute("UPDATE runs SET run_config_json = NULL WHERE id != ?", (ids["official"],))
        conn.execute("UPDATE alembic_version SET version_num = '0004'")
    return ids


def test_upgrading_resolves_every_runs_config(tmp_path):
    path = tmp_path / "r0004.db"
    ids = _make_0004_file(path)
    with sqlite3.connect(path) as conn:  # (the file is as the release before left it)
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0004",)

    store = Store(path)  # a writable file is upgraded when it is opened
    official = store.get_run(ids["official"]).run_config()
    assert official is not None and profile_of("official").is_resolved(official)
    assert official.limits.max_user_turns == 30  # the value the profile ran it with, not the ignored 50
    assert (official.limits.max_steps_per_turn, official.limits.max_rounds, official.limits.compaction_tokens) == (None, 200, 229_376)

    old = store.get_run(ids["old"])
    config = config_of_run(old)
    assert profile_of("vibesearch").is_resolved(config)
    assert (config.task_id, config.agent.kind, config.user.kind, config.protocol) == ("t-old", "baseline", "rules", "vibesearch")
    assert (config.limits.max_user_turns, config.search.topn) == (7, 4)  # read off its settings snapshot
    plan = old.meta()["batch"]
    assert plan["config"]["limits"]["max_user_turns"] == 7 and plan["config"]["task_id"] == ""

    assert store.get_run(ids["imported"]).run_config() is None  # not a run of ours: nothing made up
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (migrations.HEAD,)
