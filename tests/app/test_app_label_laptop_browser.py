"""The Label tab in a laptop's window (1366×768, issue 39 item 11), in Chromium: once a card is
shown, the card, its y / n buttons and the evidence list beside it are all in the window, and stay
there while labels come in (the page does not scroll, the list scrolls in its own box); with a
login the labels go under it and no annotator-name band is shown.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS, choose, fill, shows, tab, wait_ready
from playwright.sync_api import Page, expect

from label_runs import new_run
from vibesearch.store import Store

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))
LAPTOP = {"width": 1366, "height": 768}
IN_WINDOW = ("#vs-label-card", "#vs-label-yes", "#vs-label-no", "#vs-label-evidence")


@pytest.fixture(scope="module")
def login_app(tmp_path_factory):
    server = start_app(tmp_path_factory.mktemp("label-login"), extra_env={"VIBESEARCH_AUTH": "lena:pw-lena"})
    yield server
    stop_app(server)


def wholly_in_window(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate(
        "(el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }"))


def label_five(page: Page, name: str, shot: str) -> None:
    """Start labelling, then five labels by keys; the card and its evidence stay in the window throughout."""
    page.click("#vs-label-load")
    shows(page, "vs-label-card", re.compile(r"Ground-truth triple 1 of \d+"))
    expect(page.locator("#vs-label-evidence input[type=checkbox]").first).to_be_visible()
    expect(page.locator("#vs-label-card")).to_be_in_viewport(ratio=0.95)  # scrolled to the window's top (to a fraction of a pixel)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / shot))
    scrolled = page.evaluate("() => window.scrollY")
    for i in range(1, 6):
        page.keyboard.press("1")
        page.keyboard.press("y")
        shows(page, "vs-label-card", f"Ground-truth triple {i + 1} of 30")
        shows(page, "vs-label-progress", f"{i} / 30 ground-truth triples labelled by {name}")
        for part in IN_WINDOW:
            assert wholly_in_window(page, part), (i, part, page.locator(part).bounding_box())
        assert abs(page.evaluate("() => window.scrollY") - scrolled) <= 1, (i, scrolled)


def test_card_buttons_and_evidence_fit_a_laptops_window(browser, app_server):
    run_id = new_run(app_server.db)
    ctx = browser.new_context(viewport=LAPTOP)
    ctx.set_default_timeout(WAIT_MS)
    try:
        page = ctx.new_page()
        page.goto(app_server.url)
        wait_ready(page)
        tab(page, "Label")
        expect(page.locator("#vs-label-annotator")).to_be_visible()  # no login: the name is typed
        choose(page, "vs-label-run", run_id)
        fill(page, "vs-label-annotator", "laptop-ann")
        label_five(page, "laptop-ann", "laptop_label.png")
    finally:
        ctx.close()
    assert len(Store(app_server.db).labels(run_id=run_id, annotator="laptop-ann")) == 5


def test_with_a_login_no_name_band_and_labels_go_under_the_login(browser, login_app):
    run_id = new_run(login_app.db)
    ctx = browser.new_context(viewport=LAPTOP)
    ctx.set_default_timeout(WAIT_MS)
    try:
        assert ctx.request.post(login_app.url + "login", form={"username": "lena", "password": "pw-lena"}).status == 200
        page = ctx.new_page()
        page.goto(login_app.url)
        wait_ready(page)
        tab(page, "Label")
        choose(page, "vs-label-run", run_id)
        expect(page.locator("#vs-label-annotator")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "laptop_label_login_top.png"))
        label_five(page, "lena", "laptop_label_login.png")
    finally:
        ctx.close()
    assert [r.gt_index for r in Store(login_app.db).labels(run_id=run_id, annotator="lena")] == [0, 1, 2, 3, 4]
