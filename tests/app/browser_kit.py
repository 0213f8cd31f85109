"""Helpers for the browser tests: open the app, set Play's fields, read what the page shows.

Every wait is on a state the app exposes — an ``elem_id`` the app gives the component, scoped to
that component, visible text only — never a fixed sleep, and a locator that could match several
elements is made exact instead of taking the first. Timeouts are generous (a loaded two-core CI
machine runs Chromium, the app and the test at once) but a wait ends as soon as its state holds.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

WAIT_MS = 90_000  # for one state to appear; a failing test takes this long, a passing one does not
expect.set_options(timeout=WAIT_MS)
OWNER_KEY = "vibesearch-owner"  # the owner token's key in the browser's local storage (app/ui.py)


# --------------------------------------------------------------------------- the page
def open_app(browser: Browser, url: str) -> tuple[BrowserContext, Page]:
    """A fresh browser context on the app, once the page holds the owner token the server issued."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    wait_ready(page)
    return ctx, page


def wait_ready(page: Page, *, tab: str = "Play") -> None:
    """The app is mounted (``tab`` selected: a deep link opens another one) and the server's owner
    token is in local storage (set by the page's load event; a Start before it would mint a second
    token and the first one would replace it)."""
    if tab == "Play":
        expect(page.locator("#vs-start")).to_be_visible()
    else:
        expect(page.get_by_role("tab", name=tab, exact=True)).to_have_attribute("aria-selected", "true")
    page.wait_for_function("key => !!window.localStorage.getItem(key)", arg=OWNER_KEY)


def tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def text_of(page: Page, elem_id: str) -> str:
    """What a component shows (visible text only)."""
    return page.locator(f"#{elem_id}").inner_text()


def shows(page: Page, elem_id: str, text: str | re.Pattern[str]) -> None:
    """Wait until the component is visible and its visible text contains ``text``."""
    box = page.locator(f"#{elem_id}")
    expect(box).to_be_visible()
    expect(box).to_contain_text(text, use_inner_text=True)


# --------------------------------------------------------------------------- fields
def field(page: Page, elem_id: str) -> Locator:
    """The one text input of a Gradio textbox, number or dropdown."""
    return page.locator(f"#{elem_id}").locator("textarea, input:not([type=checkbox]):not([type=radio])")


def fill(page: Page, elem_id: str, text: str) -> None:
    """Type into a Gradio textbox until the value sticks (a field still mounting can drop it)."""
    set_value(field(page, elem_id), text)


def set_value(box: Locator, text: str, *, attempts: int = 3) -> None:
    for attempt in range(attempts):
        box.fill(text)
        box.dispatch_event("change")
        try:
            expect(box).to_have_value(text, timeout=3_000)
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise


def choose(page: Page, elem_id: str, text: str, *, within_s: float = WAIT_MS / 1000) -> None:
    """Pick the one dropdown option whose label contains ``text`` as a whole word (task ids, run
    ids). The list is reopened until the option is there (choices can arrive after a refresh)."""
    # ("/" escaped too: Playwright writes the pattern into its selector as a /…/ literal)
    pattern = re.compile(rf"(^|\s){re.escape(text).replace('/', chr(92) + '/')}(\s|$)")
    deadline = time.monotonic() + within_s
    while True:
        page.locator(f"#{elem_id} input").click()
        option = page.get_by_role("option", name=pattern)
        try:
            expect(option).to_have_count(1, timeout=5_000)
            break
        except AssertionError:
            page.keyboard.press("Escape")
            if time.monotonic() > deadline:
                raise
    option.click()
    expect(page.locator(f"#{elem_id} input")).to_have_value(pattern)


def options(page: Page, *checks: str, **fields: str | float) -> None:
    """Open Play's "Models and options", tick ``checks`` and fill ``fields`` (elem ids; ``pace``
    for the watch pace). Each value is re-checked at the end, so Start reads what was set."""
    page.get_by_text("Models and options", exact=True).click()
    pace = page.get_by_label(re.compile("Watch pace"))
    expect(pace).to_be_visible()
    boxes = {name: pace if name == "pace" else field(page, name) for name in fields}
    for _ in range(3):
        for label in checks:
            page.get_by_label(label, exact=True).check()
        for name, value in fields.items():
            set_value(boxes[name], str(value))
            if name == "pace":
                boxes[name].press("Tab")
        if all(page.get_by_label(label, exact=True).is_checked() for label in checks) and all(
            boxes[name].input_value() == str(value) for name, value in fields.items()
        ):
            return
    raise AssertionError("Play's options did not keep their values")


# --------------------------------------------------------------------------- Play
def start(page: Page) -> str:
    """Press Start; the id of the run it began (fails with the page's error if Start was refused).

    The status line may still name the run shown before: wait for another id (or an error)."""
    shown = page.locator("#vs-play-status code")
    before = shown.first.inner_text().strip() if shown.count() else ""
    page.click("#vs-start")
    page.wait_for_function(
        """(before) => {
            const code = document.querySelector('#vs-play-status code');
            const id = code ? code.innerText.trim() : '';
            if (id && id !== before) return true;
            return [...document.querySelectorAll('.toast-body.error')].some((el) => el.offsetParent !== null);
        }""",
        arg=before,
    )
    started = page.locator("#vs-play-status code")
    run_id = started.first.inner_text().strip() if started.count() else ""
    if not run_id or run_id == before:
        refused = page.locator(".toast-body.error").all_inner_texts()
        raise AssertionError(f"Start was refused: {refused}")
    return run_id


def status_is(page: Page, what: str) -> None:
    """The Play status line names this state of the run (``running``, ``finished``, ``cancelled``)."""
    shows(page, "vs-play-status", re.compile(rf"\b{re.escape(what)}\b"))


def your_turn(page: Page) -> None:
    shows(page, "vs-human-turn", "Your turn")
    expect(page.locator("#vs-send")).to_be_enabled()


def stages_disclosed(page: Page, elem_id: str = "vs-stepper") -> int:
    m = re.search(r"Stages: (\d+) / \d+ disclosed", text_of(page, elem_id))
    return int(m.group(1)) if m else 0


def wait_stages_above(page: Page, count: int) -> int:
    """Wait until the stepper shows more than ``count`` stages disclosed; return the new number."""
    handle = page.wait_for_function(
        """([id, count]) => {
            const el = document.getElementById(id);
            const m = el && el.innerText.match(/Stages: (\\d+) \\/ \\d+ disclosed/);
            const n = m ? parseInt(m[1], 10) : 0;
            return n > count ? n : false;
        }""",
        arg=["vs-stepper", count],
    )
    return int(handle.json_value())


# --------------------------------------------------------------------------- tables
def grid_row(page: Page, elem_id: str, *cells: str | re.Pattern[str], within_s: float = WAIT_MS / 1000) -> Locator:
    """Wait for the one visible row of a Gradio dataframe with these cells (see ``grid_rows``).

    Gradio draws only the rows in view of a long table, and may draw none for a table that got
    its data while out of sight, so the table is scrolled a page at a time until the row shows."""
    rows = grid_rows(page, elem_id, *cells)
    viewport = page.locator(f"#{elem_id} .virtual-table-viewport")
    deadline = time.monotonic() + within_s
    while True:
        try:
            expect(rows).to_have_count(1, timeout=2_000)
            return rows
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        if viewport.count() == 1:
            viewport.evaluate(
                """e => {
                    const next = e.scrollTop + e.clientHeight;
                    e.scrollTop = next >= e.scrollHeight ? 0 : next;
                    e.dispatchEvent(new Event('scroll'));
                }"""
            )


def grid_rows(page: Page, elem_id: str, *cells: str | re.Pattern[str]) -> Locator:
    """The visible rows of a Gradio dataframe with a cell whose whole text is each of ``cells``
    (a pattern matches part of a cell). Gradio also renders a hidden sizing copy: it is left out."""
    rows = page.locator(f"#{elem_id} [role=row]:visible")
    for cell in cells:
        exact = not isinstance(cell, re.Pattern)
        rows = rows.filter(has=page.locator("[role=gridcell]").get_by_text(cell, exact=exact))
    return rows


def replay_event_no(page: Page) -> int:
    """The event a replay in Play has reached, read from its status line ("event N / M")."""
    m = re.search(r"event (\d+) / \d+", text_of(page, "vs-play-status"))
    assert m, text_of(page, "vs-play-status")
    return int(m.group(1))


def no_chat_toolbar(page: Page, elem_id: str) -> None:
    """The chat ``elem_id`` holds messages (Gradio draws its Clear and Share buttons only then) and
    shows none of its top-panel buttons, whatever the page's language."""
    expect(page.locator(f"#{elem_id} .message").first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(f"#{elem_id} .icon-button-wrapper.top-panel button:visible")).to_have_count(0)
