"""The Label tab's export, called over HTTP through its real handler (a raw call to the queue, as
the page makes it): the official meta-eval zip's ``human_label`` is each item's final label — the
adjudication for a resolved item, whoever presses Export — and the status line and the zip's
``vibesearch_runs.json`` say which rule filled it (issue 39, item 9)."""

from __future__ import annotations

import csv
import io
import json
import uuid
import zipfile
from pathlib import Path

import httpx
from label_runs import new_run
from raw_gradio import RawSession

from vibesearch.labels.campaigns import Item, adjudicate, create_campaign
from vibesearch.store import ScoreRow, Store, VerdictRow


def scored_and_labelled(db: Path) -> tuple[str, str]:
    """A scored run of 3 triples: gt 0 ann covered / bob not, resolved *not covered* by cy;
    gt 1 ann, bob and carl 2 to 1 covered; gt 2 ann covered / bob not, left open. Returns the run
    id and the first annotator's name (ann, made unique for this test)."""
    rid = new_run(db, triples=3)
    store = Store(db)
    verdicts = [VerdictRow(score_id=0, run_id=rid, gt_index=i, covered=True, evidence_json=json.dumps([i])) for i in range(3)]
    store.add_score(ScoreRow(run_id=rid, judge="offline", precision=1, recall=1, f1=1, n_gt=3, n_pred=3, n_covered=3, n_valid=3), verdicts)
    tag = uuid.uuid4().hex[:6]
    ann, bob, carl = f"ann-{tag}", f"bob-{tag}", f"carl-{tag}"
    # not blind: a blind campaign's runs are left out of the official export for anyone but an admin
    camp = create_campaign(store, f"c-{tag}", runs=[rid], annotators=[ann, bob, carl], sides=["coverage"], overlap=2, blind=False)
    for i, said in enumerate([{ann: True, bob: False}, {ann: True, bob: True, carl: False}, {ann: True, bob: False}]):
        for who, covered in said.items():
            store.put_label(rid, i, who, covered, evidence=[i] if covered else [])
    adjudicate(store, camp, Item(rid, "coverage", 0), f"cy-{tag}", False, "not on the page")
    return rid, ann


def test_the_official_export_is_the_final_labels_not_the_pressers(app_server):
    rid, ann = scored_and_labelled(app_server.db)
    s = RawSession(app_server.url)
    shown = s.dependency(s.component(elem_id="vs-label-panel")["id"], "select")[0]
    assert s.call(shown, []).ok  # the tab shown: its run list is filled for this page
    export = s.dependency(s.component(elem_id="vs-label-export-btn")["id"], "click")[0]
    # pressed by ann (her name typed in the tab), who said gt 0 was covered
    got = s.call(export, ["official", "run", rid, None, ann])
    assert got.ok, got
    status, served = got.data
    flat = " ".join(status.split())
    assert "human_label: each item's final label: the adjudication" in flat
    assert "(1 item(s) by adjudication, 1 by majority, 1 open tie(s) left blank and marked in human_comment)" in flat
    body = httpx.get(served["url"], timeout=30).content  # the zip, fetched as the page's download link does
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        rows = list(csv.reader(io.StringIO(z.read("gt_recall_check/daily-en-japan-heritage-trip_sample0.csv").decode("utf-8-sig"))))
        manifest = json.loads(z.read("vibesearch_runs.json"))
    assert [(r[6], r[7]) for r in rows[1:]] == [
        ("否", "not on the page"), ("是", ""), ("", "open tie: 1 yes, 1 no, not adjudicated (no final label)")]
    assert manifest["runs"] == {"daily-en-japan-heritage-trip_sample0": rid} and manifest["human_label"]["rule"] == "final"
    # the label file of the same run carries the same final label on each annotator's row
    got = s.call(export, ["jsonl", "run", rid, None, ann])
    assert got.ok and "final_label: each item's final label" in " ".join(got.data[0].split()), got
    records = [json.loads(line) for line in httpx.get(got.data[1]["url"], timeout=30).text.splitlines()]
    assert {(r["gt_index"], r["annotator"], r["covered"], r["final_label"], r["final_from"]) for r in records if r["gt_index"] == 0} == {
        (0, ann, True, False, "adjudication"), (0, ann.replace("ann", "bob"), False, False, "adjudication")}
