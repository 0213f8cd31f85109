"""A study for outside players in Chromium: an admin makes one (one persona, two plays, the ReAct
agent on a scripted model, the shadow on the scripted simulator, a 20-second time limit) and gets
two links; two players in two browser contexts open them, each with a one-time code and no account:
the first plays to the end, the second is left idle and the time limit ends the play as abandoned.
The first cannot reach the second's run; a used code opens nothing; the Study view shows 1 done
and 1 abandoned with the fidelity table of the finished play; the agent's model is nowhere on a
player's page (the DOM and the page config)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx
import pytest
from app_harness import start_app, stop_app
from browser_kit import WAIT_MS, field, no_chat_toolbar, shows, tab
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("VIBESEARCH_STUDY_SHOTS", "/tmp/study_shots"))
TASK = "daily-en-japan-heritage-trip"
AGENT_MODEL = "fake/app-agent"
LIMIT_MIN = 20 / 60
ADMIN = ("root", "pw-root")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = {"VIBESEARCH_AUTH": f"{ADMIN[0]}:{ADMIN[1]},ann:pw-ann", "VIBESEARCH_ADMINS": ADMIN[0]}
    server = start_app(tmp_path_factory.mktemp("studies"), extra_env=env)
    yield server
    stop_app(server)


def _context(browser, *, laptop: bool = False):
    """A browser context; a player's is a laptop's window (1366×768)."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768} if laptop else {"width": 1400, "height": 1000})
    ctx.set_default_timeout(WAIT_MS)
    return ctx


def _admin_page(browser, app):
    ctx = _context(browser)
    assert ctx.request.post(app.url + "login", form={"username": ADMIN[0], "password": ADMIN[1]}).status == 200
    page = ctx.new_page()
    page.goto(app.url)
    expect(page.locator("#vs-start")).to_be_visible()
    return ctx, page


def _make_study(page) -> tuple[str, list[str]]:
    tab(page, "Study")
    page.locator("#vs-studies").get_by_text("Studies for outside players (admins)").click()
    field(page, "vs-study-name").fill("Heritage pilot")
    page.locator("#vs-study-tasks input").click()
    page.get_by_role("option", name=re.compile(re.escape(TASK))).click()
    page.keyboard.press("Escape")
    page.locator("#vs-study-agent input").click()
    page.get_by_role("option", name="react", exact=True).click()
    field(page, "vs-study-agent-model").fill(AGENT_MODEL)
    field(page, "vs-study-sim-model").fill("fake/app-sim")
    field(page, "vs-study-plays").fill("2")
    field(page, "vs-study-limit").fill(f"{LIMIT_MIN:.4f}")
    field(page, "vs-study-consent").fill("You agree that what you type is stored. <b id='vs-injected'>x</b>")
    page.click("#vs-study-create")
    shows(page, "vs-study-created", "2 link(s)")
    text = field(page, "vs-study-links").input_value()
    links = [line.split("\t", 1)[1] for line in text.splitlines() if "\t" in line]
    sid = re.search(r"`([0-9a-f]{8})`", page.locator("#vs-study-created").inner_text() or "") or re.search(r"study/([0-9a-f]{8})", text)
    assert len(links) == 2 and sid, text
    return sid.group(1), links


def _join(browser, link: str):
    ctx = _context(browser, laptop=True)
    page = ctx.new_page()
    page.goto(link)
    expect(page.locator("#vs-study-door-title")).to_have_text("Heritage pilot")
    page.click("#vs-study-door-go")
    expect(page.locator("#vs-player-agree")).to_be_visible()
    return ctx, page


def _config_of(page) -> str:
    return page.evaluate("async () => JSON.stringify(await (await fetch('config')).json())")


def test_two_players_one_finishes_one_is_abandoned(browser, app):
    admin_ctx, admin = _admin_page(browser, app)
    contexts = [admin_ctx]
    try:
        sid, links = _make_study(admin)
        # player 1: consent (escaped), the persona card, then one turn and "done"
        p1_ctx, p1 = _join(browser, links[0])
        contexts.append(p1_ctx)
        expect(p1.locator("#vs-player-consent-text")).to_contain_text("<b id='vs-injected'>", use_inner_text=True)
        expect(p1.locator("#vs-injected")).to_have_count(0)
        expect(p1.locator("#vs-main")).to_be_hidden()
        p1.click("#vs-player-agree")
        # player 2 starts too, then never answers
        p2_ctx, p2 = _join(browser, links[1])
        contexts.append(p2_ctx)
        p2.click("#vs-player-agree")
        expect(p1.locator("#vs-player-send")).to_be_enabled()
        shows(p1, "vs-player-status", "Your turn")
        # Play's turn layout: the decision, the message (with its Shift+Enter hint) and Send are in
        # the first screen of the laptop, with the page not scrolled
        # (quick checks: the play's time limit is running)
        assert p1.evaluate("window.scrollY") == 0
        assert p1.evaluate("""() => ['#vs-player-decision', '#vs-player-msg textarea', '#vs-player-send'].every(s => {
            const r = document.querySelector(s).getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; })""")
        assert "Shift+Enter sends" in p1.locator("#vs-player-msg").inner_text()
        p1.locator("#vs-player-decision").get_by_label("done", exact=True).check()
        p1.click("#vs-player-send")
        shows(p1, "vs-player-status", "finished")
        shows(p1, "vs-player-status", "You may close this page")
        # no "Use via API" for a player (it is there for everyone else)
        expect(p1.locator("footer .show-api")).to_be_hidden()
        expect(admin.locator("footer .show-api")).to_be_visible()
        # the time limit ends player 2's play
        shows(p2, "vs-player-status", "abandoned")
        p1_run = re.search(r"reference: `?([0-9a-f]{12})", p1.locator("#vs-player-status").inner_text()).group(1)
        p2_run = re.search(r"reference: `?([0-9a-f]{12})", p2.locator("#vs-player-status").inner_text()).group(1)
        assert p1_run != p2_run
        SHOTS.mkdir(parents=True, exist_ok=True)
        p1.screenshot(path=str(SHOTS / "study_player.png"), full_page=True)

        # the shadow decided silently; no error reached a player
        assert "shadow" not in p1.locator("#vs-player-chat").inner_text().lower()
        no_chat_toolbar(p1, "vs-player-chat")
        for page in (p1, p2):
            expect(page.locator(".toast-body")).to_have_count(0)
        # the agent's model is nowhere on a player's page, nor in what the page can fetch
        for page in (p1, p2):
            assert AGENT_MODEL not in page.content()
            assert AGENT_MODEL not in _config_of(page)
        # player 1 cannot reach player 2's run: not by a link, not by calling the Runs tab
        p1.goto(f"{app.url}?run={p2_run}")
        expect(p1.locator("#vs-player-chat")).to_be_visible()
        assert p2_run not in p1.content()
        config = json.loads(_config_of(p1))
        runs_open = next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "vs-runs-open")
        fn = next(d["id"] for d in config["dependencies"] if [runs_open, "click"] in [list(t) for t in d["targets"]])
        refused = p1_ctx.request.post(app.url + "gradio_api/queue/join", data=json.dumps(
            {"data": [None, p2_run], "fn_index": fn, "session_hash": "p1tries", "event_data": None, "trigger_id": None}),
            headers={"Content-Type": "application/json", "Origin": app.url.rstrip("/")})
        assert refused.status == 403 and "can only play" in refused.text()
        # a used code opens nothing, and a code of this study does not open another one
        p3_ctx = _context(browser)
        contexts.append(p3_ctx)
        p3 = p3_ctx.new_page()
        p3.goto(links[0])
        p3.click("#vs-study-door-go")
        expect(p3.locator("body")).to_contain_text("used already")
        expect(p3.locator("#vs-player")).to_have_count(0)

        # the admin's view: 1 done, 1 abandoned, the fidelity of the finished play
        admin.locator("#vs-study-pick input").click()
        admin.get_by_role("option", name=re.compile(sid)).click()
        admin.click("#vs-study-progress-btn")
        shows(admin, "vs-study-totals", "1 done")
        shows(admin, "vs-study-totals", "1 abandoned")
        shows(admin, "vs-study-progress", "Simulator fake/app-sim")
        shows(admin, "vs-study-progress", "decisions agree")
        admin.screenshot(path=str(SHOTS / "study_admin.png"), full_page=True)
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_made_up_code_is_refused_and_counted(app):
    with httpx.Client(timeout=30, trust_env=False, transport=httpx.HTTPTransport(local_address="127.0.0.4")) as h:
        page = h.get(app.url + "study/00000000")
        assert page.status_code == 404
        codes = []
        study = _any_study(app)
        for i in range(30):
            r = h.post(f"{app.url}study/{study}", data={"code": f"made-up-code-{i:04d}"}, headers={"Origin": app.url.rstrip("/")})
            codes.append(r.status_code)
        assert set(codes) <= {403, 429} and 429 in codes, codes


def _any_study(app) -> str:
    from vibesearch.store import Store

    store = Store(app.db)
    found = store.studies()
    if found:
        return found[0].id
    from vibesearch.store.tables import StudyRow

    store.add_study(StudyRow(id="0f0f0f0f", name="spare", config_json='{"tasks": []}', created_at=1.0), [])
    return "0f0f0f0f"
