"""Votes at the end of a study play in Chromium (issue 42): the app's database holds finished runs
of the persona from three configurations (the offline baseline beside the rule-based user, the
baseline beside the direct user, the ReAct agent on a scripted model), made by ``vibesearch run``;
a player opens their study link on a laptop's window (1366×768), plays to the end, and the page
offers two pairs of those runs, final answers only. Neither the voting card nor the rest of the
page names an agent, a model, a configuration or a run of a pair. The player picks A on the first
pair and "Both bad" on the second; both votes are stored under the study code's player name, with
the runs on the sides the page showed them."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from app_harness import run_cli, start_app, stop_app
from browser_kit import WAIT_MS, shows
from playwright.sync_api import expect

from vibesearch.store import Store

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_STUDY_SHOTS", "/tmp/study_shots"))
TASK = "daily-en-japan-heritage-trip"
OTHER_CONFIGS = ([], ["--user", "direct"], ["--agent", "react", "--model", "fake/app-agent"])
ADMIN = ("root", "pw-root")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study_votes")
    for extra in OTHER_CONFIGS:  # the other finished runs of the persona, before the app starts
        run_cli("run", "--tasks", TASK, *extra, "--db", str(tmp / "app.db"))
    env = {"VIBESEARCH_AUTH": f"{ADMIN[0]}:{ADMIN[1]}", "VIBESEARCH_ADMINS": ADMIN[0]}
    server = start_app(tmp, extra_env=env)
    yield server
    stop_app(server)


@pytest.fixture
def laptop(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(WAIT_MS)
    yield ctx
    ctx.close()


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{5,}", text)[:8]


def test_a_player_votes_after_the_play_and_never_sees_who_answered(app, laptop):
    from vibesearch.app import StudyConfig, create_study, player_prefix
    from vibesearch.app import final_answer
    from vibesearch.labels.study_votes import study_pairs
    from vibesearch.scoring.aggregate import config_key

    store = Store(app.db)
    others = store.list_runs()
    assert len(others) == 3 and {r.status for r in others} == {"finished"}
    assert len({config_key(r) for r in others}) == 3
    study, links = create_study(store, "Vote pilot", StudyConfig(tasks=(TASK,), agent="react", agent_model="fake/app-agent",
                                                                 simulator_model="fake/app-sim", time_limit_min=10), ADMIN[0])
    page = laptop.new_page()
    page.goto(app.url + links[0].path(study.id))
    expect(page.locator("#vs-study-door-title")).to_have_text("Vote pilot")
    page.click("#vs-study-door-go")
    page.click("#vs-player-agree")
    expect(page.locator("#vs-player-send")).to_be_enabled()
    page.locator("#vs-player-decision").get_by_label("done", exact=True).check()
    page.click("#vs-player-send")
    shows(page, "vs-player-status", "You may close this page")
    play_run = re.search(r"reference: `?([0-9a-f]{12})", page.locator("#vs-player-status").inner_text()).group(1)

    # the vote card under the thanks, with the first of two pairs
    shows(page, "vs-player-vote-head", "(2 left)")
    [code] = [c for c in store.study_codes(study.id) if c.run_id == play_run]
    player = str(code.player)
    assert player.startswith(player_prefix(study.id))
    pairs = study_pairs(store, play_run, player)  # what the page offers, in its order
    assert len(pairs) == 2 and all(play_run not in p for p in pairs)
    first = pairs[0]
    for side, rid in zip(("a", "b"), first):  # each side shows its run's final answer
        words = _words(final_answer(store.events(rid), store.get_run(rid)))
        assert words
        for w in words:
            expect(page.locator(f"#vs-player-vote-{side}")).to_contain_text(w)

    # no agent, model, configuration or run of a pair on the page: not in its text, not in its
    # elements (the page's scripts left out: Gradio's config of the whole app is there)
    dom = page.evaluate("""() => { const b = document.body.cloneNode(true);
        b.querySelectorAll('script').forEach(s => s.remove()); return b.innerHTML; }""")
    text = page.locator("body").inner_text()
    runs = [store.get_run(r) for p in pairs for r in p] + [store.get_run(play_run)]
    secrets = {"fake/app-agent", "fake/app-sim", "user rules", "user direct"}
    secrets |= {config_key(r) for r in runs} | {r.id for r in runs if r.id != play_run}
    secrets |= {r.agent_model for r in runs if r.agent_model}
    for secret in secrets:
        for hay in (dom, text):
            i = hay.find(secret)
            assert i < 0, f"{secret!r} on the player's page: ...{hay[max(0, i - 200):i + 100]}..."
    # the agents' kinds as words (in the text; in the vote card's elements)
    card = page.locator("#vs-player-vote").first.inner_html()  # a gr.Group draws its id on two nested divs: the outer one
    for hay in (text, card):
        assert not re.search(r"\b(baseline|react)\b", hay, re.IGNORECASE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "study_vote.png"), full_page=True)

    # A on the first pair, with a reason
    page.locator("#vs-player-vote-reason textarea").fill("clearer plan for me")
    page.click("#vs-player-vote-pick-a")
    shows(page, "vs-player-vote-head", "Stored: A is better.")
    shows(page, "vs-player-vote-head", "(1 left)")
    second = pairs[1]
    for side, rid in zip(("a", "b"), second):
        for w in _words(final_answer(store.events(rid), store.get_run(rid))):
            expect(page.locator(f"#vs-player-vote-{side}")).to_contain_text(w)
    expect(page.locator("#vs-player-vote-reason textarea")).to_have_value("")
    # "Both bad" on the second: the card goes, the thanks stay
    page.click("#vs-player-vote-pick-both_bad")
    shows(page, "vs-player-vote-status", "Stored: both bad. Thank you.")
    expect(page.locator("#vs-player-vote").first).to_be_hidden()
    shows(page, "vs-player-status", "You may close this page")
    expect(page.locator(".toast-body")).to_have_count(0)

    votes = store.votes(voter=player)
    assert [(v.run_a, v.run_b, v.winner, v.reason) for v in votes] == [
        (first[0], first[1], "a", "clearer plan for me"), (second[0], second[1], "both_bad", "")]
    assert [v.voter for v in store.votes()] == [player, player]  # nobody else's name
    assert play_run not in {r for v in votes for r in (v.run_a, v.run_b)}  # never the player's own play
