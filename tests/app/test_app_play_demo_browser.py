"""The Play tab as a playtester and a demoer use it, in Chromium (Debian's, as the other browser
tests): an imported official trajectory replays at a fixed pace per event (not at import speed);
a person's turn puts the decision, the message box and Send in the first screen of a laptop and
says so in the status line; the decision starts unchosen and Send asks for one; Stop in a person's
run asks first (the question in the window at once, at 1440×1000) and then says the run is cancelled and unscored; Runs → Continue in Play sets
Play's form to the continued run. Fake models only; screenshots go to /tmp/play_shots/.

Every wait is on a state the page shows (elem_ids, visible text), never a fixed sleep; each test
makes what it needs, so any one passes alone and in any order.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from browser_kit import WAIT_MS, choose, fill, no_chat_toolbar, replay_event_no, shows, start, status_is, tab, text_of, wait_ready, your_turn
from playwright.sync_api import Page, expect

from vibesearch.app import MIN_EVENT_S, NOMINAL_GAP_S, visible
from vibesearch.store import Store

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("VIBESEARCH_PLAY_SHOTS", "/tmp/play_shots"))
JAPAN = "daily-en-japan-heritage-trip"
ANALYSIS = "pro-en-analysis-history"
LAPTOP = {"width": 1366, "height": 768}


def _shot(page: Page, name: str, *, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full)


@pytest.fixture
def laptop(browser, app_server):
    """A page on the app in a 1366×768 window (a laptop's), closed after the test."""
    ctx = browser.new_context(viewport=LAPTOP)
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(app_server.url)
    wait_ready(page)
    yield page
    ctx.close()


def _me_run(page: Page, task_id: str = JAPAN) -> str:
    choose(page, "vs-task", task_id)
    page.get_by_label("Me — I play the persona").check()
    rid = start(page)
    your_turn(page)
    return rid


def _in_window(page: Page, selector: str) -> dict:
    """The element's box in the window's coordinates, and whether it lies wholly inside it."""
    return page.locator(selector).evaluate(
        """(el) => { const r = el.getBoundingClientRect();
                     return {top: r.top, bottom: r.bottom, inside: r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0}; }"""
    )


# --------------------------------------------------------------------------- (a) the replay's pace
def test_an_imported_trajectory_replays_at_a_fixed_pace_per_event(pages, app_server, imported_run):
    events = Store(app_server.db).events(imported_run)
    page = pages()
    page.get_by_text("Replay a stored run", exact=True).click()
    fill(page, "vs-replay-run", imported_run)
    speed = page.locator("#vs-replay-speed")
    expect(speed.get_by_label("0.5×", exact=True)).to_be_visible()  # a slower speed for a demo
    speed.get_by_label("1×", exact=True).check()
    expect(speed.get_by_label("1×", exact=True)).to_be_checked()
    page.click("#vs-replay-start")
    shows(page, "vs-play-status", re.compile(rf"Replay of run {imported_run} · playing · "))
    shows(page, "vs-play-status", "no timing stored")  # says why the pace is a fixed one
    # the clock starts at a change seen on the page, as it stops at one: what the page shows lags
    # the server by a moment at both ends alike (starting at an event already shown once made 8
    # events seem to take 2.9 s where 3.5 s were due)
    shown = replay_event_no(page)
    page.wait_for_function(
        """(n) => { const m = /event (\\d+) \\//.exec(document.querySelector('#vs-play-status').innerText);
                    return m && +m[1] > n; }""",
        arg=shown,
    )
    first = replay_event_no(page)
    t0 = time.monotonic()
    # wait until 8 more events that draw something are shown, then look at the clock
    drawn = [i + 1 for i, ev in enumerate(events) if visible(ev) and i + 1 > first]
    target = drawn[7]
    page.wait_for_function(
        """(n) => { const m = /event (\\d+) \\//.exec(document.querySelector('#vs-play-status').innerText);
                    return m && +m[1] >= n; }""",
        arg=target,
    )
    elapsed = time.monotonic() - t0
    at = replay_event_no(page)
    shown_now = sum(1 for i in drawn if i <= at)
    # each drawn event waits NOMINAL_GAP_S ÷ 1 (the first may already have been due when the clock started)
    at_least = (shown_now - 1) * max(NOMINAL_GAP_S / 1.0, MIN_EVENT_S)
    assert elapsed >= at_least - 0.3, f"{shown_now} events in {elapsed:.2f}s; at 1× they take {at_least:.2f}s or more"
    assert elapsed <= at_least + NOMINAL_GAP_S + 15, f"{shown_now} events took {elapsed:.2f}s: the replay stalls"
    assert "finished" not in text_of(page, "vs-play-status")  # 1× is far from import speed
    # its tokens and cost were never recorded: "unknown", as in Runs, never a measured 0 / $0.0000
    shows(page, "vs-counters", "未知（未记录用量）")  # "unknown (usage not recorded)", in the (Chinese) task's language
    assert "$0.0000" not in text_of(page, "vs-counters")
    # the run form is folded while the replay plays (its controls sit beside the chat), and comes back
    expect(page.locator("#vs-task")).to_be_hidden()
    expect(page.locator("#vs-replay-pause")).to_be_in_viewport()
    _shot(page, "replay_imported_1x.png")
    page.click("#vs-form-show")
    expect(page.locator("#vs-task")).to_be_visible()
    expect(page.locator("#vs-form-show")).to_be_hidden()


# --------------------------------------------------------------------------- (b) a person's turn
def test_your_turn_controls_are_in_the_first_screen_of_a_laptop(laptop):
    page = laptop
    _me_run(page)
    shows(page, "vs-play-status", "your turn")  # the status line says whose move it is
    shows(page, "vs-human-turn", "Your turn")
    # Start sits low in the form (a laptop scrolls to it): the turn brings the controls into view,
    # and they are in the page's first screen too
    for top in (False, True):
        if top:
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_function("window.scrollY === 0")
        for sel in ("#vs-decision", "#vs-human-msg textarea", "#vs-send"):
            expect(page.locator(sel)).to_be_in_viewport(ratio=1)
            box = _in_window(page, sel)
            assert box["inside"], f"{sel} is outside the 1366×768 window ({'scrolled to the top' if top else 'when the turn came'}): {box}"
    # the decision starts unchosen, and Send without one asks for it
    expect(page.locator("#vs-decision input[type=radio]:checked")).to_have_count(0)
    page.click("#vs-send")
    expect(page.locator(".toast-body").filter(has_text="Choose what you do this turn")).to_be_visible()
    your_turn(page)  # nothing was sent
    shows(page, "vs-human-msg", "Shift+Enter sends")
    _shot(page, "your_turn_laptop.png")
    page.get_by_label("push (trigger not met)").check()
    fill(page, "vs-human-msg", "Tell me more about the temples, please.")
    page.click("#vs-send")
    shows(page, "vs-play-chat", "Tell me more about the temples, please.")
    your_turn(page)  # the next turn: the choice starts empty again
    expect(page.locator("#vs-decision input[type=radio]:checked")).to_have_count(0)
    box = _in_window(page, "#vs-send")
    assert box["inside"], box
    # the card names the next stage's line and fallback once each
    page.locator("#vs-human-card summary").filter(has_text="What each choice does").click()
    shows(page, "vs-human-card", "the Line above")
    card = text_of(page, "vs-human-card")
    assert card.count("the Line above") == 1 and card.count("Fallback above") >= 1, card
    # the chat offers no Clear (trash) or share button
    no_chat_toolbar(page, "vs-play-chat")
    _shot(page, "your_turn_laptop_full.png", full=True)
    page.click("#vs-stop")
    page.click("#vs-stop-yes")
    status_is(page, "cancelled")


def test_stop_in_a_persons_run_asks_first_and_says_what_happened(pages):
    page = pages()
    page.set_viewport_size({"width": 1440, "height": 1000})  # a desktop's window: the form ends near its bottom
    rid = _me_run(page, ANALYSIS)
    page.click("#vs-stop")
    shows(page, "vs-stop-confirm", "never scored")
    # the confirmation opens where the button is: in the window at once, its two buttons with it
    expect(page.locator("#vs-stop-confirm")).to_be_in_viewport(ratio=0.95)  # (its edge may sit a fraction of a pixel out)
    for button in ("#vs-stop-yes", "#vs-stop-no"):
        expect(page.locator(button)).to_be_in_viewport(ratio=1)
    _shot(page, "stop_confirm_1440.png")
    page.click("#vs-stop-no")  # changed their mind: the run goes on
    expect(page.locator("#vs-stop-confirm")).to_be_hidden()
    your_turn(page)
    assert "cancelled" not in text_of(page, "vs-play-status")
    page.click("#vs-stop")
    _shot(page, "stop_confirm.png")
    page.click("#vs-stop-yes")
    status_is(page, "cancelled")
    shows(page, "vs-play-status", "not scored")
    shows(page, "vs-play-score", "left out of every score")
    assert "Not scored yet" not in text_of(page, "vs-play-score")
    expect(page.locator("#vs-stop-confirm")).to_be_hidden()
    assert rid in text_of(page, "vs-play-status")
    _shot(page, "stop_cancelled.png", full=True)


# --------------------------------------------------------------------------- (c) Continue in Play
def test_continue_in_play_sets_the_form_to_the_continued_run(pages):
    page = pages()
    rid = _me_run(page, ANALYSIS)
    # the form is changed while the run goes on (another task, another user)
    choose(page, "vs-task", JAPAN)
    page.get_by_label("Rule-based simulator (offline)").check()
    page.get_by_label("ReAct agent with a model").check()
    tab(page, "Runs")
    fill(page, "vs-runs-id", rid)
    page.click("#vs-runs-open")
    shows(page, "vs-runs-header", rid)
    expect(page.locator("#vs-runs-continue")).to_be_visible()
    page.click("#vs-runs-continue")
    expect(page.get_by_role("tab", name="Play", exact=True)).to_have_attribute("aria-selected", "true")
    your_turn(page)
    expect(page.locator("#vs-task input")).to_have_value(re.compile(re.escape(ANALYSIS)))
    expect(page.get_by_label("Me — I play the persona")).to_be_checked()
    expect(page.get_by_label("Offline baseline (retrieval + oracle reader)")).to_be_checked()
    shows(page, "vs-persona", ANALYSIS)
    _shot(page, "continue_in_play.png")
    page.click("#vs-stop")
    page.click("#vs-stop-yes")
    status_is(page, "cancelled")


def test_continue_ends_a_replay_playing_in_play(pages, app_server, imported_run):
    """Runs → Continue while Play replays another run: the replay stops (its timer would draw
    over the continued run) and the run form comes back."""
    page = pages()
    other = page.context.new_page()  # a second tab of the same browser: the same person
    other.set_default_timeout(WAIT_MS)
    other.goto(app_server.url)
    wait_ready(other)
    other.get_by_text("Replay a stored run", exact=True).click()
    fill(other, "vs-replay-run", imported_run)
    other.locator("#vs-replay-speed").get_by_label("0.5×", exact=True).check()
    other.click("#vs-replay-start")
    shows(other, "vs-play-status", re.compile(rf"Replay of run {imported_run} · playing"))
    expect(other.locator("#vs-task")).to_be_hidden()  # folded while replaying
    rid = _me_run(page, ANALYSIS)  # the first tab starts a run of the person's own
    tab(other, "Runs")
    fill(other, "vs-runs-id", rid)
    other.click("#vs-runs-open")
    shows(other, "vs-runs-header", rid)
    other.click("#vs-runs-continue")
    expect(other.get_by_role("tab", name="Play", exact=True)).to_have_attribute("aria-selected", "true")
    your_turn(other)
    shows(other, "vs-play-status", rid)
    assert "Replay of run" not in text_of(other, "vs-play-status")
    expect(other.locator("#vs-replay-pause")).to_be_disabled()
    expect(other.locator("#vs-task")).to_be_visible()
    expect(other.locator("#vs-form-show")).to_be_hidden()
    _shot(other, "continue_ends_replay.png")
    other.click("#vs-stop")
    other.click("#vs-stop-yes")
    status_is(other, "cancelled")
