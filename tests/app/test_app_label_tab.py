"""The Label tab in Chromium, as a labeller meets it (issue 13): the run list is filled when the
page opens (no "Refresh run list"), and a start or a label the tab refuses is one clear line on
its status line — no toast, no red "Error" badge on every component. One app subprocess for the
module; the finished run comes from a fixture that starts it through the API."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from browser_kit import choose, fill, shows, tab, text_of
from gradio_client import Client
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"  # 75 ground-truth triples
SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))


@pytest.fixture(scope="module")
def offline_run(app_server) -> str:
    """A short finished, scored run of the offline baseline, started through the API."""
    client = Client(app_server.url, verbose=False)
    try:
        run_id = client.predict(JAPAN, "baseline", "rules", "", "", "", "offline", 3, api_name="/start_run")
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            status = client.predict(run_id, api_name="/run_status")
            if not status["live"] and (status["scores"] or status["status"] != "finished"):
                break
            time.sleep(0.5)
        assert status["status"] == "finished" and status["scores"], status
        return run_id
    finally:
        client.close()


def no_error_badges(page: Page) -> None:
    """Nothing on the page shows Gradio's error state: no toast, no "Error" badge."""
    expect(page.locator(".toast-body.error")).to_have_count(0)
    expect(page.locator("#vs-label-panel").get_by_text("Error", exact=True)).to_have_count(0)


def test_the_run_list_is_filled_without_refresh(pages, offline_run):
    page = pages()
    tab(page, "Label")
    choose(page, "vs-label-run", offline_run)  # "Refresh run list" is never pressed
    expect(page.locator("#vs-label-run input")).to_have_value(offline_run + " · " + JAPAN + " · baseline · finished")


def test_refused_starts_and_labels_are_one_line_on_the_status(pages, offline_run):
    page = pages()
    tab(page, "Label")
    page.click("#vs-label-load")  # nothing picked
    shows(page, "vs-label-status", "Pick a run first")
    no_error_badges(page)
    assert text_of(page, "vs-label-card").strip() == ""  # the other components are left as they were
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "label_nothing_picked.png"), full_page=True)

    choose(page, "vs-label-run", offline_run)
    page.click("#vs-label-load")  # no annotator name
    shows(page, "vs-label-status", "Type your annotator name first")
    no_error_badges(page)

    fill(page, "vs-label-annotator", "dora")
    page.click("#vs-label-load")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 75")
    expect(page.locator("#vs-label-status")).not_to_contain_text("Type your annotator")
    page.click("#vs-label-yes")  # "covered" with no supporting prediction ticked
    shows(page, "vs-label-status", "needs at least one supporting prediction")
    no_error_badges(page)
    shows(page, "vs-label-card", "Ground-truth triple 1 of 75")  # still on it, nothing stored
    shows(page, "vs-label-progress", "0 / 75")
    page.locator("#vs-label-evidence input[type=checkbox]").nth(0).check()
    page.click("#vs-label-yes")
    shows(page, "vs-label-progress", "1 / 75")
    shows(page, "vs-label-card", "Ground-truth triple 2 of 75")
    # after one label each side has a single class, so κ says nothing: the tab says so in words
    shows(page, "vs-label-agreement", re.compile(r"κ is (undefined|0)\b.*the one ground-truth triple"))
    shows(page, "vs-label-agreement", "95% bootstrap intervals")  # the judge comparison, with its intervals
    shows(page, "vs-label-agreement", "human ceiling: none (no item labelled by two or more people)")  # one annotator: no ceiling
    page.locator("#vs-label-export").get_by_text("Export labels").click()  # the export: our JSONL of this run
    page.click("#vs-label-export-btn")
    shows(page, "vs-label-export-status", "Exported 1 coverage label(s) of run")
    expect(page.locator("#vs-label-export-file").get_by_text(re.compile(r"labels-.*\.jsonl"))).to_be_visible()
    page.locator("#vs-label-scope").get_by_text("Every labelled run").click()  # the report over every run ...
    shows(page, "vs-label-agreement", "(every labelled run)")
    page.click("#vs-label-no")  # ... stays so while labelling
    shows(page, "vs-label-progress", "2 / 75")
    shows(page, "vs-label-agreement", "2 labelled item(s) in 1 run(s) by 1 annotator(s) (every labelled run)")
    expect(page.locator("#vs-label-status")).not_to_contain_text("supporting prediction")
    page.screenshot(path=str(SHOTS / "label_after_one.png"), full_page=True)
