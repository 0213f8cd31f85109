"""Voting in Chromium at 1366×768 (issue 42): an admin makes a vote campaign in the Label tab's
Vote tab; a logged-in voter (not an admin; runs private to their owners, as a blind vote is run)
picks it, votes on every pair by keyboard — a, x, b, then t — with a reason typed once; each
vote is stored in the order the voter saw the sides, the card and its buttons are in the window,
and no agent or model is named on the card or anywhere in the page's HTML."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS, choose, field, shows, tab
from playwright.sync_api import expect
from vote_runs import SECRETS, vote_runs

from vibesearch.labels.vote_metric import final_answers
from vibesearch.store import Store

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))
ADMIN, VOTER = ("root", "pw-root-3"), ("vera", "pw-vera-3")
IN_WINDOW = ("#vs-vote-pair", "#vs-vote-answer-a", "#vs-vote-answer-b", "#vs-vote-a", "#vs-vote-b", "#vs-vote-tie", "#vs-vote-bad")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {"VIBESEARCH_AUTH": f"{ADMIN[0]}:{ADMIN[1]},{VOTER[0]}:{VOTER[1]}", "VIBESEARCH_ADMINS": ADMIN[0],
           "VIBESEARCH_READ_RUNS": "own"}
    server = start_app(tmp_path_factory.mktemp("vote-browser"), extra_env=env)
    yield server
    stop_app(server)


def _page(browser, app, who):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(WAIT_MS)
    assert ctx.request.post(app.url + "login", form={"username": who[0], "password": who[1]}).status == 200
    page = ctx.new_page()
    page.goto(app.url)
    expect(page.locator("#vs-start")).to_be_visible()
    tab(page, "Label")
    tab(page, "Vote")
    return ctx, page


def _in_window(page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate(
        "(el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }"))


def _no_agent(page) -> None:
    html, seen = page.content(), page.locator("body").inner_text()
    assert [w for w in SECRETS if w in html or w in seen] == []


def test_a_voter_votes_by_keyboard_and_the_agents_are_never_named(browser, app):
    vote_runs(app.db)
    ctx, page = _page(browser, app, ADMIN)
    try:
        page.locator("#vs-vote-new").get_by_text("New vote campaign (admins)").click()
        field(page, "vs-vote-new-name").fill("taste")
        field(page, "vs-vote-new-pairs").fill("3")
        field(page, "vs-vote-new-annotators").fill("vera")
        page.click("#vs-vote-new-create")
        shows(page, "vs-vote-new-status", "Vote campaign taste made: 4 pairs (1 attention checks)")
    finally:
        ctx.close()

    ctx, page = _page(browser, app, VOTER)
    store = Store(app.db)
    answers: dict[str, str] = {}
    try:
        expect(page.locator("#vs-vote-voter")).to_be_hidden()  # the login votes: no name to type
        choose(page, "vs-vote-pick", "taste")
        shows(page, "vs-vote-progress", "vera: 0 voted, 4 left in your queue")
        page.click("#vs-vote-next")
        shows(page, "vs-vote-card", "Pair 1 · vote campaign taste")
        shows(page, "vs-vote-card", "Planning a Japan trip")  # the persona card first
        for part in IN_WINDOW:
            assert _in_window(page, part), (part, page.locator(part).bounding_box())
        _no_agent(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "vote_card.png"))
        field(page, "vs-vote-reason").fill("more concrete")
        page.locator("#vs-vote-pair").click()  # out of the text field: keys vote again
        for n, key in enumerate("axbt", start=1):
            answers[f"{n}a"] = page.locator("#vs-vote-answer-a").inner_text()
            answers[f"{n}b"] = page.locator("#vs-vote-answer-b").inner_text()
            page.keyboard.press(key)
            word = {"a": "A is better", "b": "B is better", "t": "a tie", "x": "both bad"}[key]
            shows(page, "vs-vote-status", f"Pair {n}: {word}.")
            _no_agent(page)
            if n < 4:
                shows(page, "vs-vote-card", f"Pair {n + 1} · vote campaign taste")
        shows(page, "vs-vote-status", "Your queue in vote campaign taste is empty")
        shows(page, "vs-vote-progress", "vera: 4 voted, 0 left in your queue · pairs done 4 / 4")
        expect(page.locator("#vs-vote-refused")).not_to_contain_text("Not stored")
        _no_agent(page)
    finally:
        ctx.close()
    votes = store.votes(campaign="taste")
    assert [(v.voter, v.winner) for v in votes] == [("vera", "a"), ("vera", "both_bad"), ("vera", "b"), ("vera", "tie")]
    assert votes[0].reason == "more concrete" and all(v.reason == "" for v in votes[1:])  # the box is emptied for the next pair
    text = final_answers(store, [r for v in votes for r in (v.run_a, v.run_b)])
    for n, v in enumerate(votes, start=1):  # run_a is the run whose answer was on the left
        for side, rid in (("a", v.run_a), ("b", v.run_b)):
            shown = answers[f"{n}{side}"]
            assert (re.sub(r"\s+", " ", shown).startswith(text[rid][:20]) if text[rid] else "no final answer" in shown), (n, side, shown)
    assert sum(1 for v in votes if v.attention) == 1
