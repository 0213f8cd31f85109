"""Campaigns made where they are labelled (issue 39 item 8), in Chromium at 1366×768: an admin
opens "New campaign" under the Label tab's picker, picks a run, names two annotators and creates
it (a judge review: "Blind", ticked by default, unticked); the picker offers it at once. A logged-in annotator who is not an admin is refused, both when
the form opens and when they press Create anyway; nothing is stored for them."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS, choose, field, shows, tab
from label_runs import new_run
from playwright.sync_api import expect

from vibesearch.store import Store

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))
ADMIN, ANN = ("root", "pw-root-1"), ("ann", "pw-ann-1")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {"VIBESEARCH_AUTH": f"{ADMIN[0]}:{ADMIN[1]},{ANN[0]}:{ANN[1]}", "VIBESEARCH_ADMINS": ADMIN[0]}
    server = start_app(tmp_path_factory.mktemp("campaign-new"), extra_env=env)
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
    return ctx, page


def test_an_admin_makes_a_campaign_in_the_label_tab_and_an_annotator_cannot(browser, app):
    run_id = new_run(app.db, 4)
    name = f"pilot-{uuid.uuid4().hex[:6]}"
    ctx, page = _page(browser, app, ADMIN)
    try:
        page.locator("#vs-camp-new").get_by_text("New campaign (admins)").click()
        field(page, "vs-camp-new-name").fill(name)
        page.locator("#vs-camp-new-runs input").click()  # a multiselect: the pick becomes a token
        page.get_by_role("option", name=re.compile(re.escape(run_id))).click()
        page.keyboard.press("Escape")
        expect(page.locator("#vs-camp-new-runs")).to_contain_text(run_id)
        field(page, "vs-camp-new-annotators").fill("ann, bob")
        blind = page.locator("#vs-camp-new-blind input[type=checkbox]")
        expect(blind).to_be_checked()  # blind unless the admin says otherwise
        blind.uncheck()  # a judge review
        page.click("#vs-camp-new-create")
        shows(page, "vs-camp-new-status", f"Campaign {name} made: 1 runs")
        shows(page, "vs-camp-new-status", "not blind (judge review)")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "campaign_new_admin.png"))
        choose(page, "vs-camp-pick", name)  # offered at once: label it right here
        shows(page, "vs-camp-progress", "0 /")
    finally:
        ctx.close()
    row = Store(app.db).campaign(name)
    assert row is not None and row.run_ids() == [run_id] and row.annotators() == ["ann", "bob"] and row.created_by == ADMIN[0]
    assert row.blind is False

    ctx, page = _page(browser, app, ANN)
    try:
        page.locator("#vs-camp-new").get_by_text("New campaign (admins)").click()
        shows(page, "vs-camp-new-status", "Only an admin")
        field(page, "vs-camp-new-name").fill("not mine")
        field(page, "vs-camp-new-annotators").fill("ann")
        page.click("#vs-camp-new-create")
        shows(page, "vs-camp-new-status", "Not created: Only an admin")
    finally:
        ctx.close()
    assert Store(app.db).campaign("not mine") is None
