"""The app in Chromium: live simulated runs, playing the persona, Stop, Runs, Label, Leaderboard,
and two browsers at once. One app subprocess (fake models, temporary database) for the module;
each test saves a screenshot under artifacts/screenshots/."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RUNS: dict[str, str] = {}  # what earlier tests made, for later ones
JAPAN = "daily-en-japan-heritage-trip"
ANALYSIS = "pro-en-analysis-history"


# --------------------------------------------------------------------------- helpers
def open_app(browser, server):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(45_000)
    page.goto(server.url)
    page.wait_for_selector("#vs-start")
    page.wait_for_timeout(800)  # the owner token is set on load
    return ctx, page


def fill(page, elem_id: str, text: str) -> None:
    """Type into a Gradio textbox and make sure the value stuck (a field still mounting can drop it)."""
    box = page.locator(f"#{elem_id} textarea, #{elem_id} input").first
    for attempt in range(3):
        box.fill(text)
        try:
            expect(box).to_have_value(text, timeout=2_000)
            return
        except AssertionError:
            if attempt == 2:
                raise


def choose(page, elem_id: str, option_text: str) -> None:
    """Pick a gradio dropdown option whose text contains ``option_text``."""
    page.locator(f"#{elem_id} input").first.click()
    page.get_by_role("option", name=re.compile(re.escape(option_text))).first.click()


def options(page, *checks: str, **fields) -> None:
    """Set Play's options (they live in a closed accordion): tick ``checks``, fill ``fields``.

    The accordion is left open and each value is checked to have reached the field, so a click
    on Start right after cannot race the browser's input handling on a loaded machine.
    """
    page.get_by_text("Models and options").click()
    page.get_by_label(re.compile("Watch pace")).wait_for(state="visible")
    page.wait_for_timeout(300)  # the accordion's fields mount when it first opens
    for label in checks:
        page.get_by_label(label).check()
    for elem_id, value in fields.items():
        if elem_id != "pace":
            fill(page, elem_id, str(value))
            continue
        box = page.get_by_label(re.compile("Watch pace"))
        for attempt in range(3):  # a field still mounting can take its default back once
            box.fill(str(value))
            box.press("Tab")
            try:
                expect(box).to_have_value(str(value), timeout=2_000)
                break
            except AssertionError:
                if attempt == 2:
                    raise
    page.wait_for_timeout(300)


def run_id_of(page) -> str:
    """The id of the run Start began; fails with the page's error message if Start was refused."""
    page.wait_for_selector("#vs-play-status code, .toast-body", timeout=45_000)
    if not page.locator("#vs-play-status code").count():
        raise AssertionError(f"Start was refused: {page.locator('.toast-body').first.inner_text()}")
    return page.locator("#vs-play-status code").first.inner_text().strip()


def db_run(server, run_id: str) -> tuple[str, str | None]:
    with sqlite3.connect(server.db) as con:
        return con.execute("select status, termination from runs where id = ?", (run_id,)).fetchone()


def stepper_count(page) -> int:
    text = page.locator("#vs-stepper").inner_text()
    m = re.search(r"Stages: (\d+) / \d+ disclosed", text)
    return int(m.group(1)) if m else 0


# --------------------------------------------------------------------------- tests
def test_simulated_run_streams_tool_calls_and_advances_the_stepper(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    choose(page, "vs-task", JAPAN)
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent"})  # the default watch pace: 1 s per user turn
    page.click("#vs-start")
    rid = run_id_of(page)
    RUNS["simulated"] = rid
    # a tool call appears as a collapsible message titled with the tool and its arguments
    page.wait_for_selector("#vs-play-chat >> text=/⚙ search\\(query=/")
    seen = set()
    deadline = time.time() + 150
    while time.time() < deadline:
        seen.add(stepper_count(page))
        if "finished" in page.locator("#vs-play-status").inner_text():
            break
        page.wait_for_timeout(250)
    assert len([n for n in seen if n > 0]) >= 3, f"the stepper should be seen advancing, saw {sorted(seen)}"
    page.wait_for_selector("#vs-play-score >> text=offline judge", timeout=60_000)
    assert "✓" in page.locator("#vs-stepper").inner_text()
    counters = page.locator("#vs-counters").inner_text()
    assert "search" in counters and "Cost" in counters and "unknown" in counters, counters  # fake models have no price
    assert re.search(r"F1 \d+\.\d", page.locator("#vs-play-score").inner_text())
    assert db_run(app_server, rid)[0] == "finished"
    page.screenshot(path=str(screenshots / "play_simulated.png"), full_page=True)
    ctx.close()


def test_me_mode_disclose_then_finish_and_see_the_score(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    choose(page, "vs-task", JAPAN)
    page.get_by_label("Me — I play the persona").check()
    options(page, "Shadow simulator beside me (me mode)", **{"vs-sim-model": "fake/app-sim"})
    page.click("#vs-start")
    rid = run_id_of(page)
    RUNS["human"] = rid
    page.wait_for_selector("#vs-human-card >> text=Your turn")
    card = page.locator("#vs-human-card").inner_text()
    assert "Next stage 2" in card and "Trigger" in card and "Fallback" in card
    page.get_by_label("disclose the next stage").check()
    page.wait_for_function("() => document.querySelector('#vs-human-msg textarea').value.length > 20")
    line = page.locator("#vs-human-msg textarea").input_value()
    assert "World Heritage" in line  # the next stage's line, prefilled
    page.click("#vs-send")
    page.wait_for_selector("#vs-stepper >> text=Stages: 2 / 9 disclosed")
    page.wait_for_selector("#vs-play-chat >> text=/Disclosed stage 2\\/9/")
    page.wait_for_selector("#vs-play-chat >> text=/simulator \\(shadow\\) would have/")
    # a refresh finds the same run, and the person can go on driving it
    page.wait_for_selector("#vs-human-card >> text=Your turn")
    page.reload()
    page.wait_for_selector("#vs-play-status >> text=Reattached")
    page.wait_for_selector("#vs-human-card >> text=Your turn")
    page.get_by_label("done", exact=True).check()
    fill(page, "vs-human-msg", "That is all I need, thanks.")
    page.click("#vs-send")
    page.wait_for_selector("#vs-play-score >> text=offline judge", timeout=60_000)
    assert "retrieval baseline with oracle reader" in page.locator("#vs-play-score").inner_text()
    assert db_run(app_server, rid) == ("finished", "done")
    page.screenshot(path=str(screenshots / "play_me_mode.png"), full_page=True)
    ctx.close()


def test_table_task_shows_the_answer_table_with_coloured_cells(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    choose(page, "vs-task", "galilean-moons")
    options(page, pace=0)
    page.click("#vs-start")
    rid = run_id_of(page)
    page.wait_for_selector("#vs-play-table td", timeout=60_000)
    styles = page.eval_on_selector_all("#vs-play-table td[title]", "els => els.map(e => e.getAttribute('style') || '')")
    assert styles and all("background" in st for st in styles)  # every judged cell is coloured right or wrong
    assert "Item-F1" in page.locator("#vs-play-score").inner_text()
    assert db_run(app_server, rid)[0] == "finished"
    page.screenshot(path=str(screenshots / "play_table_task.png"), full_page=True)
    ctx.close()


def test_stop_cancels_the_run_on_the_server(browser, app_server):
    ctx, page = open_app(browser, app_server)
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent-slow"})
    page.click("#vs-start")
    rid = run_id_of(page)
    page.wait_for_selector("#vs-play-status >> text=running")
    page.click("#vs-stop")
    page.wait_for_selector("#vs-play-status >> text=cancelled", timeout=20_000)
    assert db_run(app_server, rid) == ("cancelled", "cancelled")
    ctx.close()


def test_runs_tab_replays_a_run_with_its_graph(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    page.get_by_role("tab", name="Runs").click()
    fill(page, "vs-runs-id", RUNS["simulated"])
    page.click("#vs-runs-open")
    page.wait_for_selector("#vs-runs-chat >> text=/⚙ search/")
    page.wait_for_selector("#vs-runs-graph .js-plotly-plot")
    legend = page.locator("#vs-runs-graph").inner_text()
    for name in ("ground truth: covered", "ground truth: missed", "predicted: valid", "predicted: invalid"):
        assert name in legend
    assert "Stages: 9 / 9 disclosed" in page.locator("#vs-runs-stepper").inner_text()
    assert "#Asst / #User" in page.locator("#vs-runs-stats").inner_text()
    page.screenshot(path=str(screenshots / "runs.png"), full_page=True)
    ctx.close()


def test_label_three_triples_and_see_agreement_change(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    page.get_by_role("tab", name="Label").click()
    page.get_by_role("button", name="Refresh run list").click()
    page.wait_for_timeout(500)
    choose(page, "vs-label-run", RUNS["simulated"])
    fill(page, "vs-label-annotator", "alice")
    page.click("#vs-label-load")
    page.wait_for_selector("#vs-label-card >> text=Ground-truth triple 1 of 75")
    assert "appear once you have labelled it" in page.locator("#vs-label-verdict").inner_text()
    agreements = [page.locator("#vs-label-agreement").inner_text()]
    page.locator("#vs-label-evidence input[type=checkbox]").first.check()  # evidence for the first triple
    page.locator("#vs-title").click()  # keys go to the page, not a text field
    for i, key in enumerate(("y", "n", "y"), start=1):
        page.keyboard.press(key)
        page.wait_for_selector(f"#vs-label-progress >> text={i} / 75")
        page.wait_for_selector(f"#vs-label-card >> text=Ground-truth triple {i + 1} of 75")
        agreements.append(page.locator("#vs-label-agreement").inner_text())
    assert "agreement with you" in agreements[-1] and "offline judge" in agreements[-1]
    assert len(set(agreements)) >= 3, agreements  # it changes as labels come in
    page.keyboard.press("k")  # back to triple 3: labelled, so the verdict shows
    page.wait_for_selector("#vs-label-card >> text=Ground-truth triple 3 of 75")
    assert "offline judge" in page.locator("#vs-label-verdict").inner_text()
    with sqlite3.connect(app_server.db) as con:
        rows = con.execute("select gt_index, covered, evidence_json from labels where run_id = ? and annotator = 'alice' order by gt_index",
                           (RUNS["simulated"],)).fetchall()
    assert [(r[0], bool(r[1])) for r in rows] == [(0, True), (1, False), (2, True)]
    assert rows[0][2] != "[]"
    page.screenshot(path=str(screenshots / "label.png"), full_page=True)
    ctx.close()


def test_leaderboard_shows_tables_and_plots(browser, app_server, screenshots):
    ctx, page = open_app(browser, app_server)
    page.get_by_role("tab", name="Leaderboard").click()
    page.click("#vs-lb-refresh")
    page.wait_for_selector("#vs-lb-scores >> text=fake/app-agent")
    page.wait_for_selector("#vs-lb-f1 .js-plotly-plot")
    page.wait_for_selector("#vs-lb-pr .js-plotly-plot")
    assert "baseline" in page.locator("#vs-lb-interaction").inner_text()
    assert "offline judge" in page.locator("#vs-lb-summary").inner_text()
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)
    ctx.close()


def test_two_browsers_do_not_see_each_others_live_run(browser, app_server, screenshots):
    ctx_a, a = open_app(browser, app_server)
    ctx_b, b = open_app(browser, app_server)
    for page, task in ((a, JAPAN), (b, ANALYSIS)):
        choose(page, "vs-task", task)
        page.get_by_label("Me — I play the persona").check()
        page.click("#vs-start")
    rid_a, rid_b = run_id_of(a), run_id_of(b)
    assert rid_a != rid_b
    a.wait_for_selector("#vs-human-card >> text=Your turn")
    b.wait_for_selector("#vs-human-card >> text=Your turn")
    chat_a, chat_b = a.locator("#vs-play-chat").inner_text(), b.locator("#vs-play-chat").inner_text()
    assert "Japan" in chat_a and "calculus" not in chat_a
    assert "calculus" in chat_b and "Japan next spring" not in chat_b
    # after a refresh each browser finds only its own live run
    b.reload()
    b.wait_for_selector("#vs-play-status >> text=Reattached")
    assert rid_b in b.locator("#vs-play-status").inner_text() and rid_a not in b.locator("#vs-play-status").inner_text()
    b.wait_for_selector("#vs-human-card >> text=Your turn")
    assert "calculus" in b.locator("#vs-play-chat").inner_text()
    assert ANALYSIS in b.locator("#vs-persona").inner_text()
    b.screenshot(path=str(screenshots / "play_second_browser.png"), full_page=True)
    # B can watch A's run in Runs (followed live from the database) but cannot take it over
    b.get_by_role("tab", name="Runs").click()
    fill(b, "vs-runs-id", rid_a)
    b.click("#vs-runs-open")
    b.wait_for_selector("#vs-runs-chat >> text=Japan next spring")
    assert not b.locator("#vs-runs-continue").is_visible()
    a.get_by_label("push (trigger not met)").check()
    fill(a, "vs-human-msg", "Please tell me more about the old temples.")
    a.click("#vs-send")
    b.wait_for_selector("#vs-runs-chat >> text=Please tell me more about the old temples.")
    # A, the owner, can take its run from Runs back into Play
    a.get_by_role("tab", name="Runs").click()
    fill(a, "vs-runs-id", rid_a)
    a.click("#vs-runs-open")
    a.wait_for_selector("#vs-runs-continue")
    a.click("#vs-runs-continue")
    a.wait_for_selector("#vs-human-card >> text=Your turn")
    b.get_by_role("tab", name="Play").click()
    for page, rid in ((a, rid_a), (b, rid_b)):
        page.click("#vs-stop")
        page.wait_for_selector("#vs-play-status >> text=cancelled", timeout=20_000)
        assert db_run(app_server, rid) == ("cancelled", "cancelled")
    ctx_a.close()
    ctx_b.close()
