"""Blind or not, in Chromium at 1366×768: in a blind campaign the card, the verdict box, the run
list and every hover of the Label tab name neither the judge nor the run's agent or model before
the item is labelled, and the "show the verdicts" toggle is gone; once labelled, the judge's word on
it comes. In a judge-review campaign (not blind) the judge's verdict is on the card, marked."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from browser_kit import choose, fill, shows, tab
from label_blind_runs import AGENT, JUDGE, MODEL, scored_run
from playwright.sync_api import expect

from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))


def _absent(page, *words: str) -> None:
    """None of ``words`` on the Label tab: in its text, its markup (hovers, hidden parts) or the page's visible text."""
    panel = page.locator("#vs-label-panel").inner_html()
    seen = page.locator("body").inner_text()
    assert [w for w in words if w in panel or w in seen] == []


def test_a_blind_campaign_hides_judge_and_agent_and_a_review_shows_the_verdict(pages, app_server):
    tag = uuid.uuid4().hex[:6]
    person, blind, review = f"ann-{tag}", f"blind-{tag}", f"review-{tag}"
    hidden_run = scored_run(app_server.db)
    review_run = scored_run(app_server.db, agent="reviewagent", model="reviewmodel")
    store = Store(app_server.db)
    create_campaign(store, blind, runs=[hidden_run], annotators=[person], sides=["coverage"], overlap=1)
    create_campaign(store, review, runs=[review_run], annotators=[person], sides=["coverage"], overlap=1, blind=False)

    page = pages()
    page.set_viewport_size({"width": 1366, "height": 768})
    tab(page, "Label")
    fill(page, "vs-label-annotator", person)
    choose(page, "vs-camp-pick", blind)
    shows(page, "vs-camp-progress", "(blind)")
    expect(page.locator("#vs-label-show")).to_be_hidden()  # no "show the verdicts anyway" in a campaign
    page.click("#vs-camp-next")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 3")
    shows(page, "vs-label-verdict", "Blind: the judges' verdicts on this triple appear once you have labelled it")
    _absent(page, JUDGE, AGENT, MODEL, "rationale-q7", "Judge review")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "campaign_blind_card.png"))

    page.click("#vs-label-no")  # the judge called triple 1 covered
    shows(page, "vs-label-card", "Ground-truth triple 2 of 3")
    shows(page, "vs-label-progress", f"Triple 1: not covered (judge {JUDGE} disagrees)")  # its word, once labelled
    _absent(page, AGENT, MODEL)
    assert JUDGE not in page.locator("#vs-label-verdict").inner_html()  # nothing yet on triple 2

    choose(page, "vs-camp-pick", review)
    shows(page, "vs-camp-progress", "(not blind (judge review))")
    page.click("#vs-camp-next")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 3")
    shows(page, "vs-label-review", f"Judge review (this campaign is not blind) — the judge's verdict, for you to check: judge {JUDGE} says covered")
    shows(page, "vs-label-verdict", f"judge {JUDGE}: covered")
    _absent(page, AGENT, MODEL)  # a review shows the judge, not whose run it is
    page.screenshot(path=str(SHOTS / "campaign_review_card.png"))
