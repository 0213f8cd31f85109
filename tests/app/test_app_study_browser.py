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
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "study_view.png"), full_page=True)


def test_a_filter_that_matches_nothing_says_so(pages, study_runs):
    page = pages()
    tab(page, "Study")
    page.locator("#vs-study-task input, #vs-study-task textarea").first.fill("no-such-task")
    page.click("#vs-study-show")
    shows(page, "vs-study-report", "no finished run played by a person beside a shadow matches")
