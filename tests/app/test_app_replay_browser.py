"""Replay in Chromium (issue 14): a shared official trajectory, imported into the app's database
with ``vibesearch import``, is opened in Runs, replayed in Play step by step, by "Next stage" and
at 20×, and reaches its end with the stepper, the tool-call messages and the file's own score."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_kit import fill, replay_event_no, shows, tab, text_of
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("VIBESEARCH_REPLAY_SHOTS", "/tmp/replay_shots"))


def test_an_official_trajectory_replays_to_its_last_stage(pages, imported_run):
    page = pages()
    page.get_by_text("Replay a stored run", exact=True).click()  # Play's replay controls: step by step
    speed = page.locator("#vs-replay-speed")
    speed.get_by_label("step by step", exact=True).check()
    expect(speed.get_by_label("step by step", exact=True)).to_be_checked()
    tab(page, "Runs")
    fill(page, "vs-runs-id", imported_run)
    page.click("#vs-runs-open")
    shows(page, "vs-runs-header", imported_run)
    page.click("#vs-runs-replay")
    expect(page.get_by_role("tab", name="Play", exact=True)).to_have_attribute("aria-selected", "true")
    shows(page, "vs-play-status", re.compile(rf"Replay of run {imported_run} · step by step · event 1 / \d+"))
    shows(page, "vs-stepper", "阶段：已透露 1 / 1")  # the trajectory is a Chinese task

    page.click("#vs-replay-step")  # one event at a time
    shows(page, "vs-play-status", "event 2 /")
    page.click("#vs-replay-next")  # the run has no stage decisions: on to the next user turn
    shows(page, "vs-play-status", re.compile(r"user turn 2 / \d+"))
    at = replay_event_no(page)
    assert at > 2

    speed.get_by_label("20×", exact=True).check()  # and the rest at 20×
    shows(page, "vs-play-status", "· finished ·")
    m = re.search(r"event (\d+) / (\d+)", text_of(page, "vs-play-status"))
    assert m and m.group(1) == m.group(2)
    shows(page, "vs-stepper", "阶段：已透露 1 / 1")  # the trajectory is a Chinese task
    stepper = page.locator("#vs-stepper")
    expect(stepper.locator("li.vs-done")).to_have_count(1)
    expect(stepper.locator("li.vs-current")).to_have_count(0)  # nothing left waiting at the end
    shows(page, "vs-play-score", "Official F1")
    shows(page, "vs-play-chat", "运行已结束")  # the run's end, in the task's language
    expect(page.locator("#vs-play-chat").get_by_text(re.compile(r"^⚙ search\(")).first).to_be_visible()
    shows(page, "vs-counters", "总用时")  # wall time
    expect(page.locator("#vs-replay-step")).to_be_disabled()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "replay_official_end.png"), full_page=True)


def test_a_run_is_picked_from_the_replay_list_in_play(pages, imported_run):
    """Opening Play's replay controls lists the latest runs (the imported one too): pick, Replay."""
    page = pages()
    page.get_by_text("Replay a stored run", exact=True).click()
    page.locator("#vs-replay-run input").click()  # the list, as a person sees it
    expect(page.get_by_role("option").first).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "replay_picker.png"))
    page.get_by_role("option", name=re.compile(rf"^{imported_run} · ")).click()
    expect(page.locator("#vs-replay-run input")).to_have_value(re.compile(imported_run))
    page.get_by_label("20×", exact=True).check()
    page.click("#vs-replay-start")
    shows(page, "vs-play-status", re.compile(rf"Replay of run {imported_run} · "))
    shows(page, "vs-play-status", "· finished ·")
    shows(page, "vs-play-score", "Official F1")


def test_a_replay_link_replays_the_run_and_an_unknown_one_says_so(browser, app_server, imported_run):
    from browser_kit import wait_ready

    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    try:
        page = ctx.new_page()
        page.goto(f"{app_server.url}?replay={imported_run}")
        wait_ready(page)
        shows(page, "vs-play-status", re.compile(rf"Replay of run {imported_run} · "))
        page.get_by_label("20×", exact=True).check()
        shows(page, "vs-play-status", "· finished ·")
        page.goto(f"{app_server.url}?replay=000000000000")
        wait_ready(page)
        shows(page, "vs-play-status", "No run 000000000000")
    finally:
        ctx.close()
