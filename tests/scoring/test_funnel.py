"""The funnel of every ground-truth triple (``results.funnel``) on hand-built runs: one triple in each
bucket, in English and in Chinese, with when and the evidence; a run that kept no tool text; the
offline-corpus case, exact from the pages' annotations; a real baseline run of a bundled task checked
against its own events; ``vibesearch analyse`` (its JSON keys, the CSV, a bad --where) and the report."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from vibesearch.protocol import build_config
from vibesearch.reports import build_report, render
from vibesearch.results.funnel import BUCKETS, stored_funnel
from vibesearch.run import EndEvent, GraphEvent, MessageEvent, StageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.scoring import collect_runs
from vibesearch.store import Store
from vibesearch.store.tables import ScoreRow, VerdictRow


def T(head: str, relation: str, tail: str) -> dict[str, str]:
    return {"head": head, "relation": relation, "tail": tail}


# one ground-truth triple per bucket, in bucket order reversed:
# covered, judged_not_covered, not_written, not_seen, not_asked
CASES = {
    "en": {
        "lines": ["Tell me about Kyoto and its temples.", "What about Himeji Castle?", "And the garden of Ryoan-ji?"],
        "gt": [T("Kyoto", "capital until", "1869"), T("Himeji Castle", "built in", "1609"), T("Himeji Castle", "located in", "Hyogo"),
               T("Himeji Castle", "nicknamed", "White Heron Castle"), T("Ryoan-ji", "famous for", "rock garden")],
        "tool": "Himeji Castle was completed in 1609 and stands in Hyogo. Kyoto stayed the capital until 1869.",
        "pred": [T("Kyoto", "was the capital until", "1869"), T("Himeji Castle", "completed", "1609")],
    },
    "zh": {
        "lines": ["说说京都和那里的寺庙。", "姬路城呢？", "还有龙安寺的庭园呢？"],
        "gt": [T("京都", "作为首都直到", "1869年"), T("姬路城", "建于", "1609年"), T("姬路城", "位于", "兵库县"),
               T("姬路城", "别称", "白鹭城"), T("龙安寺", "以此闻名", "枯山水")],
        "tool": "姬路城于1609年建成，坐落在兵库县。京都直到1869年都是日本的首都。",
        "pred": [T("京都", "首都直到", "1869年"), T("姬路城", "竣工", "1609年")],
    },
}
EXPECTED = ["covered", "judged_not_covered", "not_written", "not_seen", "not_asked"]


def snapshot(language: str, gt: list[dict[str, str]], lines: list[str], **more) -> dict:
    stages = [{"name": f"s{i}", "trigger": {"kind": "start" if i == 0 else "mentions", "condition": "c"}, "line": line}
              for i, line in enumerate(lines)]
    return {"id": f"funnel-{language}", "subset": "daily", "language": language, "graph": gt, "extra": {},
            "persona": {"background": "b", "initial_query": lines[0], "stages": stages}, **more}


def crafted_run(store: Store, language: str, *, tool_text: bool = True, **run_fields) -> tuple[str, dict[str, int]]:
    """A run that disclosed stages 1 and 2 (never 3), searched once, wrote its prediction, and a
    score whose verdicts cover the first triple only. Returns the run id and some events' seqs."""
    case = CASES[language]
    run_fields = {"agent": "react", "agent_model": "m", **run_fields}
    run = store.create_run(f"funnel-{language}", task_json=snapshot(language, case["gt"], case["lines"]), user="rules",
                           status="finished", **run_fields)
    seqs = {}
    store.append(run.id, StageEvent(stage_index=0, reply_kind="open", decided_by="rules"))
    seqs["opening"] = store.append(run.id, MessageEvent(role="user", content=case["lines"][0])).seq
    store.append(run.id, MessageEvent(role="assistant", content="", n_tool_calls=1))
    if tool_text:
        seqs["call"] = store.append(run.id, ToolCallEvent(call_id="c1", tool="search", arguments={"query": "x"})).seq
        seqs["result"] = store.append(run.id, ToolResultEvent(call_id="c1", tool="search", content=case["tool"])).seq
    store.append(run.id, MessageEvent(role="assistant", content="Found it.", final=True))
    store.append(run.id, StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="rules"))
    seqs["stage2"] = store.append(run.id, MessageEvent(role="user", content=case["lines"][1])).seq
    store.append(run.id, MessageEvent(role="assistant", content="Here.", final=True))
    store.append(run.id, GraphEvent(triples=case["pred"]))
    store.append(run.id, EndEvent(termination="max_user_turns"))
    verdicts = [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]",
                           rationale=f"why {i}") for i in range(5)]
    graph = store.latest_graph(run.id)
    store.add_score(ScoreRow(run_id=run.id, judge="offline", graph_id=graph.id if graph else None, precision=0.5, recall=0.2, f1=0.29,
                             n_gt=5, n_pred=2, n_covered=1, n_valid=1), verdicts)
    return run.id, seqs


def funnel_of_run(store: Store, run_id: str):
    score = store.scores(run_id)[-1]
    return stored_funnel(store, run_id, score.id)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_one_triple_in_each_bucket_with_when_and_evidence(tmp_db, language):
    store = Store(tmp_db)
    run_id, seqs = crafted_run(store, language)
    f = funnel_of_run(store, run_id)
    assert [t.bucket for t in f.fates] == EXPECTED
    assert f.seen_method == "text" and f.counts() == dict.fromkeys(BUCKETS, 1) and sum(f.counts().values()) == f.n_gt == 5
    covered, judged, unwritten, unseen, unasked = f.fates
    # when: the stage's disclosure (user turn and message) and the first tool call that showed it
    assert (judged.stage, judged.disclosed.turn, judged.disclosed.seq) == (1, 2, seqs["stage2"])
    assert (covered.stage, covered.disclosed.turn, covered.disclosed.seq) == (0, 1, seqs["opening"])
    for fate in (covered, judged, unwritten):
        assert fate.seen == "yes" and fate.sighting.seq == seqs["result"] and fate.sighting.call_seq == seqs["call"]
        assert fate.sighting.call_id == "c1" and fate.sighting.tool == "search" and fate.sighting.turn == 1
    assert unseen.seen == "no" and unseen.sighting is None
    assert unasked.stage == 2 and unasked.disclosed is None
    # the evidence: the prediction naming it, the verdict and its rationale
    assert judged.prediction == 1 and judged.verdict == "not covered" and judged.rationale == "why 1"
    assert unwritten.prediction is None
    assert covered.prediction == 0 and covered.evidence == (0,) and covered.verdict == "covered"
    # the second prediction names a ground-truth head and tail but no covered triple rests on it
    assert f.prediction_valid == (True, False) and f.prediction_seen == (True, True)
    as_json = json.loads(json.dumps(f.as_dict()))
    assert as_json["triples"][1]["disclosed"] == {"stage": 1, "turn": 2, "seq": seqs["stage2"]}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_run_without_tool_text_skips_the_not_seen_test_and_still_sums(tmp_db, language):
    store = Store(tmp_db)
    run_id, _ = crafted_run(store, language, tool_text=False)
    f = funnel_of_run(store, run_id)
    assert f.seen_method == "none" and f.seen_unknown == 5
    # the not-seen triple falls through to "not written": no prediction names its tail
    assert [t.bucket for t in f.fates] == ["covered", "judged_not_covered", "not_written", "not_written", "not_asked"]
    assert sum(f.counts().values()) == f.n_gt and set(f.prediction_seen) == {None}


CORPUS = [
    {"url": "https://pages.example/himeji", "title": "Himeji Castle", "text": "Himeji Castle, finished in 1609, is in Hyogo.",
     "facts": [T("Himeji Castle", "built in", "1609"), T("Himeji Castle", "located in", "Hyogo")]},
    {"url": "https://pages.example/heron", "title": "The heron", "text": "A castle is called White Heron Castle for its colour.",
     "facts": [T("Himeji Castle", "nicknamed", "White Heron Castle")]},
    {"url": "https://pages.example/kyoto", "title": "Kyoto", "text": "Kyoto was the capital until 1869.",
     "facts": [T("Kyoto", "capital until", "1869")]},
]


def test_the_offline_corpus_case_is_exact_from_the_annotations(tmp_db, tmp_path, settings):
    """A visited page shows every fact annotated on it; a search hit only the annotated facts its own
    lines name; a text outside the corpus's pages (here a python result naming the heron's head and
    tail) shows nothing: only the annotations count."""
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n", encoding="utf-8")
    case = CASES["en"]
    task = snapshot("en", case["gt"], case["lines"], corpus="corpus.jsonl")
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps(task), encoding="utf-8")
    store = Store(tmp_db)
    config = build_config(settings, task_id=task["id"])
    assert config.search.backend == "offline"
    run = store.create_run(task["id"], task_json=task, meta={"task_file": str(task_file)}, run_config=config, agent="baseline",
                           user="rules", status="finished")
    hits = ("Results for 'castle' (2):\n\n1. The heron\n   URL: https://pages.example/heron\n   A castle is called White Heron Castle.\n\n"
            "2. Kyoto\n   URL: https://pages.example/kyoto\n   Kyoto was the capital until 1869.\n")
    page = "=== Himeji Castle (https://pages.example/himeji) ===\nHimeji Castle, finished in 1609, is in Hyogo.\n"
    events = [
        StageEvent(stage_index=0, reply_kind="open", decided_by="rules"), MessageEvent(role="user", content=case["lines"][0]),
        MessageEvent(role="assistant", content="", n_tool_calls=3),
        ToolCallEvent(call_id="s", tool="search", arguments={"query": "castle"}), ToolResultEvent(call_id="s", tool="search", content=hits),
        ToolCallEvent(call_id="v", tool="visit", arguments={"url": ["https://pages.example/himeji"], "goal": "g"}),
        ToolResultEvent(call_id="v", tool="visit", content=page),
        ToolCallEvent(call_id="p", tool="python", arguments={"code": "print(1)"}),
        ToolResultEvent(call_id="p", tool="python", content="Himeji Castle is the White Heron Castle"),
        MessageEvent(role="assistant", content="Done.", final=True),
        StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="rules"), MessageEvent(role="user", content=case["lines"][1]),
        GraphEvent(triples=case["pred"]), EndEvent(termination="max_user_turns"),
    ]
    stored = [store.append(run.id, e) for e in events]
    graph = store.latest_graph(run.id)
    store.add_score(ScoreRow(run_id=run.id, judge="offline", graph_id=graph.id, precision=0.5, recall=0.2, f1=0.29, n_gt=5, n_pred=2,
                             n_covered=1, n_valid=1),
                    [VerdictRow(score_id=0, run_id=run.id, gt_index=i, covered=i == 0, evidence_json="[0]" if i == 0 else "[]") for i in range(5)])
    f = funnel_of_run(store, run.id)
    assert f.seen_method == "corpus"
    seen = {t.gt_index: (t.seen, t.sighting.tool if t.sighting else None, t.sighting.url if t.sighting else None) for t in f.fates}
    visit_seq = next(s.seq for s in stored if s.data.kind == "tool_result" and s.data.tool == "visit")
    assert seen[0] == ("yes", "search", "https://pages.example/kyoto")  # the hit's own lines name Kyoto and 1869
    assert seen[1] == seen[2] == ("yes", "visit", "https://pages.example/himeji")  # annotated on the visited page
    assert f.fates[1].sighting.seq == visit_seq
    assert seen[3] == ("no", None, None)  # its hit never names Himeji Castle; the python text does not count
    assert [t.bucket for t in f.fates] == EXPECTED


def test_a_bundled_task_run_by_the_offline_defaults(tmp_path, bundled_tasks):
    """A real baseline run of a bundled task, scored by the offline judge: every triple in one
    bucket, the covered ones the judge's, and "seen" exactly the facts annotated on the pages the
    run visited or whose hit named them (checked against the run's own events)."""
    from vibesearch.cli.main import app
    from vibesearch.tasks.loader import load_corpus

    task = next(t for t in bundled_tasks if t.language == "zh")
    db = tmp_path / "b.db"
    runner = CliRunner()
    assert runner.invoke(app, ["run", "--tasks", task.source_file, "--max-user-turns", "4", "--db", str(db)]).exit_code == 0
    unscored = runner.invoke(app, ["analyse", "--db", str(db)])
    assert unscored.exit_code == 0 and "0 scored run(s) of 1 analysed" in unscored.stdout
    assert "1 run(s) have no score from this judge" in unscored.stdout and "vibesearch score --all" in unscored.stdout
    assert runner.invoke(app, ["score", "--all", "--db", str(db)]).exit_code == 0
    assert "have no score" not in runner.invoke(app, ["analyse", "--db", str(db)]).stdout
    store = Store(db)
    (record,), _ = collect_runs(store)
    f = stored_funnel(store, record.run_id, record.score_id)
    assert f.seen_method == "corpus" and sum(f.counts().values()) == f.n_gt == len(task.graph)
    assert f.counts()["covered"] == record.n_covered
    visited = {url for e in store.events(record.run_id) if e.data.kind == "tool_result" and e.data.tool == "visit"
               for url in [d.url for d in load_corpus(task)] if f"({url})" in e.data.content}
    annotated = {(fact.head, fact.relation, fact.tail) for d in load_corpus(task) if d.url in visited for fact in d.facts}
    for t in f.fates:
        if (t.head, t.relation, t.tail) in annotated:
            assert t.seen == "yes"
        if t.seen == "yes" and t.sighting.tool == "visit":
            assert t.sighting.url in visited
        if t.stage is not None and t.stage >= (record.stats.stages_reached or 0) and t.bucket != "covered":
            assert t.bucket == "not_asked"


KEYS = {"funnel", "runs", "compactions", "user_turn_bins", "perfunctory_rate", "redirect_rate", "done_reach", "relation_coverage",
        "invalid_types", "tool_calls"}


def test_analyse_json_csv_and_a_bad_where(tmp_db, tmp_path):
    from vibesearch.cli.main import app

    store = Store(tmp_db)
    crafted_run(store, "en")
    crafted_run(store, "zh")
    runner = CliRunner()
    out = runner.invoke(app, ["analyse", "--json", "--csv", str(tmp_path / "a.csv"), "--db", str(tmp_db)])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert KEYS <= set(got)
    for group in [got["funnel"]["all"], *got["funnel"]["config"], *got["funnel"]["language"], *got["funnel"]["stage"], *got["runs"]]:
        assert sum(group[b] for b in BUCKETS) == group["n_gt"]
        assert set(group["shares"]) == set(BUCKETS) and all(len(s["ci"]) == 2 for s in group["shares"].values())
    assert got["funnel"]["all"]["n_gt"] == 10 and {r["language"] for r in got["runs"]} == {"en", "zh"}
    assert [g["group"] for g in got["funnel"]["language"]] == ["en", "zh"]
    zh = runner.invoke(app, ["analyse", "--json", "--triples", "--where", "language=zh", "--db", str(tmp_db)])
    (run,) = json.loads(zh.stdout)["runs"]
    assert [t["bucket"] for t in run["triples"]] == EXPECTED
    rows = list(csv.reader((tmp_path / "a.csv").open(encoding="utf-8")))
    assert ["# funnel"] in rows and ["# invalid_types"] in rows
    bad = runner.invoke(app, ["analyse", "--where", "colour=red", "--db", str(tmp_db)])
    assert bad.exit_code == 1 and bad.output.strip().count("\n") == 0 and bad.output.startswith("error: --where: unknown key 'colour'")


def test_the_report_carries_the_funnel_and_the_measures(tmp_db):
    store = Store(tmp_db)
    crafted_run(store, "en")
    report = build_report(store)
    assert KEYS <= set(report["analysis"]) and report["analysis"]["funnel"]["all"]["not_asked"] == 1
    md = render(report, "md")
    assert "Where each fact was lost" in md and "Perfunctory rate" in md and "Invalid predictions by type" in md
    html = render(report, "html")
    assert "id='analysis'" in html and "Relation coverage: structural vs factual" in html
    assert "# analysis_funnel" in render(report, "csv")



def test_compare_says_which_bucket_each_side_loses_facts_in(tmp_db):
    from vibesearch.cli.main import app

    store = Store(tmp_db)
    a, _ = crafted_run(store, "en", agent_model="m1")
    b, _ = crafted_run(store, "en", tool_text=False, agent_model="m2")
    runner = CliRunner()
    runs = json.loads(runner.invoke(app, ["compare", a, b, "--json", "--db", str(tmp_db)]).stdout)["coverage"]
    # the third triple: A saw it and did not write it; B kept no tool text, so it was not written either
    (only_neither,) = [i for i in runs["neither"] if i["number"] == 4]
    assert (only_neither["bucket_a"], only_neither["bucket_b"]) == ("not_seen", "not_written")
    assert runs["funnel"]["a"] == dict.fromkeys(BUCKETS, 1)
    configs = json.loads(runner.invoke(app, ["compare", "--a", "agent_model=m1", "--b", "agent_model=m2", "--json", "--db", str(tmp_db)]).stdout)
    assert configs["funnel"]["a"]["not_seen"] == 1 and configs["funnel"]["b"]["not_seen"] == 0
    assert configs["funnel"]["b"]["not_written"] == 2 and configs["funnel"]["b"]["n_gt"] == 5
    text = runner.invoke(app, ["compare", a, b, "--db", str(tmp_db)]).stdout
    assert "facts lost, A: not asked 1 · not seen 1" in " ".join(text.split())


def test_prediction_types_and_structural_relations_in_both_languages():
    from vibesearch.results.measures import is_structural, prediction_type

    assert prediction_type(("Paper X", "published in", "Nature"), True) == "bibliographic"
    assert prediction_type(("论文X", "发表于", "自然"), True) == "bibliographic"
    assert prediction_type(("Cauchy", "key contribution", "rigour"), True) == "subjective"
    assert prediction_type(("柯西", "评价", "严格化"), True) == "subjective"
    assert prediction_type(("Cauchy", "role", "of central importance"), True) == "subjective"
    assert prediction_type(("Appellate Body", "has judge", "Someone"), False) == "never_retrieved"
    assert prediction_type(("Appellate Body", "has judge", "Someone"), None) == "unknown"
    assert prediction_type(("Kyoto", "capital until", "1869"), True) == "other"
    assert is_structural("has_dimension") and is_structural("includes phase") and is_structural("理论基础维度")
    assert not is_structural("founded in") and not is_structural("participating_country") and not is_structural("重组年份")
