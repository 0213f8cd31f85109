"""A blind study's runs show their agent to admins only: in the Runs list, in a filter by agent
(which would otherwise tell the agent by what it finds); the Label tab's run list hides it from
everyone. (The API's ``run_status`` uses the same ``agent_hidden`` rule.)"""

from __future__ import annotations

import pytest

from vibesearch.app import AGENT_HIDDEN, Who
from vibesearch.app.label import labelable_runs
from vibesearch.app.runs import ANY, run_rows
from vibesearch.app.ui import build_app
from vibesearch.run import EndEvent, GraphEvent

ADMIN = Who(owner="user:root", login="root", admin=True)
ANNOTATOR = Who(owner="user:ann", login="ann")


@pytest.fixture
def ctx(settings):
    demo = build_app(settings)
    yield demo.vibesearch
    demo.vibesearch.manager.shutdown()


@pytest.fixture
def runs(ctx):
    made = {}
    for name, meta in (("blind", {"study": "s1", "blind": True}), ("open", {"study": "s2", "blind": False})):
        run = ctx.store.create_run("daily-en-japan-heritage-trip", task_json={}, agent="react", agent_model="secret/model-x",
                                   user="human", status="finished", meta=meta)
        ctx.store.append(run.id, GraphEvent(triples=[{"head": "a", "relation": "r", "tail": "b"}]))
        ctx.store.append(run.id, EndEvent(termination="done"))
        made[name] = run.id
    return made


def _agent_cells(rows, run_id):
    (row,) = [r for r in rows if r[0] == run_id]
    return row[3], row[4]


def test_the_runs_list_hides_a_blind_runs_agent_from_all_but_admins(ctx, runs):
    for who in (ANNOTATOR, None):
        rows = run_rows(ctx, ANY, ANY, ANY, ANY, who)
        assert _agent_cells(rows, runs["blind"]) == (AGENT_HIDDEN, "")
        assert _agent_cells(rows, runs["open"]) == ("react", "secret/model-x")
        # filtering by the agent finds the open run only: the blind one is not told apart by it
        assert [r[0] for r in run_rows(ctx, ANY, "react", ANY, ANY, who)] == [runs["open"]]
    assert _agent_cells(run_rows(ctx, ANY, ANY, ANY, ANY, ADMIN), runs["blind"]) == ("react", "secret/model-x")
    assert {r[0] for r in run_rows(ctx, ANY, "react", ANY, ANY, ADMIN)} == set(runs.values())


def test_the_label_list_never_names_a_blind_runs_agent(ctx, runs):
    labels = dict((value, label) for label, value in labelable_runs(ctx, ADMIN))
    assert AGENT_HIDDEN in labels[runs["blind"]] and "secret/model-x" not in labels[runs["blind"]]
    assert "secret/model-x" in labels[runs["open"]]


def test_the_search_finds_by_model_batch_and_date_but_never_a_hidden_agent(ctx, runs):
    from vibesearch.app.runs import run_rows

    def found(who, words, profile=ANY):
        return {r[0] for r in run_rows(ctx, ANY, ANY, ANY, ANY, who, profile, words)}

    today = ctx.store.get_run(runs["open"]).created_at.strftime("%Y-%m-%d")
    assert found(ANNOTATOR, "secret/model-x") == {runs["open"]}  # the blind run is not found by its model
    assert found(ADMIN, "secret/model-x") == set(runs.values())
    assert found(ANNOTATOR, f"{today} human") == set(runs.values())
    assert found(ANNOTATOR, "no-such-word") == set()
    assert found(ANNOTATOR, "", "official") == set() and found(ANNOTATOR, "", "vibesearch") == set(runs.values())
