"""In Chromium, two real app servers on one PostgreSQL database, with logins on both (the same
``VIBESEARCH_AUTH``): ann starts a simulated run on A; root (an admin), in another browser on B,
follows it live in the Runs tab and stops it, and A cancels it. Then A is killed mid-run
(SIGKILL): once its lease has expired, B's Refresh closes the run as interrupted, once. Waits are
on states the page shows (``browser_kit``) or on the database, never fixed sleeps."""

from __future__ import annotations

import os
import re
import signal

import pytest
from app_harness import AppServer, start_app, stop_app
from browser_kit import WAIT_MS, grid_row, options, shows, start, status_is, tab, text_of, wait_ready
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sec_kit import wait_for

from vibesearch.runner.orphans import ORPHAN_NOTE
from vibesearch.store import Store, upgrade_database
from vibesearch.store.leases import holder, run_key

pytestmark = pytest.mark.browser

USERS = {"ann": "pw-ann", "root": "pw-root"}
LEASE_TTL_S = 5  # the driver renews every third of it; a dead driver's runs are orphans after it


@pytest.fixture(scope="module")
def lab(pg_cluster, tmp_path_factory):
    url = pg_cluster.new_database()
    upgrade_database(url)
    env = {
        "VIBESEARCH_DB": url,
        "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()),
        "VIBESEARCH_ADMINS": "root",
        "VIBESEARCH_SECRET_KEY": "the-lab-shares-this",
        "VIBESEARCH_LEASE_TTL_S": str(LEASE_TTL_S),
    }
    started: list[AppServer] = []
    try:
        for name in ("a", "b"):
            started.append(start_app(tmp_path_factory.mktemp(f"lab-{name}"), extra_env=env))
        yield url, started[0], started[1]
    finally:
        for server in started:
            stop_app(server)


def signed_in(browser: Browser, url: str, login: str) -> tuple[BrowserContext, Page]:
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.get_by_label("username").fill(login)
    page.get_by_label("password").fill(USERS[login])
    page.get_by_role("button", name="Login").click()
    wait_ready(page)
    return ctx, page


def start_slow_run(page: Page) -> str:
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent-slow"})
    rid = start(page)
    status_is(page, "running")
    return rid


def open_run(page: Page, run_id: str) -> None:
    tab(page, "Runs")
    page.locator("#vs-runs-id textarea, #vs-runs-id input").first.fill(run_id)
    page.click("#vs-runs-open")
    shows(page, "vs-runs-header", run_id)


def test_a_run_on_a_is_watched_and_stopped_from_b_then_a_dies(browser, lab, screenshots):
    url, a, b = lab
    store = Store(url)
    contexts: list[BrowserContext] = []
    try:
        ctx1, ann = signed_in(browser, a.url, "ann")
        ctx2, root = signed_in(browser, b.url, "root")
        contexts += [ctx1, ctx2]
        rid = start_slow_run(ann)

        # root, on B, follows it: running, and the transcript grows while it is open
        open_run(root, rid)
        shows(root, "vs-runs-header", "status running")
        seen = len(text_of(root, "vs-runs-chat"))
        root.wait_for_function("([id, n]) => document.getElementById(id).innerText.length > n", arg=["vs-runs-chat", seen])
        expect(root.locator("#vs-runs-stop")).to_be_visible()
        root.click("#vs-runs-stop")
        shows(root, "vs-runs-header", re.compile(r"status cancelled \(cancelled\)"))
        status_is(ann, "cancelled")  # A carried it out; its own page says so
        run = store.get_run(rid)
        assert (run.status, run.termination) == ("cancelled", "cancelled")
        assert store.stop_request(rid) is not None and not store.stop_request(rid).pending
        root.screenshot(path=str(screenshots / "runs_stopped_from_another_server.png"), full_page=True)

        # A dies mid-run: after its lease expires, B's Refresh closes the run as interrupted
        ann.get_by_role("tab", name="Play", exact=True).click()
        second = start(ann)
        status_is(ann, "running")
        os.killpg(a.proc.pid, signal.SIGKILL)
        a.proc.wait(timeout=30)
        assert store.get_run(second).status == "running"
        wait_for(lambda: holder(store, run_key(second)) is None, LEASE_TTL_S + 30, "A's lease to expire")
        tab(root, "Runs")
        root.click("#vs-runs-refresh")
        grid_row(root, "vs-runs-table", second, "interrupted")
        root.click("#vs-runs-refresh")  # a second look closes nothing more
        grid_row(root, "vs-runs-table", second, "interrupted")
        open_run(root, second)
        shows(root, "vs-runs-header", "status interrupted")
        expect(root.locator("#vs-runs-continue")).to_be_visible()  # an admin may continue it on B
        notes = [e for e in store.events(second, kinds=["note"]) if e.data.text == ORPHAN_NOTE]
        assert len(notes) == 1
    finally:
        for ctx in contexts:
            ctx.close()
