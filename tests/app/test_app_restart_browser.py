"""A person's "me" run continued after the app restarts, in Chromium at 1366×768, with the README's
set-up (no VIBESEARCH_SECRET_KEY): the server keeps its secret beside the database, so the browser's
owner token still names the person; the run the old server left is interrupted (not "running"),
and the person continues it from the Runs tab and plays on in Play. Another browser sees the run
but is told why it may not continue it."""

from __future__ import annotations

import pytest
from app_harness import free_port, start_app, stop_app
from browser_kit import WAIT_MS, choose, fill, shows, start, tab, wait_ready, your_turn
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
TASK = "daily-en-japan-heritage-trip"


def _context(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(WAIT_MS)
    return ctx


def test_a_me_run_is_continued_after_a_restart_without_a_configured_secret(browser, tmp_path):
    port = free_port()
    server = start_app(tmp_path, fakes=False, port=port)
    me = _context(browser)
    try:
        page = me.new_page()
        page.goto(server.url)
        wait_ready(page)
        choose(page, "vs-task", TASK)
        page.get_by_label("Me — I play the persona").check()
        run_id = start(page)
        your_turn(page)
        page.get_by_label("push (trigger not met)").check()
        fill(page, "vs-human-msg", "Which of them can I see in two days?")
        page.click("#vs-send")
        shows(page, "vs-play-chat", "Which of them can I see in two days?")
        your_turn(page)
    finally:
        stop_app(server)

    again = start_app(tmp_path, fakes=False, port=port)
    stranger = _context(browser)
    try:
        page.goto(again.url)  # the same browser (its stored token) at the same address
        wait_ready(page)
        tab(page, "Runs")
        fill(page, "vs-runs-id", run_id)
        page.click("#vs-runs-open")
        shows(page, "vs-runs-header", "interrupted")
        expect(page.locator("#vs-runs-continue")).to_be_visible()
        other = stranger.new_page()
        other.goto(again.url)
        wait_ready(other)
        tab(other, "Runs")
        fill(other, "vs-runs-id", run_id)
        other.click("#vs-runs-open")
        shows(other, "vs-runs-header", "Continue is not offered to you")
        expect(other.locator("#vs-runs-continue")).to_be_hidden()
        page.click("#vs-runs-continue")
        your_turn(page)  # back in Play, the person's turn again
        shows(page, "vs-play-chat", "Which of them can I see in two days?")
        page.get_by_label("done").first.check()
        page.click("#vs-send")
        shows(page, "vs-play-status", "finished")
    finally:
        me.close()
        stranger.close()
        stop_app(again)
