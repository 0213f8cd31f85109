"""The app in Chromium: live simulated runs, playing the persona, Stop, Runs, Label, Leaderboard,
and two browsers at once. One app subprocess (fake models, temporary database) for the module;
each test saves a screenshot under artifacts/screenshots/.

Each test makes what it needs (the finished run Runs, Label and Leaderboard look at comes from a
fixture that starts it through the API), so any test passes alone and in any order. Waits are on
states the page shows, through the components' ``elem_id``s (see ``browser_kit``).
"""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from browser_kit import (
    choose,
    fill,
    grid_row,
    no_chat_toolbar,
    options,
    shows,
    stages_disclosed,
    start,
    status_is,
    tab,
    text_of,
    wait_ready,
    wait_stages_above,
    your_turn,
)
from gradio_client import Client
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"  # 9 stages, 75 ground-truth triples
ANALYSIS = "pro-en-analysis-history"


# --------------------------------------------------------------------------- runs made through the API
@pytest.fixture(scope="module")
def api(app_server):
    client = Client(app_server.url, verbose=False)
    yield client
    client.close()


def run_status(api: Client, run_id: str) -> dict:
    return api.predict(run_id, api_name="/run_status")


def wait_over(api: Client, run_id: str, timeout: float = 240) -> dict:
    """Poll the run's status until it is over and scored (or failed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = run_status(api, run_id)
        if not status["live"] and (status["scores"] or status["status"] != "finished" or status["score_error"]):
            return status
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} was not over and scored within {timeout:.0f}s: {status}")


def api_run(api: Client, task_id: str, agent: str, model: str = "", max_user_turns: int = 0) -> str:
    run_id = api.predict(task_id, agent, "rules", model, "", "", "offline", max_user_turns, api_name="/start_run")
    status = wait_over(api, run_id)
    assert status["status"] == "finished" and status["scores"], status
    return run_id


@pytest.fixture(scope="module")
def finished_run(api) -> str:
    """A finished, scored run of the fake ReAct agent on the Japan task with the rule-based user."""
    return api_run(api, JAPAN, "react", "fake/app-agent")


@pytest.fixture(scope="module")
def baseline_run(api) -> str:
    """A short finished, scored run of the offline baseline."""
    return api_run(api, JAPAN, "baseline", max_user_turns=3)


# --------------------------------------------------------------------------- Play
def test_simulated_run_streams_tool_calls_and_advances_the_stepper(pages, api, screenshots):
    page = pages()
    choose(page, "vs-task", JAPAN)
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent"})  # the default watch pace: 1 s per user turn
    rid = start(page)
    # a tool call appears as a collapsible message titled with the tool and its arguments
    shows(page, "vs-play-chat", re.compile(r"⚙ search\(query="))
    seen = [wait_stages_above(page, 0)]
    while len(seen) < 3 and seen[-1] < 9:
        seen.append(wait_stages_above(page, seen[-1]))
    assert len(seen) >= 2, f"the stepper should be seen advancing, saw {seen}"
    status_is(page, "finished")
    shows(page, "vs-play-score", "offline judge")
    assert stages_disclosed(page) == 9
    expect(page.locator("#vs-stepper")).to_contain_text("✓")
    counters = text_of(page, "vs-counters")
    assert "search" in counters and "Cost" in counters and "unknown" in counters, counters  # fake models have no price
    assert re.search(r"F1 \d+\.\d", text_of(page, "vs-play-score"))
    assert run_status(api, rid)["status"] == "finished"
    page.screenshot(path=str(screenshots / "play_simulated.png"), full_page=True)


def test_me_mode_disclose_then_finish_and_see_the_score(pages, api, screenshots):
    page = pages()
    choose(page, "vs-task", JAPAN)
    page.get_by_label("Me — I play the persona").check()
    options(page, "Shadow simulator beside me (me mode)", **{"vs-sim-model": "fake/app-sim"})
    rid = start(page)
    your_turn(page)
    card = text_of(page, "vs-human-card")
    assert "Next stage 2" in card and "Trigger" in card and "Fallback" in card
    page.get_by_label("disclose the next stage").check()
    expect(page.locator("#vs-human-msg textarea")).to_have_value(re.compile("World Heritage"))  # the next stage's line, prefilled
    page.click("#vs-send")
    shows(page, "vs-stepper", "Stages: 2 / 9 disclosed")
    shows(page, "vs-play-chat", re.compile(r"Disclosed stage 2/9"))
    shows(page, "vs-play-chat", re.compile(r"simulator \(shadow\) would have"))
    your_turn(page)
    shows(page, "vs-human-card", "Next stage 3")
    # a refresh finds the same run, and the person can go on driving it
    page.reload()
    wait_ready(page)
    shows(page, "vs-play-status", "Reattached")
    assert rid in text_of(page, "vs-play-status")
    your_turn(page)
    page.get_by_label("done", exact=True).check()
    fill(page, "vs-human-msg", "That is all I need, thanks.")
    page.click("#vs-send")
    shows(page, "vs-play-score", "offline judge")
    assert "retrieval baseline with oracle reader" in text_of(page, "vs-play-score")
    shows(page, "vs-play-missed", "Missed ground-truth triples")  # listed beside the score
    status = run_status(api, rid)
    assert (status["status"], status["termination"]) == ("finished", "done")
    page.screenshot(path=str(screenshots / "play_me_mode.png"), full_page=True)


def test_table_task_shows_the_answer_table_with_coloured_cells(pages, api, screenshots):
    page = pages()
    choose(page, "vs-task", "galilean-moons")
    options(page, pace=0)
    rid = start(page)
    status_is(page, "finished")
    shows(page, "vs-play-score", "Item-F1")
    judged = page.locator("#vs-play-table td[title]")
    expect(judged).not_to_have_count(0)
    styles = judged.evaluate_all("els => els.map(e => e.getAttribute('style') || '')")
    assert styles and all("background" in st for st in styles)  # every judged cell is coloured right or wrong
    assert run_status(api, rid)["status"] == "finished"
    page.screenshot(path=str(screenshots / "play_table_task.png"), full_page=True)


def test_stop_cancels_the_run_on_the_server(pages, api):
    page = pages()
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent-slow"})
    rid = start(page)
    status_is(page, "running")
    page.click("#vs-stop")
    status_is(page, "cancelled")
    status = run_status(api, rid)
    assert (status["status"], status["termination"]) == ("cancelled", "cancelled")


# --------------------------------------------------------------------------- Runs, Label, Leaderboard
def test_runs_tab_replays_a_run_with_its_graph(pages, finished_run, screenshots):
    page = pages()
    tab(page, "Runs")
    fill(page, "vs-runs-id", finished_run)
    page.click("#vs-runs-open")
    shows(page, "vs-runs-chat", re.compile(r"⚙ search"))
    no_chat_toolbar(page, "vs-runs-chat")
    expect(page.locator("#vs-runs-graph .js-plotly-plot")).to_be_visible()
    for name in ("ground truth: covered", "ground truth: missed", "predicted: valid", "predicted: invalid"):
        shows(page, "vs-runs-graph", name)
    shows(page, "vs-runs-stepper", "Stages: 9 / 9 disclosed")
    shows(page, "vs-runs-stats", "#Asst / #User")
    page.screenshot(path=str(screenshots / "runs.png"), full_page=True)
    tab(page, "Scores")  # the missed ground truth beside the scores, then every ground-truth triple
    shows(page, "vs-runs-missed", "Missed ground-truth triples")
    shows(page, "vs-runs-gt", re.compile("✓ covered|✗ missed"))


def test_label_three_triples_and_see_agreement_change(pages, app_server, finished_run, screenshots):
    page = pages()
    tab(page, "Label")
    page.get_by_role("button", name="Refresh run list").click()
    choose(page, "vs-label-run", finished_run)  # reopened until the refreshed list has it
    fill(page, "vs-label-annotator", "alice")
    page.click("#vs-label-load")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 75")
    assert "appear once you have labelled it" in text_of(page, "vs-label-verdict")
    agreements = [text_of(page, "vs-label-agreement")]
    evidence = page.locator("#vs-label-evidence input[type=checkbox]")
    expect(evidence).not_to_have_count(0)
    for i, key in enumerate(("y", "n", "y"), start=1):
        if key == "y":  # "covered" needs a supporting predicted triple: tick one
            evidence.nth(0).check()
        page.locator("#vs-title").click()  # keys go to the page, not a text field
        page.keyboard.press(key)
        shows(page, "vs-label-progress", f"{i} / 75")
        shows(page, "vs-label-card", f"Ground-truth triple {i + 1} of 75")
        agreements.append(text_of(page, "vs-label-agreement"))
    assert "agreement with you" in agreements[-1] and "offline judge" in agreements[-1]
    assert len(set(agreements)) >= 3, agreements  # it changes as labels come in
    page.keyboard.press("k")  # back to triple 3: labelled, so the verdict shows
    shows(page, "vs-label-card", "Ground-truth triple 3 of 75")
    shows(page, "vs-label-verdict", "offline judge")
    with sqlite3.connect(app_server.db) as con:
        rows = con.execute("select gt_index, covered, evidence_json from labels where run_id = ? and annotator = 'alice' order by gt_index",
                           (finished_run,)).fetchall()
    assert [(r[0], bool(r[1])) for r in rows] == [(0, True), (1, False), (2, True)]
    assert rows[0][2] != "[]"
    page.screenshot(path=str(screenshots / "label.png"), full_page=True)


def test_leaderboard_shows_tables_and_plots(pages, finished_run, baseline_run, screenshots):
    page = pages()
    tab(page, "Leaderboard")
    page.click("#vs-lb-refresh")
    # one visible row of the fake agent's configuration over all tasks (not a hidden sizing cell;
    # the configuration cell itself: another row's "vs the next configuration" may name it)
    grid_row(page, "vs-lb-scores", re.compile(r"^react \(fake/app-agent\) · user rules$"), "all")
    expect(page.locator("#vs-lb-f1 .js-plotly-plot")).to_be_visible()
    expect(page.locator("#vs-lb-pr .js-plotly-plot")).to_be_visible()
    # the baseline with the rule-based user (a person may have played beside the baseline too)
    grid_row(page, "vs-lb-interaction", re.compile(r"^baseline\b.*\buser rules$"))
    shows(page, "vs-lb-summary", "offline judge")
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)


# --------------------------------------------------------------------------- two people at once
def test_two_browsers_do_not_see_each_others_live_run(pages, api, screenshots):
    a, b = pages(), pages()
    for page, task in ((a, JAPAN), (b, ANALYSIS)):
        choose(page, "vs-task", task)
        page.get_by_label("Me — I play the persona").check()
    rid_a, rid_b = start(a), start(b)
    assert rid_a != rid_b
    your_turn(a)
    your_turn(b)
    shows(a, "vs-play-chat", "Japan")
    shows(b, "vs-play-chat", "calculus")
    chat_a, chat_b = text_of(a, "vs-play-chat"), text_of(b, "vs-play-chat")
    assert "calculus" not in chat_a and "Japan next spring" not in chat_b
    # after a refresh each browser finds only its own live run
    b.reload()
    wait_ready(b)
    shows(b, "vs-play-status", "Reattached")
    assert rid_b in text_of(b, "vs-play-status") and rid_a not in text_of(b, "vs-play-status")
    your_turn(b)
    shows(b, "vs-play-chat", "calculus")
    shows(b, "vs-persona", ANALYSIS)
    b.screenshot(path=str(screenshots / "play_second_browser.png"), full_page=True)
    # B can watch A's run in Runs (followed live from the database) but cannot take it over
    tab(b, "Runs")
    fill(b, "vs-runs-id", rid_a)
    b.click("#vs-runs-open")
    shows(b, "vs-runs-chat", "Japan next spring")
    expect(b.locator("#vs-runs-continue")).to_be_hidden()
    a.get_by_label("push (trigger not met)").check()
    fill(a, "vs-human-msg", "Please tell me more about the old temples.")
    a.click("#vs-send")
    shows(b, "vs-runs-chat", "Please tell me more about the old temples.")
    # A, the owner, can take its run from Runs back into Play
    tab(a, "Runs")
    fill(a, "vs-runs-id", rid_a)
    a.click("#vs-runs-open")
    expect(a.locator("#vs-runs-continue")).to_be_visible()
    a.click("#vs-runs-continue")
    expect(a.get_by_role("tab", name="Play", exact=True)).to_have_attribute("aria-selected", "true")
    your_turn(a)
    tab(b, "Play")
    for page, rid in ((a, rid_a), (b, rid_b)):
        page.click("#vs-stop")
        page.click("#vs-stop-yes")  # a person's run: Stop asks first
        status_is(page, "cancelled")
        status = run_status(api, rid)
        assert (status["status"], status["termination"]) == ("cancelled", "cancelled")
