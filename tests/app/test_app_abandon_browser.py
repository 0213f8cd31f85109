"""In Chromium, with logins on: a "me" run left alone past a short idle timeout becomes
``abandoned`` (Start greyed while it went, enabled again after), and its owner continues it from
a second browser from the Runs tab, where another login sees no Continue. Waits are on states the
page shows (``browser_kit``); the idle timeout is the app's setting, a few seconds here."""

from __future__ import annotations

import re

import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS, choose, fill, shows, start, status_is, tab, text_of, wait_ready, your_turn
from playwright.sync_api import Browser, BrowserContext, Page, expect

pytestmark = pytest.mark.browser

USERS = {"alice": "pw-a", "bob": "pw-b", "carol": "pw-c", "dave": "pw-d"}
JAPAN = "daily-en-japan-heritage-trip"
# The idle clock starts when the session waits for the person, not when their page shows it: after
# Continue, the tick that draws the turn, ticking "done" and the click on Send all come out of this
# on a loaded two-core machine (two test processes, each with Chromium and an app); at 12 s a CI run
# let it expire again before Send, and the button went with the controls. Each test waits it once.
IDLE_S = 25


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    env = {
        "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()),
        "VIBESEARCH_ADMINS": "carol",
        "VIBESEARCH_HUMAN_IDLE_TIMEOUT_S": str(IDLE_S),
    }
    server = start_app(tmp_path_factory.mktemp("abandonapp"), extra_env=env)
    yield server
    stop_app(server)


@pytest.fixture(scope="module")
def api_run(app_server) -> str:
    """dave's run started through the API, left alone: its idle clock starts with the module, so
    it runs beside the browser test's own instead of after it (each waits IDLE_S once)."""
    from gradio_client import Client

    dave = Client(app_server.url, auth=("dave", USERS["dave"]), verbose=False)
    return dave.predict(JAPAN, "baseline", "human", "", "", "", "offline", 3, api_name="/start_run")


def signed_in(browser: Browser, url: str, login: str) -> tuple[BrowserContext, Page]:
    """A fresh browser (context) signed in as ``login`` with the app ready."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.get_by_label("username").fill(login)
    page.get_by_label("password").fill(USERS[login])
    page.get_by_role("button", name="Login").click()
    wait_ready(page)
    return ctx, page


def open_run(page: Page, run_id: str) -> None:
    tab(page, "Runs")
    fill(page, "vs-runs-id", run_id)
    page.click("#vs-runs-open")
    shows(page, "vs-runs-header", run_id)


def test_an_abandoned_me_run_is_continued_by_its_owner_from_another_browser(browser, app_server, api_run, screenshots):
    # (api_run: started first so its idle wait overlaps this test's; this test does not touch it)
    contexts: list[BrowserContext] = []
    try:
        ctx_a, first = signed_in(browser, app_server.url, "alice")
        contexts.append(ctx_a)
        choose(first, "vs-task", JAPAN)
        first.get_by_label("Me — I play the persona").check()
        rid = start(first)
        your_turn(first)
        expect(first.locator("#vs-start")).to_be_disabled()  # greyed while the person's run goes
        # alice walks away: after the idle timeout the run is abandoned and Start is back
        status_is(first, "abandoned")
        expect(first.locator("#vs-start")).to_be_enabled()
        shows(first, "vs-play-chat", "Run ended (abandoned)")

        # bob (another login) opens it and is offered neither Continue nor Stop
        ctx_b, other = signed_in(browser, app_server.url, "bob")
        contexts.append(ctx_b)
        open_run(other, rid)
        shows(other, "vs-runs-header", "status abandoned")
        expect(other.locator("#vs-runs-continue")).to_be_hidden()
        expect(other.locator("#vs-runs-stop")).to_be_hidden()

        # alice, in a second browser, continues it from the Runs tab and finishes it in Play
        ctx_c, second = signed_in(browser, app_server.url, "alice")
        contexts.append(ctx_c)
        open_run(second, rid)
        expect(second.locator("#vs-runs-stop")).to_be_visible()
        second.click("#vs-runs-continue")
        expect(second.get_by_role("tab", name="Play", exact=True)).to_have_attribute("aria-selected", "true")
        your_turn(second)  # the idle clock runs again from here: answer at once
        second.get_by_label("done", exact=True).check()
        second.click("#vs-send")
        status_is(second, "finished")
        shows(second, "vs-play-score", "offline judge")
        expect(second.locator("#vs-start")).to_be_enabled()
        assert rid in text_of(second, "vs-play-status")
        assert re.search(r"Run ended \(abandoned\)", text_of(second, "vs-play-chat"))  # the history stays
        second.screenshot(path=str(screenshots / "play_abandoned_continued.png"), full_page=True)
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_api_continues_and_stops_an_abandoned_run(app_server, api_run):
    """The same through the API: only the owner continues; an admin stops it for good."""
    from gradio_client import Client
    from sec_kit import wait_for

    dave = Client(app_server.url, auth=("dave", USERS["dave"]), verbose=False)
    bob = Client(app_server.url, auth=("bob", USERS["bob"]), verbose=False)
    carol = Client(app_server.url, auth=("carol", USERS["carol"]), verbose=False)
    rid = api_run
    wait_for(lambda: dave.predict(rid, api_name="/run_status")["status"] == "abandoned", 120, "the run to be abandoned")
    with pytest.raises(Exception, match="belongs to another"):
        bob.predict(rid, api_name="/continue_run")
    assert dave.predict(rid, api_name="/continue_run") == "continuing"
    wait_for(lambda: dave.predict(rid, api_name="/run_status")["waiting_for_person"], 60, "the person's turn again")
    # "stopping" while the run waits for dave; "stopped" when a loaded machine let the idle
    # timeout end it again first (nobody drives it then, so the stop closes it at once)
    assert carol.predict(rid, api_name="/stop_run") in ("stopping", "stopped")
    wait_for(lambda: dave.predict(rid, api_name="/run_status")["status"] == "cancelled", 60, "the run to be cancelled")
