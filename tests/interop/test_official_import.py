"""Importing the official trajectory samples (../shared/data/official-trajectories)."""

import json
import re

import pytest
from typer.testing import CliRunner

from vibesearch.interop.official_trajectories import ImportFileError, import_trajectory, read_extraction, read_trajectory
from vibesearch.scoring import run_stats, score_run
from vibesearch.run import EndEvent, GraphEvent, MessageEvent

CONDENSED = ["task_022_airline.condensed.json", "task_007_allergy.condensed.json"]


@pytest.fixture
def traj_dir(shared_dir):
    return shared_dir / "data" / "official-trajectories"


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("name", CONDENSED)
def test_condensed_samples_reproduce_the_files_stats(store, traj_dir, name):
    data = json.loads((traj_dir / name).read_text(encoding="utf-8"))
    res = import_trajectory(store, traj_dir / name)
    assert res.complete and res.matches is True
    assert res.counted == data["stats"] == res.file_stats
    # the same numbers straight from the stored events
    assert run_stats(store, res.run_id).official.model_dump() == data["stats"]
    run = store.get_run(res.run_id)
    assert (run.source, run.agent, run.user, run.status, run.termination) == ("imported", "imported", "simulator", "finished", "answer")
    meta = json.loads(run.meta_json)
    assert meta["metrics"] == data["metrics"] and meta["stats"] == data["stats"]
    assert meta["qid"] == data["qid"] and meta["sample_idx"] == data["sample_idx"] and meta["question"] == data["question"]
    events = store.events(res.run_id)
    users = [e.data for e in events if isinstance(e.data, MessageEvent) and e.data.role == "user"]
    assert [u.phase for u in users] == ["dialogue"] * (len(users) - 1) + ["extraction"]
    assert users[0].content == data["turns"][0]["content"]
    assert users[-1].content.startswith("现在请根据我们整个对话内容")
    end = events[-1].data
    assert isinstance(end, EndEvent) and end.termination == "answer" and "answer" in end.detail
    graph = next(e.data for e in events if isinstance(e.data, GraphEvent))
    assert graph.source == "import" and len(graph.triples) == res.n_triples > 0
    assert any("cut" in note for note in graph.repaired)  # the sample's answer text was cut
    # the tool calls and their results are kept as written
    first_call = data["turns"][1]["tool_calls"][0]
    call = next(e.data for e in events if e.kind == "tool_call")
    result = next(e.data for e in events if e.kind == "tool_result")
    assert (call.tool, call.arguments, call.call_id) == (first_call["name"], first_call["args"], first_call["id"])
    assert result.content == first_call["result"]
    # the run has no ground truth: its snapshot holds the question and an empty graph
    snap = json.loads(run.task_json)
    assert snap["graph"] == [] and snap["final_query"] == data["question"]


def test_the_pro_excerpt_loads_what_is_there_and_says_it_is_cut(store, traj_dir, tmp_path):
    res = import_trajectory(store, traj_dir / "pro_049.excerpt.json")
    assert res.complete is False and res.matches is None
    assert res.file_stats == {"user_turns": 9, "assistant_turns": 92, "tool_calls": 144}
    assert res.counted == {"user_turns": 1, "assistant_turns": 3, "tool_calls": 4}
    assert any("excerpt" in n and "cannot reproduce" in n for n in res.notes)
    assert res.file_metrics["triplet_f1"] == 0.2953
    meta = json.loads(store.get_run(res.run_id).meta_json)
    assert meta["short_title"] == "读费马大定理的证明材料" and meta["complete"] is False
    # the same excerpt with its turns written as a Python repr string
    data = json.loads((traj_dir / "pro_049.excerpt.json").read_text(encoding="utf-8"))
    data["first_turns_condensed"] = repr(data["first_turns_condensed"])
    copy = tmp_path / "pro_repr.json"
    copy.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert len(read_trajectory(copy).turns) == len(read_trajectory(traj_dir / "pro_049.excerpt.json").turns) == 4


def test_extraction_file_and_task_option_make_the_run_scorable(store, traj_dir, tmp_path):
    ext = read_extraction(traj_dir / "task_022_airline.final_extraction.json")
    task = {
        "id": "task_022_airline", "subset": "daily", "language": "zh",
        "persona": {"background": "旅行者", "initial_query": "环球旅行", "stages": [
            {"name": "开始", "trigger": {"kind": "start", "condition": "开始"}, "line": "环球旅行"}]},
        "graph": [{"head": "星空联盟", "relation": "英文名", "tail": "Star Alliance"},
                  {"head": "星空联盟", "relation": "创始年份", "tail": "1997"},
                  {"head": "火星", "relation": "卫星", "tail": "火卫一"}],
    }
    task_file = tmp_path / "task_022_airline.json"
    task_file.write_text(json.dumps(task, ensure_ascii=False), encoding="utf-8")
    from vibesearch.interop.official_trajectories import load_task_file

    res = import_trajectory(store, traj_dir / "task_022_airline.condensed.json", task=load_task_file(task_file, "task_022_airline"), extraction=ext)
    assert res.n_triples == ext["total"] == 258
    row = score_run(store, res.run_id, protocol="vibesearch")  # the offline judge: ours (the run's own profile is the official one)
    assert row.n_gt == 3 and row.n_pred == 258 and row.n_covered == 2  # name and the 1997-05-14 date
    assert run_stats(store, res.run_id).official.model_dump() == res.file_stats


def test_termination_mapping_and_bad_files(store, traj_dir, tmp_path):
    data = json.loads((traj_dir / "task_007_allergy.condensed.json").read_text(encoding="utf-8"))
    data["termination"] = "max_rounds"
    f = tmp_path / "t.json"
    f.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    res = import_trajectory(store, f)
    end = store.events(res.run_id)[-1].data
    assert (end.termination, end.detail) == ("max_rounds", "official termination: max_rounds")
    for official, ours in (("error_loop", "error_loop"), ("empty_response", "error")):
        data["termination"] = official
        f.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        run = store.get_run(import_trajectory(store, f).run_id)
        assert (run.termination, run.status) == (ours, "finished"), official  # an imported run always finished
    data["turns"][3]["type"] = "tool"
    f.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ImportFileError, match=r"t.json: turns\[3\].type"):
        read_trajectory(f)
    g = tmp_path / "g.json"
    g.write_text("[1, 2]")
    with pytest.raises(ImportFileError, match="g.json"):
        read_trajectory(g)


def test_cli_import_json_and_the_files_own_f1(cli, traj_dir, tmp_path):
    db = tmp_path / "cli.db"
    files = [traj_dir / n for n in CONDENSED] + [traj_dir / "pro_049.excerpt.json"]
    out = cli("import", *files, "--json", "--db", db)
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert len(rows) == 3
    for row, path in zip(rows, files):
        assert {"run_id", "file", "counted", "file_stats"} <= set(row)
        assert set(row["counted"]) == set(row["file_stats"]) == {"user_turns", "assistant_turns", "tool_calls"}
        assert row["file"] == str(path)
    assert rows[0]["counted"] == rows[0]["file_stats"] and rows[1]["counted"] == rows[1]["file_stats"]
    assert rows[2]["counted"] != rows[2]["file_stats"] and rows[2]["complete"] is False

    text = cli("import", traj_dir / CONDENSED[0], "--db", db)
    assert text.exit_code == 0, text.output
    flat = " ".join(text.stdout.split())
    assert "file's own triplet F1" in flat and "0.4077" in flat
    # no F1 of our own is invented for a run without ground truth
    assert re.findall(r"F1[^\n]*?(\d\.\d{3,4})", flat) == ["0.4077"]

    scored = cli("score", "--all", "--db", db)  # official runs: the offline judge is not theirs
    assert scored.exit_code == 0 and "--protocol vibesearch" in " ".join(scored.output.split())
    scored = cli("score", "--all", "--protocol", "vibesearch", "--db", db)
    assert scored.exit_code == 0 and "--task" in " ".join(scored.output.split())

    bad = cli("import", tmp_path / "missing.json", "--db", db)
    assert bad.exit_code != 0 and "missing.json" in bad.output
    wrong = cli("import", traj_dir / CONDENSED[1], "--extraction", traj_dir / "task_022_airline.final_extraction.json", "--db", db)
    assert wrong.exit_code != 0 and "matches none" in " ".join(wrong.output.split())


def test_cli_task_option_with_an_official_format_task(cli, shared_dir, traj_dir, tmp_path):
    db = tmp_path / "t.db"
    task_file = shared_dir / "data" / "official-format" / "task_sample_zh_tang_song_masters.json"
    out = cli("import", traj_dir / CONDENSED[0], "--task", task_file, "--json", "--db", db)
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)[0]
    assert any("sample_zh_tang_song_masters" in n and "qid" in n for n in row["notes"])  # the id mismatch is said
    assert "--protocol vibesearch" in " ".join(cli("score", row["run_id"], "--db", db).output.split())  # official: an LLM judge
    scored = cli("score", row["run_id"], "--protocol", "vibesearch", "--json", "--db", db)
    assert scored.exit_code == 0, scored.output
    result = json.loads(scored.stdout)[0]
    assert result["n_gt"] == 33 and result["n_pred"] == row["n_triples"]
    assert cli("import", traj_dir / CONDENSED[0], "--task", tmp_path / "none.json", "--db", db).exit_code != 0


def test_imports_are_official_runs_with_the_files_counts_and_unknown_compactions(store, traj_dir):
    from vibesearch.scoring.aggregate import collect_runs, interaction_table
    from vibesearch.scoring.profile import run_protocol

    full = import_trajectory(store, traj_dir / CONDENSED[0])
    cut = import_trajectory(store, traj_dir / "pro_049.excerpt.json")
    assert run_protocol(store.get_run(full.run_id)) == "official"
    # an excerpt's events are a part of the conversation: reports take the file's stats as they are
    assert cut.counted == {"user_turns": 1, "assistant_turns": 3, "tool_calls": 4}
    stats = run_stats(store, cut.run_id)
    assert stats.official.model_dump() == cut.file_stats == {"user_turns": 9, "assistant_turns": 92, "tool_calls": 144}
    assert stats.compactions is None and run_stats(store, full.run_id).compactions is None  # the files do not say
    records, _ = collect_runs(store)
    rows = {r["config"]: r for r in interaction_table(records)}
    (row,) = rows.values()  # both runs: one configuration, one profile
    assert row["protocol"] == "official" and row["profile"].startswith("official protocol, the official harness")
    assert row["user"] == (9 + full.file_stats["user_turns"]) / 2
    assert row["asst"] == (92 + full.file_stats["assistant_turns"]) / 2
    assert row["compactions"] is None
