"""Batches: flaky models, the --json summary, finishing an interrupted batch."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from _engines import sqlite_only
from vibesearch.run import RunConfig
from vibesearch.runner.batch import BatchSpec, plan_config, plan_jobs, run_batch
from vibesearch.store import Store
from vibesearch.protocol import build_config


def react_and_simulator(settings) -> RunConfig:
    return build_config(settings, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim")


async def test_a_fifth_of_model_calls_failing_every_run_still_finishes(fakes, persona_tasks, store, settings, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_TEST_FAKE_FAIL", "0.2")
    fakes._attempts.clear()
    before = dict(fakes._calls)
    s = settings.model_copy(update={"max_user_turns": 4})
    tasks = persona_tasks[:2]
    spec = BatchSpec(tasks=tasks, config=react_and_simulator(s), runs=2, concurrency=3)
    results = await run_batch(store, s, spec)
    assert len(results) == len(tasks) * 2
    calls = fakes._calls["n"] - before["n"]
    failed = fakes._calls["failed"] - before["failed"]
    assert 0.1 < failed / calls < 0.3, (failed, calls)  # about a fifth of the calls failed
    retried = 0
    for job, r in results:
        assert r.status == "finished" and r.termination == "max_user_turns", (job.key, r)
        errors = [e.data for e in store.events(r.run_id, kinds=["error"])]
        assert all(not e.fatal for e in errors)
        retried += sum(1 for e in store.events(r.run_id, kinds=["usage"]) if e.data.retries > 0)
        assert store.latest_graph(r.run_id) is not None
    all_errors = [e for _, r in results for e in store.events(r.run_id, kinds=["error"])]
    assert all_errors and retried > 0
    assert {e.data.source for e in all_errors} <= {"llm:agent", "llm:simulator", "llm:extraction"}
    runs = store.list_runs(batch_id=spec.batch_id)
    assert sorted((r.task_id, r.run_index) for r in runs) == sorted((t.id, i) for t in tasks for i in range(2))


async def test_resume_of_a_batch_finishes_interrupted_and_missing_runs(fakes, persona_tasks, store, settings):
    s = settings.model_copy(update={"max_user_turns": 2})
    task = persona_tasks[0]
    spec = BatchSpec(tasks=[task], config=react_and_simulator(s), runs=3)
    # one run finished, one interrupted half-way, one never started
    first = await run_batch(store, s, BatchSpec(**{**spec.__dict__, "runs": 1}))
    half = await run_batch(store, s, BatchSpec(**{**spec.__dict__, "runs": 2}), resume=True)
    assert [r.run_id for _, r in half][0] == first[0][1].run_id  # the ended run is reported, not rerun
    second = half[1][1].run_id
    events = store.events(second)
    store.update_run(second, status="interrupted")
    with store.session() as ses:  # drop the tail of run #1 as if the process had died
        from sqlmodel import delete

        from vibesearch.store.tables import EventRow, GraphRow

        ses.exec(delete(EventRow).where(EventRow.run_id == second, EventRow.seq > len(events) // 2))
        ses.exec(delete(GraphRow).where(GraphRow.run_id == second))
        ses.commit()
    store.update_run(second, termination=None)
    jobs = plan_jobs(store, spec, resume=True)
    assert [(j.index, bool(j.done), j.run_id) for j in jobs] == [(0, True, None), (1, False, second), (2, False, None)]
    final = await run_batch(store, s, spec, resume=True)
    assert [r.status for _, r in final] == ["finished"] * 3
    assert final[1][1].run_id == second and store.events(second)[-1].kind == "end"
    assert len(store.list_runs(batch_id=spec.batch_id)) == 3


def test_cli_run_json_and_failure_exit_code(fakes, persona_tasks, tmp_path):
    from vibesearch.cli.main import app

    db = tmp_path / "cli.db"
    runner = CliRunner()
    ids = ",".join(t.id for t in persona_tasks[:2])
    ok = runner.invoke(app, ["run", "--tasks", ids, "--runs", "2", "--max-user-turns", "2", "--json", "--db", str(db)])
    assert ok.exit_code == 0, ok.output
    rows = json.loads(ok.stdout)
    assert len(rows) == 4
    for row in rows:
        assert set(row) == {"run_id", "task_id", "status", "termination", "stages_reached", "stages_total", "user_turns", "assistant_steps", "tool_calls"}
        assert row["status"] == "finished" and row["user_turns"] == 2 and row["tool_calls"] > 0
    store = Store(db)
    assert {r.user for r in store.list_runs()} == {"rules"} and {r.agent for r in store.list_runs()} == {"baseline"}

    from vibesearch.llm import fake as fake_mod

    fake_mod.register("dead", lambda r: fake_mod.Reply(error="400"))
    bad = runner.invoke(app, ["run", "--tasks", persona_tasks[0].id, "--agent", "react", "--model", "fake/dead", "--db", str(db)])
    assert bad.exit_code == 1
    assert "failed" in bad.stderr and "fake bad request" in bad.stderr
    fake_mod.unregister("dead")

    unknown = runner.invoke(app, ["run", "--tasks", "no-such-task", "--db", str(db)])
    assert unknown.exit_code != 0 and "no-such-task" in unknown.stderr
    no_model = runner.invoke(app, ["run", "--tasks", persona_tasks[0].id, "--user", "simulator", "--db", str(db)])
    assert no_model.exit_code != 0 and "simulator model" in no_model.stderr


def test_cli_resume_finishes_the_latest_batch(persona_tasks, tmp_path):
    from vibesearch.cli.main import app

    db = tmp_path / "resume.db"
    runner = CliRunner()
    task = persona_tasks[0]
    first = runner.invoke(app, ["run", "--tasks", task.id, "--max-user-turns", "2", "--json", "--db", str(db)])
    assert first.exit_code == 0, first.output
    store = Store(db)
    [run] = store.list_runs()
    # the batch was meant to have two runs and only one was started
    import json as _json

    meta = _json.loads(run.meta_json)
    meta["batch"]["runs"] = 2
    store.update_run(run.id, meta=meta)
    again = runner.invoke(app, ["run", "--resume", "--json", "--db", str(db)])
    assert again.exit_code == 0, again.output
    rows = json.loads(again.stdout)
    assert [r["run_id"] for r in rows][0] == run.id and len(rows) == 2
    assert all(r["status"] == "finished" for r in rows)
    assert all(r["user_turns"] == 2 for r in rows)  # the missing run was started with the batch's own config
    assert {r.batch_id for r in store.list_runs()} == {run.batch_id}
    done = runner.invoke(app, ["resume", run.id, "--db", str(db)])
    assert done.exit_code != 0 and "finished" in done.stderr
    nothing = runner.invoke(app, ["run", "--resume", "--batch", "nope", "--db", str(db)])
    assert nothing.exit_code != 0 and "nope" in nothing.stderr


@sqlite_only("no database is opened: the settings only name one")
def test_a_batch_plan_stored_before_run_configs_still_reads(settings):
    old = {"batch_id": "b", "tasks": ["t"], "runs": 2, "agent": "react", "model": "fake/agent", "user": "simulator", "simulator_model": "fake/sim"}
    config = plan_config(old, settings)
    assert (config.agent.kind, config.agent.model, config.user.kind, config.user.model) == ("react", "fake/agent", "simulator", "fake/sim")
    assert plan_config(BatchSpec(tasks=[], config=config).plan(), settings) == config
