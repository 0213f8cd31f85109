"""The Label tab driven from the keyboard in Chromium, as annotators use it: a number key ticks an
evidence candidate and ``y`` stores the label (nothing clicked in between); ``y`` also works with
the focus left on a ticked checkbox, but not while typing in the note box; ``s`` skips; and the
card stays where it is while twenty labels come in (the who-labelled-what table grows below it).

Each test writes its own run (and campaign) into the app's database and labels under its own
annotator name, so the tests pass alone and in any order.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from pathlib import Path

import pytest
from browser_kit import choose, fill, shows, tab
from playwright.sync_api import Page, expect

from label_runs import new_run
from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def card_top(page: Page) -> float:
    """Where the card is on the page (not in the viewport: a scroll does not count)."""
    return float(page.locator("#vs-label-card").evaluate("e => e.getBoundingClientRect().top + window.scrollY"))


def evidence(page: Page):
    return page.locator("#vs-label-evidence input[type=checkbox]:visible")


def first_choice_index(page: Page) -> int:
    """The stored index of the first evidence choice (its label reads "#12  head | ...")."""
    text = page.locator("#vs-label-evidence label:visible").first.inner_text()
    m = re.search(r"#(\d+)", text)
    assert m, text
    return int(m.group(1)) - 1


def wait_until(page: Page, done, what: str, within_s: float = 60.0) -> None:
    """Wait for a state of the test's own (Playwright delivers its events while the page is asked)."""
    deadline = time.monotonic() + within_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => ok()))")


def start_one_run(page: Page, run_id: str, name: str) -> None:
    tab(page, "Label")
    choose(page, "vs-label-run", run_id)
    fill(page, "vs-label-annotator", name)
    page.click("#vs-label-load")  # the focus stays on this button: the keys below reach the tab
    shows(page, "vs-label-card", re.compile(r"Ground-truth triple 1 of \d+"))
    shows(page, "vs-label-progress", "0 / ")
    expect(evidence(page)).not_to_have_count(0)


def test_a_positive_label_with_keys_only(pages, app_server):
    run_id, name = new_run(app_server.db), unique("keys-")
    page = pages()
    start_one_run(page, run_id, name)
    shows(page, "vs-label-keys", "tick / untick the evidence")
    want = first_choice_index(page)
    page.keyboard.press("2")  # tick and untick the second candidate: nothing of it is stored
    expect(evidence(page).nth(1)).to_be_checked()
    page.keyboard.press("2")
    expect(evidence(page).nth(1)).not_to_be_checked()
    page.keyboard.press("1")
    expect(evidence(page).nth(0)).to_be_checked()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "keys_ticked.png"))
    page.keyboard.press("y")
    shows(page, "vs-label-progress", "1 / 30")
    shows(page, "vs-label-card", "Ground-truth triple 2 of 30")
    expect(page.locator("#vs-label-status")).not_to_contain_text("supporting prediction")
    [row] = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert (row.gt_index, row.covered, json.loads(row.evidence_json)) == (0, True, [want])


JOIN = "**/gradio_api/queue/join*"  # where the page sends each event to the server


def test_a_key_meant_for_a_card_already_labelled_is_dropped(pages, app_server):
    """Keys pressed faster than the server answers: the ``n`` right after ``y`` was meant for the
    first card, so it must not label the next triple (nor relabel the first); the page says it was
    not stored. The page's requests are held until both keys are pressed, so the ``n`` is pressed
    before any answer, however loaded the machine (as on a slow server)."""
    run_id, name = new_run(app_server.db), unique("fast-")
    page = pages()
    held: list = []
    seen: list = []
    holding = [False]

    def join(route) -> None:  # the page's requests wait here while ``holding``
        seen.append(route.request.url)
        if holding[0]:
            held.append(route)
        else:
            route.continue_()

    # The route is in place before the tab is used, not just before the ``y``: Chromium starts
    # routing a page's requests a moment after ``page.route`` returns, so a request the page sends
    # right then can get past the route to the server (the ``y`` stored unheld, the test waiting
    # for it in vain: 8 of 200 presses beside a busy core). Once one request of the page has come
    # through the route, every later one does.
    page.route(JOIN, join)
    start_one_run(page, run_id, name)
    wait_until(page, lambda: len(seen) >= 1, "a request of the page through the route")
    page.keyboard.press("1")
    expect(evidence(page).nth(0)).to_be_checked()
    holding[0] = True
    page.keyboard.press("y")
    wait_until(page, lambda: len(held) >= 1, "the y's request")
    # the answer to "y" cannot come back yet: the n is pressed on triple 1 (its stamp is taken now;
    # Gradio's client may send its request only after the y's)
    page.keyboard.press("n")
    holding[0] = False
    for route in held:  # in the order the page sent them
        route.continue_()
    page.unroute(JOIN)
    shows(page, "vs-label-card", "Ground-truth triple 2 of 30")
    shows(page, "vs-label-refused", "“n” was pressed on ground-truth triple 1, no longer the card shown (now ground-truth triple 2)")
    shows(page, "vs-label-refused", "nothing was stored")
    shows(page, "vs-label-progress", "1 / 30")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "key_refused.png"))
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert [(r.gt_index, r.covered) for r in rows] == [(0, True)], [(r.gt_index, r.covered, r.evidence_json) for r in rows]
    # the evidence listed for triple 2 (each value names its card) before a number key ticks one
    expect(evidence(page).first).to_have_attribute("name", re.compile(rf"@coverage:1:{run_id}:"))
    page.keyboard.press("1")
    expect(evidence(page).nth(0)).to_be_checked()
    page.keyboard.press("y")
    shows(page, "vs-label-card", "Ground-truth triple 3 of 30")
    shows(page, "vs-label-progress", "2 / 30")
    expect(page.locator("#vs-label-refused")).to_be_hidden()  # the next key acted on clears the line
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert [(r.gt_index, r.covered) for r in rows] == [(0, True), (1, True)]
    assert all(json.loads(r.evidence_json) for r in rows)


def test_a_key_pressed_as_the_next_card_is_drawn_labels_that_card(pages, app_server):
    """An ``n`` pressed the moment the answer to ``y`` replaces the card (the rest of the tab may
    still be drawing) is pressed on the new card, and labels that one — not the one before, nor
    the one after."""
    run_id, name = new_run(app_server.db), unique("redraw-")
    page = pages()
    start_one_run(page, run_id, name)
    page.keyboard.press("1")
    expect(evidence(page).nth(0)).to_be_checked()
    page.evaluate("""() => {
        const card = () => document.querySelector('#vs-label-card [data-card]');
        const first = card().dataset.card;
        window.__vsRedraw = null;
        const seen = new MutationObserver(() => {
            const now = card();
            if (!now || now.dataset.card === first) return;
            seen.disconnect();
            window.__vsRedraw = now.dataset.card;
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true}));
        });
        seen.observe(document.getElementById('vs-label-card'), {childList: true, subtree: true, attributes: true, characterData: true});
    }""")
    page.keyboard.press("y")
    page.wait_for_function("() => window.__vsRedraw !== null")
    assert page.evaluate("() => window.__vsRedraw") == f"coverage:1:{run_id}:{name}"
    shows(page, "vs-label-card", "Ground-truth triple 3 of 30")
    shows(page, "vs-label-progress", "2 / 30")
    expect(page.locator("#vs-label-refused")).to_be_hidden()
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert [(r.gt_index, r.covered) for r in rows] == [(0, True), (1, False)]


def test_y_after_a_click_on_a_checkbox_but_not_from_the_note(pages, app_server):
    run_id, name = new_run(app_server.db), unique("focus-")
    page = pages()
    start_one_run(page, run_id, name)
    evidence(page).nth(0).check()  # the focus is left on the checkbox, as after a playtester's click
    page.keyboard.press("y")
    shows(page, "vs-label-progress", "1 / 30")
    shows(page, "vs-label-card", "Ground-truth triple 2 of 30")
    note = page.locator("#vs-label-note textarea")
    note.click()
    note.press_sequentially("yes sn")  # typed into the note: text, not keys
    expect(note).to_have_value("yes sn")
    shows(page, "vs-label-card", "Ground-truth triple 2 of 30")
    shows(page, "vs-label-progress", "1 / 30")
    page.locator("#vs-label-card").click()  # out of the note
    page.keyboard.press("n")
    shows(page, "vs-label-progress", "2 / 30")
    shows(page, "vs-label-card", "Ground-truth triple 3 of 30")
    page.keyboard.press("s")  # skip: on to triple 4, nothing stored for triple 3
    shows(page, "vs-label-card", "Ground-truth triple 4 of 30")
    page.keyboard.press("k")
    shows(page, "vs-label-card", "Ground-truth triple 3 of 30")
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert [(r.gt_index, r.covered, r.note) for r in rows] == [(0, True, ""), (1, False, "yes sn")]


def test_the_card_stays_put_through_twenty_campaign_labels(pages, app_server):
    run_id, name, campaign = new_run(app_server.db), unique("steady-"), unique("steady-camp-")
    create_campaign(Store(app_server.db), campaign, runs=[run_id], annotators=[name], sides=["coverage"], overlap=1)
    page = pages()
    tab(page, "Label")
    choose(page, "vs-camp-pick", campaign)
    expect(page.locator("#vs-label-one-run")).to_be_hidden()  # the one-run row is gone in campaign mode
    fill(page, "vs-label-annotator", name)
    page.click("#vs-camp-next")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 30")
    shows(page, "vs-camp-who", "Nobody has labelled")
    top = card_top(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "campaign_first.png"), full_page=True)
    for i in range(1, 21):
        if i % 3:
            page.keyboard.press("1")
            expect(evidence(page).nth(0)).to_be_checked()
            page.keyboard.press("y")
        else:
            page.keyboard.press("n")
        shows(page, "vs-camp-progress", f"{name}: {i} labelled")
        shows(page, "vs-label-card", f"Ground-truth triple {i + 1} of 30")
        assert abs(card_top(page) - top) <= 3, (i, top, card_top(page))
    shows(page, "vs-camp-who", "20 labelled item(s); the 10 most recent shown, newest first.")
    expect(page.locator("#vs-camp-who tr")).to_have_count(11)  # a header and ten rows
    assert page.locator("#vs-camp-who tr").nth(1).inner_text().split("\t")[2].strip() == "20"  # the newest first
    page.screenshot(path=str(SHOTS / "campaign_after_20.png"), full_page=True)
    page.keyboard.press("s")  # skip item 21: the queue hands out 22
    shows(page, "vs-label-card", "Ground-truth triple 22 of 30")
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert len(rows) == 20 and sum(r.covered for r in rows) == 14


# the moment during the answer to ``y`` at which ``n`` is pressed: the first change the page makes
# after the press (the card still the one labelled), the card replaced, the evidence relisted
REDRAW_MOMENTS = {
    "pending": "() => true",
    "card": "() => card() !== first",
    "evidence": "() => { const b = document.querySelector('#vs-label-evidence input[type=checkbox]'); return !!b && !b.name.endsWith('@' + first); }",
}


@pytest.mark.parametrize("moment", sorted(REDRAW_MOMENTS))
def test_a_key_pressed_during_the_redraw_labels_the_card_it_was_pressed_on_or_is_refused(pages, app_server, moment):
    """``n`` pressed at a moment of the redraw after ``y``: it labels the card the page showed when it
    was pressed (the new one), or — pressed while the labelled card was still shown — it is refused
    on its line; it never labels another card and never vanishes (run ten times beside a busy core)."""
    run_id, name = new_run(app_server.db), unique(f"during-{moment}-")
    page = pages()
    page.set_viewport_size({"width": 1366, "height": 768})
    start_one_run(page, run_id, name)
    page.keyboard.press("1")
    expect(evidence(page).nth(0)).to_be_checked()
    page.evaluate("""(when) => {
        const card = () => { const c = document.querySelector('#vs-label-card [data-card]'); return c ? c.dataset.card : ''; };
        const first = card();
        const ready = eval(when);
        window.__vsPressedOn = null;
        const seen = new MutationObserver(() => {
            if (!ready()) return;
            seen.disconnect();
            window.__vsPressedOn = card();
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true}));
        });
        seen.observe(document.getElementById('vs-label-panel'), {childList: true, subtree: true, attributes: true, characterData: true});
    }""", REDRAW_MOMENTS[moment])
    page.keyboard.press("y")
    page.wait_for_function("() => window.__vsPressedOn !== null")
    pressed_on = page.evaluate("() => window.__vsPressedOn")
    assert pressed_on in (f"coverage:0:{run_id}:{name}", f"coverage:1:{run_id}:{name}"), pressed_on
    print(f"n pressed during the redraw ({moment}) on {pressed_on.split(':')[0]} {pressed_on.split(':')[1]}")  # the counts under load (-s)
    if pressed_on.startswith("coverage:1:"):  # pressed on the new card: that card is labelled
        shows(page, "vs-label-card", "Ground-truth triple 3 of 30")
        shows(page, "vs-label-progress", "2 / 30")
        expect(page.locator("#vs-label-refused")).to_be_hidden()
        want = [(0, True), (1, False)]
    else:  # pressed while the labelled card was still shown: refused where it can be read
        shows(page, "vs-label-refused", "“n” was pressed on ground-truth triple 1, no longer the card shown (now ground-truth triple 2)")
        expect(page.locator("#vs-label-refused")).to_be_in_viewport()
        shows(page, "vs-label-card", "Ground-truth triple 2 of 30")
        shows(page, "vs-label-progress", "1 / 30")
        want = [(0, True)]
    rows = Store(app_server.db).labels(run_id=run_id, annotator=name)
    assert [(r.gt_index, r.covered) for r in rows] == want, (moment, pressed_on, [(r.gt_index, r.covered) for r in rows])
