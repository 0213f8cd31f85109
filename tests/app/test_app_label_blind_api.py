"""Blind campaigns, as any client reaches the Label tab's handlers (raw calls to the queue, the
events being private to the page): in a blind campaign no answer names the judge, its verdict's
rationale, the run's agent or its model before the item is labelled — not when the caller asks
for the verdicts ("show anyway" sent as true, to the card's handler and to the toggle's), not in
the one-run view of a run of that campaign, not in the run list; after the label the judge's word
on it comes. A judge-review campaign (not blind) puts the judge's verdict on the card at once.

One app subprocess for the module; each test writes its own run and campaign under its own names.
"""

from __future__ import annotations

import json
import uuid

from label_blind_runs import AGENT, JUDGE, MODEL, scored_run
from raw_gradio import RawSession

from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store

PROGRESS, CARD, VERDICT, REPORT = 2, 3, 7, 8  # the card handlers' outputs (``LabelTab.outs``)
SECRETS = (JUDGE, AGENT, MODEL, "rationale-q7")


def leaks(data) -> list[str]:
    text = json.dumps(data, ensure_ascii=False)
    return [s for s in SECRETS if s in text]


class Tab:
    """One page's Label tab, driven by raw calls to its handlers."""

    def __init__(self, url: str) -> None:
        self.s = RawSession(url)
        self.fn = {key: self.s.dependency(self.s.component(elem_id=elem)["id"], event)[0]
                   for key, elem, event in (("load", "vs-label-load", "click"), ("next item", "vs-camp-next", "click"),
                                            ("y", "vs-label-yes", "click"), ("show", "vs-label-show", "change"))}
        shown = self.s.dependency(self.s.component(elem_id="vs-label-panel")["id"], "select")[0]
        self.shown = self.s.call(shown, [])  # the tab shown: its run and campaign lists, for this page
        assert self.shown.ok, self.shown

    def press(self, run_id: str, name: str, idx: int) -> str:
        card = f"coverage:{idx}:{run_id}:{name}"
        return json.dumps({"card": card, "seq": None, "evidence": [f"0@{card}"], "note": ""})


def _campaign(db, run_id: str, blind: bool) -> tuple[str, str]:
    tag = uuid.uuid4().hex[:6]
    name, person = f"camp-{tag}", f"ann-{tag}"
    create_campaign(Store(db), name, runs=[run_id], annotators=[person], sides=["coverage"], overlap=1, blind=blind)
    return name, person


def test_a_blind_campaign_answers_nothing_of_the_judge_or_agent_before_the_label(app_server):
    run_id = scored_run(app_server.db)
    name, person = _campaign(app_server.db, run_id, blind=True)
    tab = Tab(app_server.url)
    try:
        assert run_id in json.dumps(tab.shown.data) and not leaks(tab.shown.data)  # the run list: no agent, no model
        first = tab.s.call(tab.fn["next item"], [None, name, person, True])  # "show anyway" sent as true
        assert first.ok and "Ground-truth triple 1 of 3" in json.dumps(first.data), first
        assert not leaks(first.data), leaks(first.data)
        assert "Blind" in json.dumps(first.data[VERDICT]) and "Judge review" not in json.dumps(first.data)
        toggled = tab.s.call(tab.fn["show"], [None, True])  # the toggle's handler, called though the page hides it
        assert toggled.ok and not leaks(toggled.data) and "Blind" in json.dumps(toggled.data), toggled
        one_run = tab.s.call(tab.fn["load"], [None, run_id, "coverage", person, True])  # the same run, outside the campaign
        assert one_run.ok and "Ground-truth triple 1 of 3" in json.dumps(one_run.data) and not leaks(one_run.data), one_run

        back = tab.s.call(tab.fn["next item"], [None, name, person, True])
        labelled = tab.s.call(tab.fn["y"], [None, tab.press(run_id, person, 0), True])
        assert back.ok and labelled.ok, labelled
        assert f"judge {JUDGE} agrees" in labelled.data[PROGRESS]  # the judge's word on the item just labelled
        assert "Ground-truth triple 2 of 3" in json.dumps(labelled.data[CARD])
        shown = json.dumps(labelled.data[CARD]) + json.dumps(labelled.data[VERDICT]) + json.dumps(labelled.data[REPORT])
        assert not leaks(shown)  # the next card, its verdicts and the comparison (the run's scores) stay blind
        assert [(r.gt_index, r.covered) for r in Store(app_server.db).labels(run_id=run_id, annotator=person)] == [(0, True)]
    finally:
        tab.s.close()


def test_a_judge_review_puts_the_verdict_on_the_card(app_server):
    run_id = scored_run(app_server.db)
    name, person = _campaign(app_server.db, run_id, blind=False)
    tab = Tab(app_server.url)
    try:
        first = tab.s.call(tab.fn["next item"], [None, name, person, False])  # "show anyway" not asked for
        assert first.ok, first
        card = json.dumps(first.data[CARD])
        assert "Judge review" in card and f"judge {JUDGE}" in card and "covered" in card, card
        assert f"judge {JUDGE}" in json.dumps(first.data[VERDICT])
        assert AGENT not in json.dumps(first.data) and MODEL not in json.dumps(first.data)  # the agent stays unnamed
    finally:
        tab.s.close()
