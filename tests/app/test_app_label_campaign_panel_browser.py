"""The Label tab's campaign panel in Chromium: picking a campaign hides the one-run row; the panel
refreshes itself (a label written elsewhere shows up without a click); the disagreement list
shows the pending ones unless "show resolved" is ticked; and replacing someone's resolution asks
first. The test writes its own run, campaign and labels, so it passes alone and in any order."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from browser_kit import choose, fill, shows, tab
from playwright.sync_api import expect

from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import GraphEvent
from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store
from vibesearch.tasks import load_tasks

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"
SHOTS = Path(os.environ.get("VIBESEARCH_LABEL_SHOTS", "/tmp/label_shots"))


def test_the_panel_refreshes_lists_pending_and_asks_before_replacing(pages, app_server):
    tag = uuid.uuid4().hex[:6]
    ann, bob, cy, dee, name = f"ann-{tag}", f"bob-{tag}", f"cy-{tag}", f"dee-{tag}", f"panel-{tag}"
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == JAPAN)
    snap = task.model_dump(mode="json")
    snap["graph"] = snap["graph"][:3]
    store = Store(app_server.db)
    run = store.create_run(JAPAN, task_json=snap, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=[dict(t) for t in snap["graph"]], raw_text="[]"))
    create_campaign(store, name, runs=[run.id], annotators=[ann, bob], sides=["coverage"], overlap=2)
    for i in (0, 1):
        store.put_label(run.id, i, ann, True, evidence=[i])
        store.put_label(run.id, i, bob, False)
    store.put_label(run.id, 2, ann, True, evidence=[2])

    page = pages()
    tab(page, "Label")
    expect(page.locator("#vs-label-one-run")).to_be_visible()
    expect(page.locator("#vs-camp-who")).to_be_hidden()  # no campaign: no campaign tables under the card
    choose(page, "vs-camp-pick", name)
    expect(page.locator("#vs-label-one-run")).to_be_hidden()
    shows(page, "vs-camp-progress", "disagreements waiting: 2")
    shows(page, "vs-camp-disputes", "coverage #2")

    store.put_label(run.id, 2, bob, False)  # written elsewhere: the panel shows it on its own
    shows(page, "vs-camp-progress", "disagreements waiting: 3")
    shows(page, "vs-camp-disputes", "coverage #3")

    fill(page, "vs-label-annotator", cy)
    choose(page, "vs-camp-dispute", "coverage #1")
    page.click("#vs-camp-resolve-yes")  # nothing to replace: stored at once
    shows(page, "vs-camp-status", "Resolved coverage #1")
    shows(page, "vs-camp-progress", "disagreements waiting: 2")
    shows(page, "vs-camp-disputes", "1 resolved, not listed")
    expect(page.locator("#vs-camp-disputes li")).to_have_count(2)  # the pending ones only
    expect(page.locator("#vs-camp-disputes li").filter(has_text="coverage #1")).to_have_count(0)

    page.get_by_label("Show resolved ones too").check()
    expect(page.locator("#vs-camp-disputes li")).to_have_count(3)
    shows(page, "vs-camp-disputes", f"resolved by {cy}: covered")

    fill(page, "vs-label-annotator", dee)
    choose(page, "vs-camp-dispute", "coverage #1")
    page.click("#vs-camp-resolve-no")
    shows(page, "vs-camp-status", f"This replaces {cy}'s resolution (covered)")
    [adj] = store.adjudications([run.id])
    assert (adj.adjudicator, adj.label) == (cy, True)  # not replaced yet
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "campaign_confirm.png"), full_page=True)
    page.click("#vs-camp-resolve-no")
    shows(page, "vs-camp-status", f"Resolved coverage #1 of run {run.id}: not covered, by {dee}")
    [adj] = store.adjudications([run.id])
    assert (adj.adjudicator, adj.label) == (dee, False)
    shows(page, "vs-camp-disputes", "replaced 1 time")

    page.click("#vs-camp-leave")  # back to labelling one run
    expect(page.locator("#vs-label-one-run")).to_be_visible()
    expect(page.locator("#vs-camp-refresh")).to_be_hidden()
    expect(page.locator("#vs-camp-disputes")).to_be_hidden()
