"""The Label tab's campaign panel and its judge comparison, at the function level: the
who-labelled-what table shows the newest items under a count, the disagreement list can leave out
the resolved ones, replacing a resolution is announced, a skipped item comes back last, and an
adjudication is the item's final human label in the agreement report."""

from __future__ import annotations

import json

from vibesearch.app import label_campaign as lc, report_html
from vibesearch.app.context import AppContext
from vibesearch.run import GraphEvent
from vibesearch.labels.agreement import agreement_report
from vibesearch.labels.campaigns import Item, adjudicate, create_campaign, get_campaign, next_item
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow

PRED = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}]


class _Ctx:
    def __init__(self, store: Store):
        self.store = store


def _run(store: Store, n_gt: int) -> str:
    gt = [{"head": f"City {i}", "relation": "has", "tail": f"<b>sight {i}</b>"} for i in range(n_gt)]
    stage = {"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}
    task = {"id": "t1", "subset": "daily", "language": "en", "graph": gt,
            "persona": {"background": "b", "initial_query": "q", "stages": [stage]}}
    run = store.create_run("t1", task_json=task, agent="baseline", user="rules", status="finished")
    store.append(run.id, GraphEvent(triples=PRED, raw_text="[]"))
    return run.id


def test_who_labelled_what_shows_the_newest_under_a_count(store: Store):
    rid = _run(store, 14)
    create_campaign(store, "c", runs=[rid], annotators=["ann"], sides=["coverage"], overlap=1)
    ctx: AppContext = _Ctx(store)  # type: ignore[assignment]
    assert "Nobody has labelled" in lc.who_html(ctx, "c")
    for i in (3, 0, 7, 12, 1, 5, 9, 2, 11, 4, 13, 6):  # labelled out of queue order
        store.put_label(rid, i, "ann", i % 2 == 0, evidence=[0] if i % 2 == 0 else [])
    shown = lc.who_html(ctx, "c", rows=5)
    assert "12 labelled item(s); the 5 most recent shown, newest first." in shown
    numbers = [int(cell.split("<")[0]) for cell in shown.split("<td class='vs-num'>")[1:]]
    assert numbers == [7, 14, 5, 12, 3]  # the last five labelled, newest first (shown from 1)
    assert "&lt;b&gt;sight 6&lt;/b&gt;" in shown and "<b>sight" not in shown  # task text is escaped
    assert "12 labelled item(s), newest first." in lc.who_html(ctx, "c", rows=50)


def test_pending_only_list_replacement_warning_and_skip(store: Store):
    rid = _run(store, 3)
    create_campaign(store, "c", runs=[rid], annotators=["ann", "bob"], sides=["coverage"], overlap=2)
    ctx: AppContext = _Ctx(store)  # type: ignore[assignment]
    camp = get_campaign(store, "c")
    assert next_item(store, camp, "ann", skip=[Item(rid, "coverage", 0)]) == Item(rid, "coverage", 1)
    every = [Item(rid, "coverage", i) for i in range(3)]
    assert next_item(store, camp, "ann", skip=every) == Item(rid, "coverage", 0)  # only skipped ones left: the first
    for i in (0, 1):
        store.put_label(rid, i, "ann", True, evidence=[0])
        store.put_label(rid, i, "bob", False)
    key = f"{rid}/coverage/0"
    assert lc.replace_warning(ctx, key) is None  # nothing resolved yet
    assert lc.resolve(ctx, "c", key, "<i>cy</i>", True, "").startswith("Resolved")
    assert [k for _, k in lc.dispute_choices(ctx, "c", pending_only=True)] == [f"{rid}/coverage/1"]
    assert len(lc.dispute_choices(ctx, "c")) == 2
    pending = lc.disputes_html(ctx, "c", pending_only=True)
    assert pending.count("<li>") == 1 and "coverage #2" in pending
    assert "1 resolved, not listed" in pending and "resolved by &lt;i&gt;cy&lt;/i&gt;: covered" in pending
    assert lc.disputes_html(ctx, "c").count("<li>") == 2
    warning = lc.replace_warning(ctx, key)
    assert warning is not None and "replaces &lt;i&gt;cy&lt;/i&gt;'s resolution (covered)" in warning and "<i>" not in warning
    assert lc.replace_warning(ctx, "not/a/key") is None and lc.replace_warning(ctx, None) is None


def test_an_adjudication_is_the_final_label_in_the_report(store: Store):
    rid = _run(store, 2)
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=0, covered=True, evidence_json="[0]"),
                VerdictRow(score_id=0, run_id=rid, gt_index=1, covered=False, evidence_json="[]")]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=1.0, recall=0.5, f1=2 / 3, n_gt=2, n_pred=1,
                             n_covered=1, n_valid=1), verdicts)
    create_campaign(store, "c", runs=[rid], annotators=["ann", "bob"], sides=["coverage"], overlap=2)
    for i in (0, 1):
        store.put_label(rid, i, "ann", True, evidence=[0])
        store.put_label(rid, i, "bob", False)
    before = agreement_report(store, rid)
    # both items are open ties: left out of the comparison and counted (no longer read as "not covered")
    assert before["judges"][0]["n"] == 0 and before["judges"][0]["agreement"] is None
    assert (before["n_adjudicated"], before["n_open_ties"]) == (0, 2) and before["prf"] == []
    adjudicate(store, get_campaign(store, "c"), Item(rid, "coverage", 0), "cy", True)
    after = agreement_report(store, rid)
    assert after["judges"][0]["agreement"] == 1.0 and after["n_adjudicated"] == 1 and after["n_open_ties"] == 1
    assert after["judges"][0]["confusion"] == {"tp": 1, "fn": 0, "fp": 0, "tn": 0}
    assert after["prf"][0]["human"]["recall"] == 1.0 and after["prf"][0]["n_labelled"] == 1
    vs_ann = next(r for r in after["judge_vs_annotator"] if r["against"] == "ann")
    assert vs_ann["agreement"] == 0.5  # each annotator on their own is unchanged
    assert after["validity"]["n_adjudicated"] == 0
    assert "1 item(s) decided by an adjudication instead" in report_html(after, annotator="cy")
    assert json.loads(json.dumps(after["n_adjudicated"])) == 1
