"""Scores stored before the judge dropped candidate retrieval keep their details (layout
"candidates", the retrieval's counts): every report format and `compare` still read them."""

import json

import pytest
from typer.testing import CliRunner

from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.scoring import score_run
from vibesearch.store import Store


def T(h, r, t):
    return {"head": h, "relation": r, "tail": t}


GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000")]

# the keys a score judged with candidate retrieval carried (the previous release's llm_judge.py)
OLD_DETAILS = {
    "judge_kind": "llm", "model": "fake/old-judge", "layout": "candidates", "batch_size": 10, "batch_max": 50,
    "concurrency": 8, "n_batches": 1, "batches_unscored": 0, "candidates": True, "candidates_topk": 15,
    "mean_candidates": 7.0, "input_tokens": 900, "cached_input_tokens": None, "billed_input_tokens": 900,
    "cache_read_fraction": 1.0, "cache_read_fraction_from": "unknown: cached tokens priced in full",
    "cache_warmup": False, "shared_prefix_tokens_est": 420, "layouts_considered": {"full x1": 1000, "candidates x1": 880},
    "output_tokens": 80, "cost_usd": None, "calls": 1, "max_in_flight": 1, "seconds": 0.2, "errors": [],
    "batches": [{"gt": [0, 1], "n_candidates": 7}],
}


@pytest.fixture
def db(tmp_path, fake, settings):
    path = tmp_path / "old.db"
    store = Store(path)
    model = fake.register("old-judge", lambda req: fake.Reply(content=json.dumps(
        {"verdicts": [{"index": 0, "covered": True, "evidence": [0]}, {"index": 1, "covered": False}]})))
    for agent_model in ("fake/a", "fake/b"):
        run = store.create_run("t1", task_json={"id": "t1", "subset": "pro", "language": "en", "graph": GT, "persona": {
            "background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}},
            status="finished", agent="react", agent_model=agent_model, user="simulator")
        store.append(run.id, MessageEvent(role="user", content="q"))
        store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
        store.append(run.id, GraphEvent(triples=[GT[0], T("x", "y", "z")]))
        store.append(run.id, EndEvent(termination="max_user_turns"))
        score_run(store, run.id, judge=model, settings=settings)
    import sqlite3

    with sqlite3.connect(path) as con:  # as the previous release wrote them
        con.execute("UPDATE scores SET details_json = ?", (json.dumps(OLD_DETAILS),))
    return path


def test_reports_and_compare_read_old_candidate_details(db):
    from vibesearch.cli.main import app

    runner = CliRunner()
    a, b = (r.id for r in Store(db).list_runs())
    for args in (["report"], ["report", "--format", "json"], ["report", "--format", "html"], ["report", "--format", "csv"],
                 ["compare", a, b], ["compare", "--a", "agent_model=fake/a", "--b", "agent_model=fake/b"]):
        res = runner.invoke(app, [*args, "--judge", "fake/old-judge", "--db", str(db)])
        assert res.exit_code == 0, (args, res.output)
    rep = json.loads(runner.invoke(app, ["report", "--format", "json", "--judge", "fake/old-judge", "--db", str(db)]).stdout)
    assert rep["n_scored"] == 2
    assert json.loads(Store(db).scores(a)[0].details_json)["layout"] == "candidates"
