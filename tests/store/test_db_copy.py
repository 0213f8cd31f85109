"""``vibesearch db copy``: every table from SQLite to PostgreSQL and back, verified by counts and
checksums; a non-empty destination refused; a copy that differs is exit 1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vibesearch.run import GraphEvent, MessageEvent, WebEvent
from vibesearch.store import AdjudicationRow, CampaignRow, ScoreRow, Store, VerdictRow, VoteCampaignRow, VoteRow, copy as copy_mod, db_target, make_engine
from vibesearch.store.leases import claim, new_owner, run_key
from vibesearch.store.tables import StudyRow

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"


def _cli(*args: str):
    from vibesearch.cli.main import app

    return CliRunner().invoke(app, list(args))


def _filled(path: Path) -> Store:
    """A previous release's file, upgraded, with a row in every table."""
    shutil.copy(PREV, path)
    store = Store(path)
    run = store.create_run("t", meta={"note": "ünïcode ✓"})
    store.append(run.id, MessageEvent(role="user", content="hello\nworld"))
    store.append(run.id, GraphEvent(source="extraction", triples=[{"head": "a", "relation": "b", "tail": "c"}], raw_text="a b c"))
    page = WebEvent(op="visit", backend="web", url="https://a.example/", final_url="https://a.example/", status=200, title="A")
    page.text_sha256, page.body_sha256 = page.attach("ünïcode page".encode()), page.attach(b"\x00\xff<html>raw</html>")
    store.append(run.id, page)  # its two contents go to web_blobs
    store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=0.1, recall=1 / 3, f1=0.15384615384615385, n_gt=3, n_pred=1, n_covered=1, n_valid=1),
                    [VerdictRow(run_id=run.id, gt_index=0, covered=True), VerdictRow(run_id=run.id, gt_index=1, covered=None)])
    store.put_label(run.id, 0, "ann", True, [1], "yes")
    store.put_pred_labels([{"run_id": run.id, "pred_index": 0, "annotator": "ann", "valid": False}])
    store.add_campaign(CampaignRow(name="c1", runs_json=f'["{run.id}"]', annotators_json='["ann","bob"]', blind=False))
    store.put_adjudication(AdjudicationRow(run_id=run.id, side="coverage", item_index=0, label=True, adjudicator="eve", campaign="c1"))
    store.put_adjudication(AdjudicationRow(run_id=run.id, side="coverage", item_index=0, label=False, adjudicator="fay", campaign="c1"))
    store.add_study(StudyRow(id="0a1b2c3d", name="st ✓", config_json='{"tasks": ["t"]}', created_by="root", created_at=1.5),
                    [("code-one", 0, "t"), ("code-two", 1, "t")])
    store.claim_study_code("0a1b2c3d", "code-one", "study:0a1b2c3d:")
    other = next(r for r in store.list_runs() if r.id != run.id)  # one of the previous release's
    store.add_votes([VoteRow(run_a=run.id, run_b=other.id, winner="both_bad", voter="ann", reason="ünïcode ✓", campaign="v1")])
    store.add_vote_campaign(VoteCampaignRow(name="v1", items_json=f'[{{"run_x": "{run.id}", "run_y": "{other.id}", "expect": null}}]',
                                            annotators_json='["ann"]', spec_json='{"seed": 0}'))
    claim(store, run_key(run.id), new_owner(), 60)
    return store


def _sums(db: str | Path) -> dict[str, tuple[int, str]]:
    engine = make_engine(db_target(db), read_only=db_target(db).is_sqlite)
    try:
        return {name: copy_mod.table_checksum(engine, name) for name in copy_mod.COPIED}
    finally:
        engine.dispose()


def test_sqlite_to_postgresql_to_sqlite_gives_identical_counts_and_checksums(tmp_path, pg_cluster):
    src, back = tmp_path / "src.db", tmp_path / "back.db"
    _filled(src)
    pg = pg_cluster.new_database()  # empty: the copy brings it to the newest schema itself
    there = _cli("db", "copy", str(src), pg)
    assert there.exit_code == 0, there.output
    assert "counts and checksums match (leases are not copied)" in there.stdout and "events" in there.stdout
    again = _cli("db", "copy", pg, str(back))
    assert again.exit_code == 0, again.output
    first, final = _sums(src), _sums(back)
    assert first == final == _sums(pg)
    assert all(first[t][0] > 0 for t in copy_mod.COPIED), first
    assert first["events"][0] == 48 and first["web_blobs"][0] == 2 and first["runs"][0] == 3

    # the PostgreSQL copy is a working database: new ids and sequence numbers follow the copied ones
    store = Store(pg)
    run = next(r for r in store.list_runs() if r.meta().get("note"))
    assert store.append(run.id, MessageEvent(role="user", content="more")).seq == 4
    new = store.add_score(ScoreRow(run_id=run.id, judge="offline", precision=1, recall=1, f1=1, n_gt=1, n_pred=1, n_covered=1, n_valid=1), [])
    assert new.id == 2
    assert store.labels(run.id)[0].evidence_json == "[1]" and store.campaign("c1").annotators() == ["ann", "bob"]
    assert store.campaign("c1").blind is False  # a judge review stays one (migration 0011)


def test_a_destination_that_is_not_empty_is_refused(tmp_path):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _filled(src)
    Store(dst).create_run("x")
    before = _sums(dst)
    out = _cli("db", "copy", str(src), str(dst))
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr.strip() == f"error: {dst} is not empty (runs has 1 row): copy only into a new database"
    assert _sums(dst) == before


def test_a_copy_that_differs_from_its_source_is_exit_1(tmp_path, monkeypatch):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _filled(src)
    real = copy_mod._insert
    monkeypatch.setattr(copy_mod, "_insert", lambda engine, table, rows: real(engine, table, rows[:-1] if table.name == "labels" else rows))
    out = _cli("db", "copy", str(src), str(dst))
    assert out.exit_code == 1, out.output
    assert "MISMATCH" in out.stdout, out.stderr
    assert "MISMATCH" in out.stdout and out.stderr.strip() == "error: the copy differs from the source in: labels"


@pytest.mark.parametrize("bad", ["missing.db", "postgresql+psycopg://nobody@127.0.0.1:1/none"])
def test_a_source_that_cannot_be_opened_is_one_line(tmp_path, bad):
    out = _cli("db", "copy", str(tmp_path / bad) if bad.endswith(".db") else bad, str(tmp_path / "dst.db"))
    assert out.exit_code == 1 and len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("error: ")


def test_a_copy_that_fails_midway_leaves_the_destination_empty_for_a_retry(tmp_path, pg_cluster):
    """PostgreSQL refuses a NUL character SQLite took (in a label's note): the copy stops at the
    labels, removes what it had copied, says so in one line — and, the row fixed, the same command
    then succeeds."""
    src = tmp_path / "src.db"
    store = _filled(src)
    run_id = store.list_runs()[0].id
    store.put_label(run_id, 1, "bob", False, [], "a NUL \x00 inside")
    pg = pg_cluster.new_database()
    done = _cli("db", "copy", str(src), pg)
    assert done.exit_code == 1 and "copying labels failed" in done.output and "nothing was left in it" in done.output, done.output
    assert {name: n for name, (n, _) in _sums(pg).items() if name != "meta"} == {name: 0 for name in copy_mod.COPIED if name != "meta"}
    engine = make_engine(db_target(src))
    with engine.begin() as conn:  # the source fixed by hand
        from sqlalchemy import text

        conn.execute(text("DELETE FROM labels WHERE annotator = 'bob'"))
    engine.dispose()
    again = _cli("db", "copy", str(src), pg)
    assert again.exit_code == 0, again.output
