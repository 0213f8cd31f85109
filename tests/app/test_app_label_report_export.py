"""The Label tab's judge-comparison report, its label export and the campaign panel under the
``own`` read policy (issue 13), at the level of the functions its handlers call."""

from __future__ import annotations

import csv
import json
import zipfile

import pytest
from pydantic import SecretStr

from vibesearch.app import Access, ExportRefused, Who, export_file, label_campaign as lc
from vibesearch.app.context import AppContext
from vibesearch.app.label import LabelView, agreement_html
from vibesearch.config import Settings
from vibesearch.run import GraphEvent
from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import ScoreRow, Store, VerdictRow

GT = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}, {"head": "Nara", "relation": "has", "tail": "deer"}]
PRED = [{"head": "Kyoto", "relation": "has temple", "tail": "Kinkaku-ji"}, {"head": "Nara", "relation": "has", "tail": "deer"}]
ALICE, BOB = Who(owner="user:alice", login="alice"), Who(owner="user:bob", login="bob")


class _Ctx:
    """What the functions reach: the store, the access rules and the read test."""

    def __init__(self, store: Store, *, own: bool):
        self.store = store
        settings = Settings(auth=SecretStr("alice:a,bob:b"), read_runs="own" if own else "all", db=store.path)
        self.access = Access(settings)

    def readable(self, who, run) -> bool:
        return self.access.may_read(who, run.owner)


def _ctx(store: Store, own: bool = True) -> AppContext:
    return _Ctx(store, own=own)  # type: ignore[return-value]


def _snapshot(task_id: str) -> dict:
    """A run's stored task (a whole ``Task`` dump: a partial one reads as no task) with ``GT``."""
    stage = {"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}
    return {"id": task_id, "subset": "daily", "language": "en", "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [stage]}}


def _run(store: Store, owner: str, task_id: str = "t1") -> str:
    run = store.create_run(task_id, task_json=_snapshot(task_id),
                           agent="baseline", user="rules", status="finished", owner=owner)
    store.append(run.id, GraphEvent(triples=PRED, raw_text="[]"))
    verdicts = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=True, evidence_json=json.dumps([i])) for i in range(2)]
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=1, recall=1, f1=1, n_gt=2, n_pred=2, n_covered=2, n_valid=2), verdicts)
    for i in range(2):
        store.put_label(run.id, i, "alice" if owner == "user:alice" else "bob", True, evidence=[i], note=f"note {i}")
    return run.id


def _view(run_id: str) -> LabelView:
    """The tab's view after alice labelled both triples, with the offline judge's verdicts."""
    return LabelView(run_id=run_id, annotator="alice", gt=GT, pred=PRED, mine={0: (True, [0]), 1: (True, [1])},
                     verdicts={"offline": {0: (True, [0], None, ""), 1: (True, [1], None, "")}})


@pytest.fixture
def runs(store):
    return _run(store, "user:alice"), _run(store, "user:bob", "t2")


def test_the_report_shows_intervals_and_explains_kappa_in_words(store, runs):
    mine, _ = runs
    v = _view(mine)
    page = agreement_html(_ctx(store), v, who=ALICE)
    assert "id='vs-label-agree-coverage'" in page and "-you'" not in page  # one annotator: the majority is hers
    assert "100.0% <span class='vs-muted'>[100.0%, 100.0%]</span>" in page  # agreement with its 95% interval
    assert "κ is undefined: both offline judge and the human majority said" in page  # kappa in words
    assert "No labels on this side yet." in page  # the validity side has none
    assert "agreement with you (the only annotator)" in page
    assert "P 100.0 · R 100.0 · F1 100.0" in page


def test_the_report_shows_the_human_ceiling_ac1_and_prevalence(store, runs):
    """Beside the judge: people against each other on the items both labelled, Gwet's AC1, and
    the share of "covered" on each side (issue 37)."""
    mine, _ = runs
    store.put_label(mine, 0, "bob", True, evidence=[0])
    store.put_label(mine, 1, "bob", False)  # alice said covered: a disagreement, an open tie
    page = agreement_html(_ctx(store, own=False), _view(mine), who=ALICE)
    # item 0: the one pair agrees; item 1: it does not -> 50% over 2 items, 2 pairs;
    # pi = (1 + 1/2) / 2 = 3/4, p_e = 2 * 3/4 * 1/4 = 3/8, AC1 = (1/2 - 3/8) / (5/8) = 0.2
    assert "id='vs-label-ceiling-coverage'" in page
    assert "human ceiling: people agree 50.00% [0.00, 100.00] with each other (n 2 items, 2 pairs), AC1 0.200" in page
    assert "&quot;covered&quot; in 100.00% of 1 final human labels" in page  # item 1 is an open tie, left out
    assert "<th>Gwet&#x27;s AC1</th>" in page or "<th>Gwet's AC1</th>" in page
    assert "<td class='vs-num'>100.0% / 100.0%</td>" in page  # "covered": people / judge on the compared item
    alone = agreement_html(_ctx(store), _view(runs[1]), who=BOB)  # one annotator on the run: no ceiling, said so
    assert "human ceiling: none (no item labelled by two or more people)" in alone


def test_the_report_over_every_run_is_for_those_who_may_read_every_run(store, runs):
    mine, _ = runs
    v = _view(mine)
    assert "for those who may read every run" in agreement_html(_ctx(store), v, scope="all", who=ALICE)
    assert "2 run(s)" in agreement_html(_ctx(store), v, scope="all", who=Who(owner="user:carol", login="carol", admin=True))
    every = agreement_html(_ctx(store, own=False), v, scope="all", who=ALICE)
    assert "2 run(s) by 2 annotator(s)" in every and "id='vs-label-agree-coverage-you'" in every  # alice against bob too


def test_export_writes_only_readable_runs_with_the_triple_text(store, runs, tmp_path):
    mine, theirs = runs
    path, line = export_file(_ctx(store), ALICE, "jsonl", out_dir=tmp_path / "a")
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert {r["run_id"] for r in records} == {mine} and "2 coverage label(s)" in line
    assert (records[0]["head"], records[0]["relation"], records[0]["tail"]) == ("Kyoto", "has temple", "Kinkaku-ji")
    path, _ = export_file(_ctx(store), ALICE, "csv", out_dir=tmp_path / "b")
    assert {row["run_id"] for row in csv.DictReader(path.open(encoding="utf-8"))} == {mine}
    path, _ = export_file(_ctx(store, own=False), ALICE, "csv", out_dir=tmp_path / "c")
    assert {row["run_id"] for row in csv.DictReader(path.open(encoding="utf-8"))} == {mine, theirs}
    with pytest.raises(ExportRefused, match="that you may read"):
        export_file(_ctx(store), ALICE, "jsonl", run_id=theirs, out_dir=tmp_path / "d")


def test_export_official_is_a_zip_of_both_folders(store, runs, tmp_path):
    mine, _ = runs
    path, line = export_file(_ctx(store), ALICE, "official", out_dir=tmp_path)
    names = {n for n in zipfile.ZipFile(path).namelist() if n.endswith(".csv")}
    # named as the official script names them (alice's run is task t1's first sample); bob's run is not in it
    assert path.suffix == ".zip" and names == {"gt_recall_check/t1_sample0.csv", "pred_precision_check/t1_sample0.csv"}
    manifest = json.loads(zipfile.ZipFile(path).read("vibesearch_runs.json"))
    assert manifest["runs"] == {"t1_sample0": mine} and manifest["human_label"]["rule"] == "final"
    body = zipfile.ZipFile(path).read("gt_recall_check/t1_sample0.csv").decode("utf-8-sig")
    rows = list(csv.reader(body.splitlines()))
    # alice's two labels are each item's only vote: the strict majority (annotators' notes are not the final label's comment)
    assert rows[0][:5] == ["gt_index", "head", "relation", "tail", "model_covered"] and [r[6:] for r in rows[1:]] == [["是", ""], ["是", ""]]
    assert "1 run(s)" in line and "human_label: each item's final label" in line and "2 by majority" in line


def test_the_campaign_panel_hides_runs_the_person_may_not_read(store, runs):
    mine, theirs = runs
    store.put_label(theirs, 0, "alice", False)  # a disagreement on bob's run
    create_campaign(store, "c", runs=[mine, theirs], annotators=["alice", "bob"], sides=["coverage"], overlap=2)
    ctx = _ctx(store)
    assert mine in lc.who_html(ctx, "c", lc.reader(ctx, ALICE)) and theirs not in lc.who_html(ctx, "c", lc.reader(ctx, ALICE))
    assert theirs in lc.who_html(ctx, "c", lc.reader(ctx, BOB))
    assert lc.dispute_choices(ctx, "c", lc.reader(ctx, ALICE)) == []
    [(_, key)] = lc.dispute_choices(ctx, "c", lc.reader(ctx, BOB))
    assert "that you may read" in lc.resolve(ctx, "c", key, "carl", True, "", lc.reader(ctx, ALICE))
    # alice labelled her own run; her next item would be on bob's run, which she may not read
    assert "queue in campaign c is empty" in str(lc.queue_next(ctx, "c", "alice", lc.reader(ctx, ALICE)))
    assert lc.queue_next(ctx, "c", "alice", lc.reader(open_ := _ctx(store, own=False), ALICE)).run_id == theirs  # type: ignore[union-attr]
    # with an open read policy everything shows
    assert theirs in lc.who_html(open_, "c", lc.reader(open_, ALICE))


def _official(ctx, who, out) -> list[str]:
    """The files of ``who``'s official meta-eval export (the zip's names)."""
    return zipfile.ZipFile(export_file(ctx, who, "official", out_dir=out)[0]).namelist()


def test_the_official_export_leaves_a_blind_play_out_for_all_but_admins(store, tmp_path):
    """Its folders are named after a configuration (agent and model): a blind study's play is not in
    it for a non-admin; our labels (no agent in them) still are."""
    _run(store, "user:alice")
    blind = _run(store, "user:alice", "t3")
    store.update_run(blind, meta={"study": "s1", "blind": True}, agent="secret-kind", agent_model="secret/model")
    ctx = _ctx(store, own=False)
    with pytest.raises(ExportRefused, match="blind study's play"):
        export_file(ctx, ALICE, "official", run_id=blind, out_dir=tmp_path / "a")
    names = _official(ctx, ALICE, tmp_path / "b")
    assert not [n for n in names if "t3" in n or "secret" in n] and "gt_recall_check/t1_sample0.csv" in names
    admin = Who(owner="user:root", login="root", admin=True)
    names = _official(ctx, admin, tmp_path / "c")
    assert any("t3_sample0" in n and "secret" in n for n in names), names  # an admin's: under the agent's folder
    path, _ = export_file(ctx, ALICE, "jsonl", run_id=blind, out_dir=tmp_path / "d")
    assert "secret" not in path.read_text() and path.read_text().strip()


def test_the_official_export_leaves_a_blind_campaigns_runs_out_for_all_but_admins(store, tmp_path):
    """They carry the judge's decisions and name the agent: a blind campaign's run is not in a
    non-admin's official export (a judge review's is); our labels still export."""
    _run(store, "user:alice")
    hidden = _run(store, "user:alice", "t3")
    store.update_run(hidden, agent="secret-kind", agent_model="secret/model")
    create_campaign(store, "quiet", runs=[hidden], annotators=["alice"], sides=["coverage"], overlap=1)
    ctx = _ctx(store, own=False)
    with pytest.raises(ExportRefused, match="run of a blind campaign"):
        export_file(ctx, ALICE, "official", run_id=hidden, out_dir=tmp_path / "a")
    assert not [n for n in _official(ctx, ALICE, tmp_path / "b") if "t3" in n or "secret" in n]
    assert any("t3_sample0" in n for n in _official(ctx, Who(owner="user:root", login="root", admin=True), tmp_path / "c"))
    assert "secret" not in export_file(ctx, ALICE, "jsonl", run_id=hidden, out_dir=tmp_path / "d")[0].read_text()
    review_run = _run(store, "user:alice", "t4")
    create_campaign(store, "review", runs=[review_run], annotators=["alice"], sides=["coverage"], overlap=1, blind=False)
    assert any("t4_sample0" in n for n in _official(ctx, ALICE, tmp_path / "e"))  # a judge review's run is in it
