"""The score and labels commands through the real CLI."""

import json

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.store import Store


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_score_prints_the_offline_judge_by_name(cli, tmp_db, make_run):
    store = Store(tmp_db)
    rid = make_run(store, [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000")],
                   [T("Star Alliance", "founding year", "1997")])
    out = cli("score", rid, "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert "offline judge" in out.stdout and "50.00" in out.stdout and "100.00" in out.stdout
    js = cli("score", rid, "--json", "--db", tmp_db)
    rows = json.loads(js.stdout)
    assert rows[0]["judge_label"] == "offline judge" and rows[0]["recall"] == 0.5 and rows[0]["precision"] == 1.0
    assert len(store.scores(rid)) == 2  # each scoring is kept
    missing = cli("score", "nope", "--db", tmp_db)
    assert missing.exit_code != 0 and "nope" in missing.output
    assert cli("score", "--db", tmp_db).exit_code != 0


def test_score_with_several_fake_judges_and_batch_options(cli, tmp_db, make_run, fake):
    store = Store(tmp_db)
    rid = make_run(store, [T(f"e{i}", "r", f"v{i}") for i in range(7)], [T(f"e{i}", "r", f"v{i}") for i in range(4)])
    seen = []

    def yes(req):
        import re

        idx = [int(i) for i in re.findall(r"^\[R(\d+)\]", req.last_user, re.M)]
        seen.append(len(idx))
        return fake.Reply(content=json.dumps({"verdicts": [{"index": i, "covered": i < 4, "evidence": [i] if i < 4 else []} for i in idx]}))

    a = fake.register("cli-a", yes)
    b = fake.register("cli-b", yes)
    out = cli("score", rid, "--judge", a, "--judge", b, "--batch-size", 3, "--concurrency", 2, "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert [r["judge"] for r in rows] == [a, b, f"majority:{a}+{b}"]
    assert all(r["recall"] == pytest.approx(4 / 7) for r in rows)
    assert sorted(seen) == [1, 1, 3, 3, 3, 3]  # 7 triples in batches of 3, for each judge
    assert cli("score", rid, "--batch-size", 0, "--db", tmp_db).exit_code != 0


def test_labels_commands(cli, tmp_db, tmp_path, make_run, cases_path):
    store = Store(tmp_db)
    rid = make_run(store, [T("a", "r", "1"), T("b", "r", "2")], [T("a", "r", "1")])
    assert cli("score", rid, "--db", tmp_db).exit_code == 0
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps({"run_id": rid, "gt_index": i, "annotator": who, "covered": c})
                             for who, labels in (("ann", [True, True]), ("bob", [True, False])) for i, c in enumerate(labels)))
    assert cli("labels", "import", src, "--db", tmp_db).exit_code == 0
    agree = cli("labels", "agreement", "--json", "--db", tmp_db)
    rep = json.loads(agree.stdout)
    vs_ann = next(r for r in rep["judge_vs_annotator"] if r["against"] == "ann")
    assert vs_ann["agreement"] == 0.5
    text = cli("labels", "agreement", "--db", tmp_db)
    assert text.exit_code == 0 and "offline judge" in text.stdout
    out = tmp_path / "out.csv"
    assert cli("labels", "export", "--format", "csv", "--out", out, "--db", tmp_db).exit_code == 0
    assert out.read_text().splitlines()[0].startswith("run_id,gt_index,annotator,covered")
    assert len(out.read_text().splitlines()) == 5

    cal = cli("labels", "calibrate", cases_path, "--json")
    assert cal.exit_code == 0, cal.output
    rep = json.loads(cal.stdout)["judges"][0]
    assert {"agreement", "kappa", "n", "disagreements", "by_category"} <= set(rep)
    assert rep["n"] >= 40 and 0 < rep["agreement"] <= 1
    plain = cli("labels", "calibrate", cases_path)
    assert "offline judge" in plain.stdout and "kappa" in plain.stdout
    assert all(case in plain.stdout for case in rep["disagreements"][:3])  # the ids it disagrees on, listed
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "gt": {"head": "a"}, "covered": true}\n')
    res = cli("labels", "calibrate", bad)
    assert res.exit_code != 0 and "bad.jsonl:1" in res.output
