"""The text the server draws outside the zh walk's reach is Chinese in a Chinese browser (issue 39
item 17): the Compare tab (runs and configurations, with the judge's measured agreement and its
footnote), the Leaderboard's judge-agreement lines and footnotes, the Label tab's campaign notes
and the Vote tab's lines. Each drawing function is called with ``lang="zh"`` on real stored runs,
scores and labels; what is left once the names and numbers are taken out has no English word."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from vibesearch.labels.compare import compare_runs
from vibesearch.labels.config_compare import compare_configs
from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.scoring import score_run
from vibesearch.store import Store

# names, ids, units and acronyms the drawn texts carry as they are
KEPT = {"offline", "rules", "vibesearch", "official"}
ACRONYMS = {"AC1", "F1", "SD", "n", "k", "A", "B", "CI", "min", "--min-judge-agreement"}


def T(h, r, t):
    return {"head": h, "relation": r, "tail": t}


GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000"), T("oneworld", "founded in", "1999"),
      T("Star Alliance", "headquarters", "Frankfurt")]


def _run(store, pred, agent_model):
    task = {"id": "t1", "subset": "pro", "language": "en", "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "起点", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}
    run = store.create_run("t1", task_json=task, status="finished", agent="react", agent_model=agent_model, user="rules")
    for event in (MessageEvent(role="user", content="q"), MessageEvent(role="assistant", content="a", final=True),
                  GraphEvent(triples=pred), EndEvent(termination="max_user_turns")):
        store.append(run.id, event)
    return run.id


@pytest.fixture
def labelled_store(tmp_path):
    """Two runs of one task by two configurations, scored by the offline judge; two people
    labelled run A (the judge agrees on 3 of 4)."""
    store = Store(tmp_path / "zh.db")
    a, b = _run(store, GT[:2], "fake/a"), _run(store, GT[:1], "fake/b")
    for rid in (a, b):
        score_run(store, rid)
    for who in ("ann", "bob"):
        for i, covered in enumerate([True, True, True, False]):
            store.put_label(a, i, who, covered, [0] if covered else [])
    return store


def english_left(text: str, *names: str) -> list[str]:
    """The English words left in ``text`` once its tags, entities, the given names and the kept
    acronyms are taken out."""
    text = re.sub(r"<[^>]+>", " ", text).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9/_-]*", text) if w not in ACRONYMS and w not in KEPT]


def test_the_compare_tab_is_drawn_in_chinese(labelled_store):
    store = labelled_store
    from vibesearch.app.compare_view import configs_html, coverage_html, stages_html

    a, b = sorted((r.id for r in store.list_runs()), key=lambda rid: store.get_run(rid).agent_model or "")
    got = compare_runs(store, a, b, judge="offline", min_agreement=0.985)
    english = stages_html(got) + coverage_html(got)
    assert "Covered in both" in english and "coverage agreement 75.00%" in english and "less than 98.50%" in english
    zh = stages_html(got, "zh") + coverage_html(got, "zh")
    assert "两者都覆盖" in zh and "覆盖：一致率 75.00%" in zh and "低于 98.50%" in zh and "A 到达于第几轮" in zh
    assert english_left(zh, a, b, "t1", "react:fake/a", "react:fake/b", "Star Alliance", "SkyTeam", "oneworld", "Frankfurt", "founded in", "headquarters") == []

    configs = compare_configs(store, {"agent_model": "fake/a"}, {"agent_model": "fake/b"}, judge="offline", min_agreement=0.985)
    zh = configs_html(configs, "zh")
    assert "噪声下限" in zh and "百分点" in zh and "不排名" in zh, zh
    assert english_left(zh, "agent_model=fake/a", "agent_model=fake/b", "t1") == []
    assert "noise floor" in configs_html(configs) and "not ranked" in configs_html(configs)


def test_the_leaderboards_judge_lines_and_footnotes_are_chinese(labelled_store):
    store = labelled_store
    from vibesearch.app import leaderboard
    from vibesearch.app import footnote_text
    from vibesearch.judges.judge_failures import FAILURES_FOOTNOTE

    ctx = SimpleNamespace(store=store, settings=SimpleNamespace(min_judge_agreement=0.985))
    english, *_ = leaderboard.tables(ctx, "offline")  # type: ignore[arg-type]  (a context with what tables reads)
    zh, *_ = leaderboard.tables(ctx, "offline", lang="zh")  # type: ignore[arg-type]
    assert "coverage agreement 75.00%" in english and "less than 98.50%" in english
    assert "覆盖：一致率 75.00%" in zh and "低于 98.50%" in zh and "人工上限" in zh
    line = next(x for x in zh.splitlines() if "一致率" in x)
    assert english_left(line) == []
    assert english_left(footnote_text(FAILURES_FOOTNOTE, "zh"), "official") == [] and footnote_text(FAILURES_FOOTNOTE, "en") == FAILURES_FOOTNOTE


def test_the_label_tabs_campaign_notes_and_progress_are_chinese(app_ctx, settings):
    from label_blind_runs import JUDGE, scored_run

    from vibesearch.app import label_campaign as lc
    from vibesearch.app.label import load_view, triple_html, verdict_html
    from vibesearch.labels.campaigns import create_campaign

    free, hidden = scored_run(settings.db), scored_run(settings.db)
    create_campaign(app_ctx.store, "c", runs=[hidden], annotators=["ann"], sides=["coverage"], overlap=1)
    create_campaign(app_ctx.store, "r", runs=[free], annotators=["ann"], sides=["coverage"], overlap=1, blind=False)
    blind = load_view(app_ctx, hidden, "ann")
    english = verdict_html(blind, True)
    assert english.startswith("<div class='vs-muted' id='vs-label-blind'>Blind: the judges' verdicts")
    blind.lang = "zh"
    assert "盲评" in verdict_html(blind, True) and english_left(verdict_html(blind, True)) == []

    review = load_view(app_ctx, free, "ann")
    review.blind, review.campaign = False, "r"
    assert f"judge {JUDGE}</b> says <b>covered" in triple_html(review) and "Judge review</b> (this campaign is not blind)" in triple_html(review)
    review.lang = "zh"
    card = triple_html(review)
    note = card[card.index("<div class='vs-review'"):]
    assert "评判复核" in note and "判为<b>已覆盖" in note and english_left(note, f"judge {JUDGE}") == []
    head = card[:card.index("<span class='vs-part'>")]
    assert "标准答案三元组 1 / 3" in head and "标注活动 r" in head and english_left(head, review.run_id or "", "标注活动 r") == [], head
    shown = verdict_html(review, False)
    assert "已覆盖" in shown and english_left(re.sub(r"<div class='vs-muted'>rationale-q7-\d+</div>", "", shown), f"judge {JUDGE}") == [], shown

    for name, word in (("c", "盲评"), ("r", "非盲评（评判复核）")):
        assert "Campaign **" in lc.progress_md(app_ctx, name, "ann")
        line = lc.progress_md(app_ctx, name, "ann", "zh")
        assert word in line and "标注活动" in line and english_left(line, "k=", f"**{name}**", "**ann**") == [], line


def test_the_vote_tabs_lines_are_chinese(app_ctx, settings):
    from vote_runs import vote_runs

    from vibesearch.app import NO_ANSWER, WINNER_WORDS, answer_md, card_html, zh_text
    from vibesearch.app.vote import next_view, progress_md
    from vibesearch.labels.vote_campaigns import create_vote_campaign

    vote_runs(settings.db)
    create_vote_campaign(app_ctx.store, "v", annotators=["vera"], pairs_per_config_pair=1, where={"model": ["votemodelk3", "votemodelm8"]})
    assert next_view(app_ctx, "", "vera") == "Pick a vote campaign first."
    for refusal in (next_view(app_ctx, "", "vera", lang="zh"), next_view(app_ctx, "v", "", lang="zh")):
        assert isinstance(refusal, str) and "请先" in refusal and english_left(refusal) == []
    view = next_view(app_ctx, "v", "vera", lang="zh")
    assert not isinstance(view, str)
    assert "Pair 1 · vote campaign v · which answer" in card_html(view)
    view.lang = "zh"
    card = card_html(view)
    head = card[card.index("<div class='vs-muted'>"):card.index("</div>")]
    assert "第 1 对" in head and english_left(head, "投票活动 v") == []
    assert "投票活动 **v**" in progress_md(app_ctx, "v", "vera", "zh") and english_left(progress_md(app_ctx, "v", "vera", "zh"), "**v**", "**vera**") == []
    assert "Vote campaign **v**" in progress_md(app_ctx, "v", "vera")
    assert answer_md("", "en") == NO_ANSWER and english_left(answer_md("", "zh")) == []
    assert all(english_left(zh_text(w, "zh"), "A", "B") == [] for w in WINNER_WORDS.values())


def test_the_new_vote_campaign_forms_lines_are_chinese(app_ctx, settings):
    from vote_runs import vote_runs

    from vibesearch.app import Who, make_vote_campaign

    vote_runs(settings.db)
    refused = make_vote_campaign(app_ctx, Who(owner="user:ann", login="ann"), "v", [], "", "", "1", "1", "vera", "zh")
    assert refused.startswith("未创建：只有管理员") and english_left(refused, "VIBESEARCH_ADMINS", "`vibesearch votes campaign create`") == []
    admin = Who(owner="user:root", login="root", admin=True)
    made = make_vote_campaign(app_ctx, admin, "v", [], "", "", "1", "1", "vera", "zh")
    assert made.startswith("投票活动 **v** 已创建"), made
    assert english_left(made, "**v**", "vera") == []
    assert make_vote_campaign(app_ctx, admin, "w", [], "", "", "1", "1", "vera").startswith("Vote campaign **w** made")
