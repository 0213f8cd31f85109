"""The Study tab in Chromium: hand-built runs (a person beside the rule-based shadow, and the
simulator's own run of the same task) in the app's database; the fidelity report shows the
agreement, the confusion and the disagreeing turns, with the agent's text escaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_kit import shows, tab
from fidelity_runs import person_run, simulator_run
from playwright.sync_api import expect

from vibesearch.store import Store

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_STUDY_SHOTS", "/tmp/study_shots"))
MARKUP = "<b id='vs-injected'>bold?</b>"


@pytest.fixture(scope="module")
def study_runs(app_server) -> str:
    store = Store(app_server.db)
    run = person_run(store, "t1", 0.6, a2=MARKUP)
    simulator_run(store, "t1", 0.4)
    return run


def test_the_study_tab_shows_the_fidelity_report(pages, study_runs):
    page = pages()
    tab(page, "Study")
    page.click("#vs-study-show")
    shows(page, "vs-study-report", "Simulator rules")
    shows(page, "vs-study-report", "decisions agree 50%")
    shows(page, "vs-study-report", "Turns where they differ (2)")
    report = page.locator("#vs-study-report")
    expect(report).to_contain_text(MARKUP, use_inner_text=True)  # shown as text ...
    expect(page.locator("#vs-injected")).to_have_count(0)  # ... never as markup
    expect(report.locator("tr", has_text="pushed").first).to_be_visible()
    # pace as a picture: one box per side (people beside the rules shadow, the simulator's own)
    expect(page.locator("#vs-study-pace .js-plotly-plot")).to_be_visible()
    expect(page.locator("#vs-study-pace .legend")).to_contain_text("people (beside rules)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "study_view.png"), full_page=True)


def test_a_filter_that_matches_nothing_says_so(pages, study_runs):
    page = pages()
    tab(page, "Study")
    page.locator("#vs-study-task input, #vs-study-task textarea").first.fill("no-such-task")
    page.click("#vs-study-show")
    shows(page, "vs-study-report", "no finished run played by a person beside a shadow matches")


def test_a_transcript_draws_no_form_button_or_remote_image(browser, app_server):
    """A task's, an agent's and a page's text is shown, never drawn: a "log in again" form or a
    tracking pixel in a stored run appears as text in Runs, with no form, input or image element."""
    from browser_kit import wait_ready

    from vibesearch.run import EndEvent, MessageEvent, ToolCallEvent, ToolResultEvent

    store = Store(app_server.db)
    # the header of the Runs view shows the task (its title, here its id) and the model as text too
    task_id = "t1 ![](http://127.0.0.1:9/head.png) <form><input type='password'></form>"
    run = store.create_run(task_id, task_json={}, agent="react", agent_model="fake/**m** [x](http://127.0.0.1:9/l)", user="rules", status="finished")
    phishing = "Your session expired. <form action='http://127.0.0.1:9/steal'><input type='password' name='pw'><button>Log in again</button></form>"
    pixel = "![](http://127.0.0.1:9/pixel.png)"
    for data in (MessageEvent(role="user", content=phishing), ToolCallEvent(call_id="c1", tool="visit"),
                 ToolResultEvent(call_id="c1", tool="visit", content=pixel + " page text"),
                 MessageEvent(role="assistant", content=f"Here you go. {pixel} {phishing}", final=True), EndEvent(termination="done")):
        store.append(run.id, data)
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    try:
        page = ctx.new_page()
        page.goto(f"{app_server.url}?run={run.id}")
        wait_ready(page, tab="Runs")
        chat = page.locator("#vs-runs-chat")
        expect(chat).to_contain_text("Log in again", use_inner_text=True)
        expect(chat).to_contain_text("<form action=", use_inner_text=True)  # shown as text
        for element in ("form", "input", "button[type=submit]", "img[src*='127.0.0.1:9']"):
            expect(chat.locator(element)).to_have_count(0)
        header = page.locator("#vs-runs-header")
        expect(header).to_contain_text("t1 ![](http://127.0.0.1:9/head.png) <form><input type='password'></form>", use_inner_text=True)
        expect(header).to_contain_text("fake/**m** [x](http://127.0.0.1:9/l)", use_inner_text=True)
        for element in ("form", "input", "img", "a[href*='127.0.0.1:9']", "strong:text-is('m')"):
            expect(header.locator(element)).to_have_count(0)
    finally:
        ctx.close()
