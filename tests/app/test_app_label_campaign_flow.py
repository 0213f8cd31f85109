"""A labelling campaign in Chromium (issue 13): two annotators take items from their queues and
label both sides of a run with the keyboard, disagree, and a third person resolves the
disagreement in the adjudication panel (one who labelled the item is refused there)."""

from __future__ import annotations

import pytest
from browser_kit import choose, fill, shows, tab
from playwright.sync_api import Page, expect

from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import GraphEvent
from vibesearch.labels.campaigns import create_campaign, final_label, Item
from vibesearch.store import Store
from vibesearch.tasks import load_tasks

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"
CAMPAIGN = "browser-camp"


@pytest.fixture(scope="module")
def campaign_run(app_server) -> str:
    """A finished run with one ground-truth and one predicted triple, in a campaign of ann and bob
    (overlap 2, both sides), written into the app's database before any page opens."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == JAPAN)
    snap = task.model_dump(mode="json")
    snap["graph"] = snap["graph"][:1]
    store = Store(app_server.db)
    run = store.create_run(JAPAN, task_json=snap, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=[dict(snap["graph"][0])], raw_text="[]"))
    create_campaign(store, CAMPAIGN, runs=[run.id], annotators=["ann", "bob"], sides=["coverage", "validity"], overlap=2)
    return run.id


def key(page: Page, letter: str) -> None:
    """Press a shortcut with no text field focused (the card takes the click)."""
    page.locator("#vs-label-card").click()
    page.keyboard.press(letter)


def label_both_sides(page: Page, name: str, agree_with_judge: bool) -> None:
    tab(page, "Label")
    choose(page, "vs-camp-pick", CAMPAIGN)
    fill(page, "vs-label-annotator", name)
    page.click("#vs-camp-next")
    shows(page, "vs-label-card", "Ground-truth triple 1 of 1")
    shows(page, "vs-label-yes", "Covered (y)")
    if agree_with_judge:
        page.locator("#vs-label-evidence input[type=checkbox]").nth(0).check()
    key(page, "y" if agree_with_judge else "n")
    # the queue moves on to the other side of the same run
    shows(page, "vs-label-card", "Predicted triple 1 of 1")
    shows(page, "vs-label-yes", "Valid (y)")
    if agree_with_judge:
        page.locator("#vs-label-evidence input[type=checkbox]").nth(0).check()
    key(page, "y" if agree_with_judge else "n")
    shows(page, "vs-label-status", f"Your queue in campaign {CAMPAIGN} is empty")
    shows(page, "vs-camp-progress", f"{name}: 2 labelled, 0 left in your queue")


def test_two_annotators_disagree_and_a_third_resolves(pages, campaign_run, app_server):
    ann, bob = pages(), pages()
    label_both_sides(ann, "ann", True)
    label_both_sides(bob, "bob", False)
    shows(bob, "vs-camp-progress", "items done 2 / 2")
    shows(bob, "vs-camp-progress", "disagreements waiting: 2")

    store = Store(app_server.db)
    cov = {r.annotator: r.covered for r in store.labels(run_id=campaign_run)}
    val = {r.annotator: r.valid for r in store.pred_labels(run_id=campaign_run)}
    assert cov == {"ann": True, "bob": False} and val == {"ann": True, "bob": False}

    # bob labelled the item, so he may not settle it
    choose(bob, "vs-camp-dispute", "coverage #1")
    bob.click("#vs-camp-resolve-yes")
    shows(bob, "vs-camp-status", "a disagreement is resolved by a third person")

    cy = pages()
    tab(cy, "Label")
    choose(cy, "vs-camp-pick", CAMPAIGN)
    shows(cy, "vs-camp-disputes", "ann=covered, bob=not covered")
    shows(cy, "vs-camp-who", "ann: valid, bob: invalid")
    fill(cy, "vs-label-annotator", "cy")
    choose(cy, "vs-camp-dispute", "coverage #1")
    fill(cy, "vs-camp-comment", "the ratification year matches")
    cy.click("#vs-camp-resolve-yes")
    shows(cy, "vs-camp-status", "Resolved coverage #1")
    shows(cy, "vs-camp-disputes", "resolved by cy: covered")
    shows(cy, "vs-camp-progress", "disagreements waiting: 1")
    expect(cy.locator(".toast-body.error")).to_have_count(0)

    [adj] = store.adjudications([campaign_run])
    assert (adj.side, adj.item_index, adj.label, adj.adjudicator, adj.comment) == ("coverage", 0, True, "cy", "the ratification year matches")
    assert final_label(store, Item(campaign_run, "coverage", 0)) is True
    assert final_label(store, Item(campaign_run, "validity", 0)) is None  # still open
