"""The per-stage views drawn in HTML (``reports.stages.stages_html``): in the HTML report and the
Leaderboard tab, from one computation (``results.stage_view``), every task and stage text escaped.
The runs are scored through the real scoring path by the offline judge; the figures are worked
out by hand from which ground-truth triples each run wrote."""

from __future__ import annotations

import re

import pytest

from vibesearch.reports import build_report, render
from vibesearch.reports.text import ONE_TASK, to_markdown
from vibesearch.run import EndEvent, GraphEvent, MessageEvent, StageEvent
from vibesearch.scoring import score_run
from vibesearch.store import Store

BAD = "<img src=x onerror=alert(1)>"
GRAPH = [
    {"head": "Kyoto", "relation": "capital until", "tail": "1869"},  # the opening query names Kyoto -> stage 1
    {"head": "Himeji Castle", "relation": "built in", "tail": "1609"},  # stage 2's line names it -> stage 2
    {"head": "Nara", "relation": "home of", "tail": "Todai-ji"},  # stage 3's cue -> stage 3
]
SNAPSHOT = {
    "id": "kyoto-trip", "subset": "daily", "language": "en", "extra": {}, "graph": GRAPH,
    "persona": {"background": "b", "initial_query": "Tell me about Kyoto.", "stages": [
        {"name": "Opening", "trigger": {"kind": "start", "condition": "c"}, "line": "l"},
        {"name": f"Castles {BAD}", "trigger": {"kind": "mentions", "condition": "c"}, "line": "What about Himeji castle?"},
        {"name": "Temples", "trigger": {"kind": "mentions", "condition": "c"}, "line": "And temples?", "cues": ["Todai-ji"]},
    ]},
}


def _run(store: Store, reached: int, found: list[int]) -> str:
    run = store.create_run(SNAPSHOT["id"], task_json=SNAPSHOT, agent="react", agent_model="m", user="rules", status="finished")
    store.append(run.id, MessageEvent(role="user", content="q"))
    for k in range(reached):
        store.append(run.id, StageEvent(stage_index=k, advanced=k > 0, reply_kind="disclose", decided_by="rules"))
    store.append(run.id, GraphEvent(triples=[GRAPH[i] for i in found]))
    store.append(run.id, EndEvent(termination="done"))
    score_run(store, run.id)  # the offline judge
    return run.id


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "stages.db")
    _run(store, 1, [0])  # stopped on stage 1, found its triple only: F1 1/1 precision, 1/3 recall
    _run(store, 1, [1])  # stopped on stage 1 too, found stage 2's triple without reaching it
    _run(store, 3, [0, 1, 2])  # every stage disclosed, everything found
    return store


def _cells(page: str, table_id: str) -> list[list[str]]:
    """The body rows of the table ``table_id`` as the text of their cells."""
    body = re.search(rf"<table id='{table_id}'[^>]*>.*?<tbody>(.*?)</tbody>", page, re.S)
    assert body, f"no table {table_id}"
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))]


def test_the_html_report_shows_the_stage_views_escaped(store):
    page = render(build_report(store), "html")
    assert BAD not in page and "Castles &lt;img src=x onerror=alert(1)&gt;" in page
    recall = _cells(page, "stages-recall")
    task = "kyoto-trip"
    # stage 2: reached by one run (found it), not reached by two (one of them found it anyway)
    assert recall[1] == [task, "2. Castles &lt;img src=x onerror=alert(1)&gt;", "1", "100.00", "1", "50.00", "2", "0"]
    # stage 1: every run reached it, two of three found its triple; two runs ended there
    assert recall[0] == [task, "1. Opening", "1", "66.67", "3", "–", "0", "2"]
    assert recall[2][3:7] == ["100.00", "1", "0.00", "2"]
    assert "Where runs stall (the stage most runs ended on without disclosing the next): kyoto-trip: stage 1 (Opening, 2 runs ended there)." in page
    f1 = _cells(page, "stages-f1")
    assert [row[:2] for row in f1] == [["1", "2"], ["3", "1"]] and f1[1][2] == "100.00"
    # the one-run rows: one task, so no interval (a zero-width one said nothing)
    assert f"<td>{ONE_TASK}</td>" in page


def test_markdown_and_html_draw_the_same_rows(store):
    report = build_report(store)
    md = to_markdown(report)
    html_rows = _cells(render(report, "html"), "stages-recall")
    for row in html_rows:
        plain = [c.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">") for c in row]
        assert "| " + " | ".join(plain) + " |" in md


def test_the_leaderboard_tab_shows_the_report_s_stage_tables(store, settings):
    from vibesearch.app import leaderboard
    from vibesearch.app import Access
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager

    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    try:
        summary, rows, *_, stages = leaderboard.tables(ctx, None)
        report_page = render(build_report(store), "html")
        assert BAD not in stages
        for name in ("recall", "f1"):
            assert _cells(stages, f"vs-lb-stage-{name}") == _cells(report_page, f"stages-{name}")
        assert "stage 1 (Opening, 2 runs ended there)" in stages
        col = {h: i for i, h in enumerate(leaderboard.SCORE_HEADERS)}
        (row,) = [r for r in rows if r[col["group"]] == "all"]
        assert row[col["tasks"]] == 1 and row[col["Avg F1 95% CI"]] == ONE_TASK == row[col["Best F1 95% CI"]]
        # filtered to no run: the stage block says there is nothing to show
        *_, none = leaderboard.tables(ctx, None, keep=lambda run: False)
        assert "vs-lb-stage-none" in none
    finally:
        ctx.manager.shutdown()


def test_the_leaderboard_tab_draws_its_words_in_the_browser_s_language(store, settings):
    """The tab's refresh handler, as a Chinese browser calls it (Accept-Language zh-CN): the tables'
    headers, the summary, the plots and the per-stage views are in Chinese with the same numbers;
    an English browser gets what ``tables`` draws by default."""
    from types import SimpleNamespace

    import gradio as gr

    from vibesearch.app import Access, leaderboard
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager

    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    try:
        with gr.Blocks():
            h = leaderboard.build(ctx, gr.BrowserState(None))
        zh = h["on_refresh"](None, leaderboard.AUTO, request=SimpleNamespace(headers={"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"}))
        en = h["on_refresh"](None, leaderboard.AUTO, request=SimpleNamespace(headers={"accept-language": "en-GB,en;q=0.9"}))
        summary, rows, *_, stages = leaderboard.tables(ctx, None)
        assert en[1] == summary and en[-1] == stages and list(en[2].columns) == leaderboard.SCORE_HEADERS
        assert en[2].values.tolist() == rows

        scores = zh[2]
        assert list(scores.columns)[:5] == ["配置", "协议配置", "分组", "任务数", "运行数"] and "Avg F1 95% 置信区间" in scores.columns
        col = {h: i for i, h in enumerate(leaderboard.SCORE_HEADERS)}
        worded = (col["profile"], col["group"], col["Avg F1 95% CI"], col["Best F1 95% CI"])
        for zh_row, en_row in zip(scores.values.tolist(), rows):  # the same numbers; the words in Chinese
            assert [c for i, c in enumerate(zh_row) if i not in worded] == [c for i, c in enumerate(en_row) if i not in worded]
        assert set(scores["协议配置"]) == {"vibesearch 协议配置"}
        assert "全部" in scores["分组"].tolist() and "1 个任务" in scores["Avg F1 95% 置信区间"].tolist()
        assert list(zh[3].columns)[-1] == "费用（美元）" and list(zh[7].columns)[3] == "成功率 Avg@N"
        assert "次已结束或已评分的角色运行" in zh[1] and "离线评判" in zh[1] and "finished" not in zh[1]
        assert "**噪声：用户、智能体、评判**" in zh[1] and "| 噪声 | F1 标准差 | 95% 区间 | 说明 |" in zh[1]
        assert "确定性评判：同一图谱的多次评判按构造完全相同" in zh[1] and "- 离线评判 · vibesearch 协议配置: 未测量" in zh[1]
        assert zh[5].layout.title.text == "按配置和子集的 Avg@N F1" and zh[6].layout.xaxis.title.text == "召回率（%）"
        assert "按阶段的召回率" in zh[-1] and "第 1 阶段（Opening，2 次运行在此结束）" in zh[-1] and "Recall by stage" not in zh[-1]
        for name in ("recall", "f1"):
            assert _cells(zh[-1], f"vs-lb-stage-{name}") == _cells(stages, f"vs-lb-stage-{name}")
        # the menus' first value: its label in Chinese, its value the token the handler reads
        assert zh[0].choices[0] == ("（得分最多的评判）", leaderboard.AUTO) and zh[8].choices[0] == ("（全部）", leaderboard.ALL)
        assert en[0].choices[0] == (leaderboard.AUTO, leaderboard.AUTO)
    finally:
        ctx.manager.shutdown()
