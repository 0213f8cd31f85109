"""A study's door in Chromium: the admin's consent text and study name hold a Markdown image and an
``<img>`` of a "remote" host (a listener on another port of 127.0.0.1 recording every request);
the player reads the consent, and no request reaches that host (issue 40 item 4)."""

from __future__ import annotations

import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS
from playwright.sync_api import expect
from sec_kit import Listener, wait_for

from vibesearch.app import StudyConfig, create_study
from vibesearch.store import Store

pytestmark = pytest.mark.browser
TASK = "daily-en-japan-heritage-trip"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = start_app(tmp_path_factory.mktemp("web4b"), extra_env={"VIBESEARCH_AUTH": "root:pw-root", "VIBESEARCH_ADMINS": "root"})
    yield server
    stop_app(server)


def test_the_consent_on_a_players_door_loads_no_remote_image(browser, app):
    remote = Listener()
    try:
        consent = (f"You agree that what you type is stored. ![seal]({remote.url}/md.png) "
                   f"<img src='{remote.url}/tag.png'>\n\n[terms]({remote.url}/terms)")
        study, links = create_study(Store(app.db), f"Pilot ![logo]({remote.url}/name.png)",
                                    StudyConfig(tasks=(TASK,), consent=consent), "user:root")
        ctx = browser.new_context()
        ctx.set_default_timeout(WAIT_MS)
        try:
            page = ctx.new_page()
            page.goto(app.url + links[0].path(study.id))
            page.click("#vs-study-door-go")
            shown = page.locator("#vs-player-consent-text")
            expect(shown).to_contain_text("You agree that what you type is stored.")
            expect(page.locator("#vs-player-agree")).to_be_visible()
            expect(page.locator("#vs-player-title")).to_contain_text("Pilot")
            # what the page drew: no picture of the remote host, the link still a link
            assert page.locator(f"img[src^='{remote.url}']").count() == 0
            expect(shown.locator(f"a[href='{remote.url}/terms']")).to_have_count(1)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        finally:
            ctx.close()
        assert remote.seen() == [], remote.seen()
    finally:
        remote.close()


def test_the_log_out_button_posts_and_ends_the_login(browser, app):
    ctx = browser.new_context()
    ctx.set_default_timeout(WAIT_MS)
    try:
        assert ctx.request.post(app.url + "login", form={"username": "root", "password": "pw-root"}).status == 200
        page = ctx.new_page()
        page.goto(app.url)
        expect(page.locator("#vs-db-path")).to_contain_text("app.db")  # an admin sees the database
        with page.expect_response(lambda r: r.url.endswith("/logout")) as answer:
            page.click("#vs-logout-btn")
        assert answer.value.request.method == "POST" and answer.value.status == 303
        wait_for(lambda: ctx.request.get(app.url + "gradio_api/user").json() is None, 30, "the login to end")
    finally:
        ctx.close()
