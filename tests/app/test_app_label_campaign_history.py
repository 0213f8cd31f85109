"""The campaign panel's disagreement list says how often an item's resolution was replaced and by
whom last, as one line of text that ``disputes_html`` escapes (names are whatever people typed)."""

from __future__ import annotations

from vibesearch.app import label_campaign as lc
from vibesearch.app.context import AppContext
from vibesearch.run import GraphEvent
from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store

GT = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}]
PRED = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}]
SNEAKY = "<img src=x onerror=alert(1)>"


class _Ctx:
    def __init__(self, store: Store):
        self.store = store


def _disputed(store: Store) -> tuple[AppContext, str]:
    stage = {"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}
    task = {"id": "t1", "subset": "daily", "language": "en", "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [stage]}}
    run = store.create_run("t1", task_json=task, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=PRED, raw_text="[]"))
    create_campaign(store, "c", runs=[run.id], annotators=["ann", "bob"], sides=["coverage"], overlap=2)
    store.put_label(run.id, 0, "ann", True)
    store.put_label(run.id, 0, "bob", False)
    return _Ctx(store), f"{run.id}/coverage/0"  # type: ignore[return-value]


def test_a_resolution_never_replaced_gets_no_note(store: Store):
    ctx, key = _disputed(store)
    assert lc.resolve(ctx, "c", key, "cy", True, "").startswith("Resolved")
    [(label, _)] = lc.dispute_choices(ctx, "c")
    assert "resolved by cy: covered" in label and "replaced" not in label


def test_replacements_are_one_escaped_line(store: Store):
    ctx, key = _disputed(store)
    for who, answer in (("cy", True), ("dee", False), (SNEAKY, True)):
        assert lc.resolve(ctx, "c", key, who, answer, "").startswith("Resolved")
    [(label, choice_key)] = lc.dispute_choices(ctx, "c")
    assert choice_key == key
    assert label.endswith(f"resolved by {SNEAKY}: covered · replaced 2 times (last by {SNEAKY})")
    shown = lc.disputes_html(ctx, "c")
    assert "<img" not in shown and "&lt;img src=x onerror=alert(1)&gt;" in shown
    assert "replaced 2 times (last by &lt;img" in shown
    assert shown.count("<li>") == 1 and "\n" not in label


def test_one_replacement_is_singular(store: Store):
    ctx, key = _disputed(store)
    lc.resolve(ctx, "c", key, "cy", True, "")
    lc.resolve(ctx, "c", key, "dee", False, "")
    assert lc.dispute_choices(ctx, "c")[0][0].endswith("resolved by dee: not covered · replaced 1 time (last by dee)")
