"""A blind study's play on the Leaderboard and in the Runs tab's filter menu (issue 40 item 1): a
non-admin finds it under the configuration ``blind study agent`` — in the score and interaction
tables, the F1 plot, the precision–recall plot's traces and hovers, the filter menus — and never
its agent's kind or model; an admin sees its own configuration. The tab's real handler is called
as the page calls it, with a login (``gr.Request``'s ``username``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import gradio as gr
import pandas as pd
import pytest

from vibesearch.app.leaderboard import ALL, build, table_rows
from vibesearch.app.runs import filter_choices
from vibesearch.results.blind import BLIND_AGENT
from vibesearch.run import EndEvent
from vibesearch.run.scores import RunScore
from vibesearch.store import record_score
from vibesearch.tables.models import TableScore
from vibesearch.tables.runs import to_run_score

SNAPSHOT = {"persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
            "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {}, "subset": "pro", "language": "en"}
SECRET = ("secret-kind-q9", "secret/model-q9")  # the blind play's agent kind and model: never shown to a non-admin


@pytest.fixture
def lb(app_ctx):
    """The Leaderboard's refresh handler over a store with one blind play and one ordinary run, both scored."""
    for agent, model, meta in ((*SECRET, {"study": "s1", "blind": True}), ("react", "open/model", {})):
        run = app_ctx.store.create_run("t1", task_json={**SNAPSHOT, "id": "t1"}, status="finished", agent=agent, agent_model=model,
                                       user="human", meta=meta)
        app_ctx.store.append(run.id, EndEvent(termination="done"))
        record_score(app_ctx.store, RunScore(run_id=run.id, judge="fake/j", protocol="vibesearch", precision=0.5, recall=0.5,
                                             f1=0.5, n_gt=1, n_pred=1, n_covered=1, n_valid=1))
    app_ctx.access.admins = {"root"}
    with gr.Blocks():
        handles = build(app_ctx, gr.BrowserState(""))
    return handles["on_refresh"]


def _shown(out) -> str:
    """Everything the tab's outputs carry, as text (tables, summary, figures with their hovers, menus)."""
    def text(x):
        if hasattr(x, "to_plotly_json"):
            return json.dumps(x.to_plotly_json(), default=str)
        if isinstance(x, gr.Dropdown):
            return json.dumps(x.choices, default=str)
        if isinstance(x, pd.DataFrame):  # a table: its headers and rows
            return json.dumps([list(x.columns), *x.values.tolist()], default=str)
        return json.dumps(x, default=str)
    return "\n".join(text(x) for x in out)


@pytest.mark.parametrize("login, admin", [("ann", False), ("root", True)])
def test_the_leaderboard_groups_a_blind_play_as_the_blind_agent_for_non_admins(lb, app_ctx, login, admin):
    out = lb("", "fake/j", request=SimpleNamespace(username=login))
    shown = _shown(out)
    configs = {row[0] for row in out[2].values.tolist()}
    if admin:
        assert any(c.startswith(f"{SECRET[0]} ({SECRET[1]})") for c in configs) and BLIND_AGENT not in shown
    else:
        assert all(secret not in shown for secret in SECRET), [s for s in SECRET if s in shown]
        assert any(c.startswith(BLIND_AGENT) for c in configs) and any(c.startswith("react (open/model)") for c in configs)
        pr = out[6].to_plotly_json()["data"]  # a trace per configuration: the blind play's is the blind agent's
        assert sorted(t["name"].split(" · ")[0] for t in pr) == sorted([BLIND_AGENT, "react (open/model)"])
        # the agent filter offers the blind agent, and picking it finds the blind play's row only
        agent_menu = [value for _, value in out[8 + 2].choices]
        assert BLIND_AGENT in agent_menu and SECRET[0] not in agent_menu
        picked = lb("", "fake/j", ALL, ALL, BLIND_AGENT, ALL, ALL, request=SimpleNamespace(username=login))
        assert {row[0].split(" · ")[0] for row in picked[2].values.tolist()} == {BLIND_AGENT}
        # filtering by the hidden agent's name finds nothing
        assert lb("", "fake/j", ALL, ALL, SECRET[0], ALL, ALL, request=SimpleNamespace(username=login))[2].empty


def test_table_tasks_group_a_blind_play_as_the_blind_agent(app_ctx):
    run = app_ctx.store.create_run("w1", task_json={}, kind="table", status="finished", agent=SECRET[0], agent_model=SECRET[1],
                                   user="rules", meta={"blind": True})
    record_score(app_ctx.store, to_run_score(run.id, TableScore(task_id="w1", success=True, item_f1=1.0)))
    rows = table_rows(app_ctx)
    assert rows and rows[0][0].startswith(SECRET[0])  # no rule given: as stored
    hidden = table_rows(app_ctx, blind=lambda r: bool(r.meta().get("blind")))
    assert [r[0].split(" · ")[0] for r in hidden] == [BLIND_AGENT]


def test_the_runs_agent_menu_never_offers_an_agent_only_a_blind_play_had(app_ctx):
    from vibesearch.app import Who

    app_ctx.store.create_run("t1", task_json={}, status="finished", agent=SECRET[0], agent_model=SECRET[1], user="human",
                             meta={"study": "s1", "blind": True})
    for who in (None, Who(owner="user:ann", login="ann")):
        assert SECRET[0] not in filter_choices(app_ctx, who)["agent"]
    assert SECRET[0] in filter_choices(app_ctx, Who(owner="user:root", login="root", admin=True))["agent"]


def test_the_study_tab_counts_blind_plays_for_admins_only(app_ctx):
    """The fidelity report groups people's runs by agent: a blind play is not in a non-admin's."""
    from fidelity_runs import person_run, simulator_run

    from vibesearch.app import study_view

    store = app_ctx.store
    blind = person_run(store, "t1", 0.6)
    store.update_run(blind, agent=SECRET[0], agent_model=SECRET[1], meta={"study": "s1", "blind": True})
    simulator_run(store, "t1", 0.4)
    person_run(store, "t2", 0.5)
    simulator_run(store, "t2", 0.7)
    app_ctx.access.admins = {"root"}
    with gr.Blocks() as blocks:
        study_view.build(app_ctx, gr.BrowserState(""))
    (show,) = [bf.fn for bf in blocks.fns.values() if getattr(bf.fn, "__name__", "") == "show"]
    seen = {login: show("", "", "", "", "", SimpleNamespace(username=login))[0] for login in ("ann", "root")}
    assert SECRET[0] in seen["root"] and blind in seen["root"]
    assert SECRET[0] not in seen["ann"] and blind not in seen["ann"] and "baseline" in seen["ann"]


def test_a_blind_plays_transcript_names_no_model_of_its_agent(app_ctx):
    """What the Runs tab draws of a blind play for a non-admin (``results.blind.hidden_stored_events``):
    an error quoting the model and the agent's usage records carry no name of it."""
    from vibesearch.app.render import chat_messages
    from vibesearch.results.blind import hidden_stored_events
    from vibesearch.run import ErrorEvent, UsageEvent

    run = app_ctx.store.create_run("t1", task_json={**SNAPSHOT, "id": "t1"}, status="finished", agent=SECRET[0], agent_model=SECRET[1],
                                   user="human", meta={"study": "s1", "blind": True})
    app_ctx.store.append(run.id, ErrorEvent(source="agent", message=f"litellm.RateLimitError: {SECRET[1]} is over its quota"))
    app_ctx.store.append(run.id, UsageEvent(purpose="agent", model=SECRET[1], input_tokens=5, output_tokens=2))
    app_ctx.store.append(run.id, EndEvent(termination="error"))
    events = app_ctx.store.events(run.id)
    assert SECRET[1] in json.dumps([e.model_dump(mode="json") for e in events])  # what an admin's view holds
    shown = hidden_stored_events(app_ctx.store.get_run(run.id), events)
    text = json.dumps([e.model_dump(mode="json") for e in shown]) + json.dumps([str(m) for m in chat_messages(shown, None)])
    assert SECRET[1] not in text and BLIND_AGENT in text
    assert [e.seq for e in shown] == [e.seq for e in events]
