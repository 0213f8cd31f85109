"""The Label tab's keys, called over HTTP as any client can (the events are private to the page, so
``gradio_client`` will not call them, but a raw call to the queue reaches the same handlers): a
press says which card it was pressed on (and the evidence ticked, each naming the card it was
listed for), and the server refuses — nothing stored — a press for a card that is not the one
shown, a press that names no card, evidence listed for another card, and a press that reaches
the server after one the page made later.

One app subprocess for the module; each test writes its own run and labels under its own name.
"""

from __future__ import annotations

import json
import uuid

from label_runs import new_run
from raw_gradio import RawSession, Result

from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store

STATUS, PROGRESS, CARD, REFUSED = 1, 2, 3, -1  # the handlers' outputs: view, status, progress, card, …, the refusal line


def card(run_id: str, name: str, idx: int) -> str:
    """The id the page stamps a press with (the card's ``data-card``)."""
    return f"coverage:{idx}:{run_id}:{name}"


def press(run_id: str, name: str, idx: int, seq: int | None = None, ticked: tuple[int, ...] = (), on: int | None = None) -> str:
    """A press made on card ``idx`` with supporting triples ``ticked`` (as listed for card ``on``:
    the same card unless said)."""
    listed = card(run_id, name, idx if on is None else on)
    return json.dumps({"card": card(run_id, name, idx), "seq": seq, "evidence": [f"{i}@{listed}" for i in ticked], "note": ""})


class LabelTab:
    """One page's Label tab, driven by raw calls to its handlers."""

    def __init__(self, url: str) -> None:
        self.s = RawSession(url)
        self.fn = {key: self.s.dependency(self.s.component(elem_id=elem)["id"], "click")[0]
                   for key, elem in (("load", "vs-label-load"), ("next item", "vs-camp-next"), ("y", "vs-label-yes"),
                                     ("n", "vs-label-no"), ("j", "vs-label-next"))}
        shown = self.s.dependency(self.s.component(elem_id="vs-label-panel")["id"], "select")[0]
        assert self.s.call(shown, []).ok  # the tab shown: its run and campaign lists are filled for this page

    def load(self, run_id: str, name: str) -> Result:
        return self.s.call(self.fn["load"], [None, run_id, "coverage", name, False])

    def label(self, key: str, stamp: str | None) -> Result:
        return self.s.call(self.fn[key], [None, stamp, False])


def stored(db, run_id: str, name: str) -> list[tuple[int, bool]]:
    return sorted((r.gt_index, r.covered) for r in Store(db).labels(run_id=run_id, annotator=name))


def test_a_press_for_another_card_or_none_is_refused_and_nothing_is_stored(app_server):
    run_id, name = new_run(app_server.db), f"api-{uuid.uuid4().hex[:6]}"
    tab = LabelTab(app_server.url)
    try:
        loaded = tab.load(run_id, name)
        assert loaded.ok and f"data-card='{card(run_id, name, 0)}'" in loaded.data[CARD], loaded
        for stamp in (press(run_id, name, 1), press(run_id, name, 0).replace(name, "someone-else"), None, "not json"):
            got = tab.label("n", stamp)
            assert got.ok, got
            assert got.data[REFUSED].startswith("⚠ Not stored"), (stamp, got.data[REFUSED])
            assert stored(app_server.db, run_id, name) == [] and stored(app_server.db, run_id, "someone-else") == []
        refused = tab.label("n", press(run_id, name, 1))
        assert refused.data[REFUSED] == ("⚠ Not stored: “n” was pressed on ground-truth triple 2, no longer the card shown "
                                         "(now ground-truth triple 1); nothing was stored. Press it again if you meant this one.")
        assert "did not say which card" in tab.label("n", None).data[REFUSED]
        moved = tab.label("j", press(run_id, name, 5))  # a move is refused the same way: the card stays
        assert moved.data[REFUSED].startswith("⚠ Not done") and "value" not in moved.data[CARD], moved
        # the press for the card shown is stored, and the card moves on
        stale = tab.label("y", press(run_id, name, 0, ticked=(0,), on=5))  # evidence listed for another card
        assert "evidence still ticked was listed for another card" in stale.data[STATUS], stale
        assert stored(app_server.db, run_id, name) == []
        done = tab.label("y", press(run_id, name, 0, ticked=(0,)))
        assert "1 / 30" in done.data[PROGRESS] and "Ground-truth triple 2 of 30" in done.data[CARD], done
        assert stored(app_server.db, run_id, name) == [(0, True)]
        assert [json.loads(r.evidence_json) for r in Store(app_server.db).labels(run_id=run_id, annotator=name)] == [[0]]
        # the same stamp again: that card is no longer shown, so it does not label triple 2
        again = tab.label("n", press(run_id, name, 0))
        assert "pressed on ground-truth triple 1" in again.data[REFUSED]
        assert stored(app_server.db, run_id, name) == [(0, True)]
    finally:
        tab.s.close()


def test_presses_are_handled_in_the_order_the_page_made_them(app_server):
    """The page's 2nd press (``y``) and 3rd (``n``), both made on triple 2, reach the server 3rd
    first: the ``n`` waits for the ``y``, which labels triple 2; the ``n`` is then for a card no
    longer shown and is refused — it neither relabels triple 2 nor labels triple 3."""
    run_id, name = new_run(app_server.db), f"order-{uuid.uuid4().hex[:6]}"
    tab = LabelTab(app_server.url)
    try:
        assert tab.load(run_id, name).ok
        assert tab.label("n", press(run_id, name, 0, seq=1)).ok
        n3, y2 = tab.s.call_many([(tab.fn["n"], [None, press(run_id, name, 1, seq=3), False]),
                                  (tab.fn["y"], [None, press(run_id, name, 1, seq=2, ticked=(0,)), False])])
        assert y2.ok and "Ground-truth triple 3 of 30" in y2.data[CARD] and "value" not in y2.data[REFUSED], y2
        assert n3.ok and "“n” was pressed on ground-truth triple 2" in n3.data[REFUSED], n3
        assert stored(app_server.db, run_id, name) == [(0, False), (1, True)]
        late = tab.label("y", press(run_id, name, 2, seq=2, ticked=(0,)))  # a press older than one already handled
        assert "reached the server after a key pressed later" in late.data[REFUSED], late
        assert stored(app_server.db, run_id, name) == [(0, False), (1, True)]
    finally:
        tab.s.close()


def test_in_a_campaign_a_second_key_for_the_item_neither_relabels_it_nor_labels_the_next(app_server):
    """A campaign hands out a new view for the next item; the page keeps one view object, so the
    ``n`` waiting behind the ``y`` sees the item the ``y`` moved on to, and is refused."""
    run_id, name, campaign = new_run(app_server.db), f"camp-{uuid.uuid4().hex[:6]}", f"keys-{uuid.uuid4().hex[:6]}"
    create_campaign(Store(app_server.db), campaign, runs=[run_id], annotators=[name], sides=["coverage"], overlap=1)
    tab = LabelTab(app_server.url)
    try:
        first = tab.s.call(tab.fn["next item"], [None, campaign, name, False])
        assert first.ok and f"data-card='{card(run_id, name, 0)}'" in first.data[CARD] and campaign in first.data[CARD], first
        y1, n2 = tab.s.call_many([(tab.fn["y"], [None, press(run_id, name, 0, seq=1, ticked=(0,)), False]),
                                  (tab.fn["n"], [None, press(run_id, name, 0, seq=2), False])])
        assert y1.ok and f"data-card='{card(run_id, name, 1)}'" in y1.data[CARD], y1
        assert n2.ok and "“n” was pressed on ground-truth triple 1, no longer the card shown" in n2.data[REFUSED], n2
        assert stored(app_server.db, run_id, name) == [(0, True)]
        n3 = tab.label("n", press(run_id, name, 1, seq=3))  # pressed on the item shown: stored, the queue moves on
        assert f"data-card='{card(run_id, name, 2)}'" in n3.data[CARD] and n3.data[REFUSED] == "", n3
        assert stored(app_server.db, run_id, name) == [(0, True), (1, False)]
    finally:
        tab.s.close()
