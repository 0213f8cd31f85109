"""The Vote tab's handlers as any client calls them (raw calls to Gradio's queue, logged in; the
events are private to the page): a non-admin cannot make a vote campaign — not through the form's
handlers, whatever they send — and nothing is stored; an admin can. A voter's answers (the card,
both answers, both conversations, the progress, the status) name no agent, model or run; a vote
key carries the pair it was pressed on, a press for another pair is refused and stores nothing,
and the vote is stored with the runs in the order the voter was shown them."""

from __future__ import annotations

import json

import pytest
from app_harness import start_app, stop_app
from raw_gradio import RawSession
from vote_runs import SECRETS, vote_runs

from vibesearch.labels.vote_campaigns import create_vote_campaign, get_vote_campaign, next_item, sides
from vibesearch.store import Store

ADMIN, VOTER = ("root", "pw-root-2"), ("vera", "pw-vera-2")
VIEW, CARD, ANSWER_A, ANSWER_B, CHAT_A, CHAT_B, REASON, PROGRESS, STATUS, REFUSED = range(10)  # ``VoteTab.outs``


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {"VIBESEARCH_AUTH": f"{ADMIN[0]}:{ADMIN[1]},{VOTER[0]}:{VOTER[1]}", "VIBESEARCH_ADMINS": ADMIN[0]}
    server = start_app(tmp_path_factory.mktemp("vote-api"), extra_env=env)
    yield server
    stop_app(server)


def _fn(s: RawSession, elem_id: str, event: str) -> int:
    return s.dependency(s.component(elem_id=elem_id)["id"], event)[0]


def leaks(data, run_ids=()) -> list[str]:
    text = json.dumps(data, ensure_ascii=False)
    return [w for w in (*SECRETS, *run_ids) if w in text]


def test_a_non_admin_cannot_make_a_vote_campaign_and_an_admin_can(app):
    run_ids = vote_runs(app.db)
    form = ["mine", [], "", "", 2, 1, "vera"]  # name, configurations, filter, tasks, pairs, k, voters
    s = RawSession(app.url, *VOTER)
    try:
        opened = s.call(_fn(s, "vs-vote-new", "expand"), [])
        assert opened.ok and "Only an admin" in json.dumps(opened.data) and not leaks(opened.data), opened
        made = s.call(_fn(s, "vs-vote-new-create", "click"), form)
        assert made.ok and made.data[0].startswith("Not created: Only an admin"), made
    finally:
        s.close()
    assert Store(app.db).vote_campaigns() == []

    s = RawSession(app.url, *ADMIN)
    try:
        opened = s.call(_fn(s, "vs-vote-new", "expand"), [])
        assert opened.ok and all(name in json.dumps(opened.data) for name in SECRETS), opened  # an admin picks by configuration
        bad = s.call(_fn(s, "vs-vote-new-create", "click"), ["x", [], "colour=red", "", 2, 1, "vera"])
        assert bad.ok and bad.data[0].startswith("Not created: --where 'colour=red': unknown key"), bad
        made = s.call(_fn(s, "vs-vote-new-create", "click"), form)
        assert made.ok and made.data[0].startswith("Vote campaign **mine** made: 3 pairs (1 attention checks)"), made
    finally:
        s.close()
    row = get_vote_campaign(Store(app.db), "mine")
    assert row.created_by == "root" and row.annotators() == ["vera"] and {r for it in row.items() for r in (it["run_x"], it["run_y"])} <= set(run_ids)


def test_the_voters_answers_name_no_agent_and_a_stale_key_is_refused(app):
    run_ids = vote_runs(app.db)
    store = Store(app.db)
    camp = create_vote_campaign(store, "blindvote", annotators=["vera"], pairs_per_config_pair=2, where={"model": ["votemodelk3", "votemodelm8"]})
    s = RawSession(app.url, *VOTER)
    try:
        shown = s.call(_fn(s, "vs-label-panel", "select"), [])  # the tab shown: its lists for this page
        assert shown.ok and "blindvote" in json.dumps(shown.data), shown
        first = s.call(_fn(s, "vs-vote-next", "click"), [None, "blindvote", "ignored: the login votes"])
        assert first.ok and "Pair 1" in json.dumps(first.data[CARD]), first
        assert leaks(first.data, run_ids) == []  # no agent, model or run id anywhere in the answer
        assert "was rate limited" in json.dumps(first.data[CHAT_A]) + json.dumps(first.data[CHAT_B])  # the error shown, its model written out
        item = next_item(store, camp, "vera")
        assert item is not None
        run_a, run_b = sides(camp, "vera", item)
        card = f"vote:{item.index}:vera:blindvote"
        assert f"data-card='{card}'" in first.data[CARD]
        vote = _fn(s, "vs-vote-a", "click")
        stale = s.call(vote, [None, json.dumps({"card": f"vote:{item.index + 1}:vera:blindvote", "seq": None, "note": ""})])
        assert stale.ok and "Not stored" in json.dumps(stale.data) and store.votes() == [], stale
        silent = s.call(vote, [None, json.dumps({"nothing": 1})])  # a press that says nothing of its card
        assert silent.ok and "did not say which card" in json.dumps(silent.data) and store.votes() == [], silent
        done = s.call(vote, [None, json.dumps({"card": card, "seq": None, "note": "clearer plan"})])
        assert done.ok and "Pair 1: A is better." in json.dumps(done.data) and leaks(done.data, run_ids) == [], done
        [stored] = store.votes()
        assert (stored.run_a, stored.run_b, stored.winner, stored.voter, stored.reason, stored.campaign) == (
            run_a, run_b, "a", "vera", "clearer plan", "blindvote")
        again = s.call(vote, [None, json.dumps({"card": card, "seq": None, "note": ""})])  # the same pair, pressed twice
        assert again.ok and "Not stored" in json.dumps(again.data) and len(store.votes()) == 1, again
    finally:
        s.close()
