"""The app's funnel views (issue 41) without a browser: the Runs card links each triple to a user
turn the transcript holds an anchor for, its counts sum to the ground truth, every text from the
task, the tools and the judge stays text; the Leaderboard's bars carry each bucket's count."""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone

from vibesearch.app.funnel_view import TURN_ANCHOR, funnel_figure, jump_turn, run_funnel_html
from vibesearch.app.render import chat_messages
from vibesearch.results.analysis import funnel_row
from vibesearch.results.funnel import BUCKETS, Disclosure, RunFunnel, Sighting, TripleFate, run_funnel
from vibesearch.run.events import MessageEvent, StageEvent, StoredEvent, ToolCallEvent, ToolResultEvent
from vibesearch.run.scores import Verdict


def _stored(datas):
    ts = datetime.now(timezone.utc)
    return [StoredEvent(run_id="r1", seq=i + 1, ts=ts, data=d) for i, d in enumerate(datas)]


def _crafted_run(task):
    """Three user turns; the second discloses stage 2; a search on turn 3 names the first
    ground-truth triple's head and tail; the judge covers that triple only."""
    first = task.graph[0]
    datas = [
        StageEvent(stage_index=0, stage_name=task.stages[0].name, reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content=task.persona.initial_query),
        MessageEvent(role="assistant", content="Tell me more?", final=True),
        StageEvent(stage_index=1, stage_name=task.stages[1].name, advanced=True, reply_kind="disclose", trigger_met=True, decided_by="rules"),
        MessageEvent(role="user", content=task.stages[1].line),
        MessageEvent(role="assistant", content="Noted.", final=True),
        MessageEvent(role="user", content="Go on."),
        MessageEvent(role="assistant", content="", n_tool_calls=1),
        ToolCallEvent(call_id="c1", tool="search", arguments={"query": first.head}),
        ToolResultEvent(call_id="c1", tool="search", content=f"1. {first.head}: {first.relation} {first.tail}"),
        MessageEvent(role="assistant", content="Found it.", final=True),
    ]
    prediction = [{"head": first.head, "relation": first.relation, "tail": first.tail}]
    verdicts = [Verdict(gt_index=i, covered=(i == 0), evidence=[0] if i == 0 else [], rationale="same fact" if i == 0 else "absent")
                for i in range(len(task.graph))]
    return _stored(datas), run_funnel("r1", task, _stored(datas), prediction, verdicts)


def test_every_triple_links_to_a_turn_the_transcript_has_an_anchor_for(bundled_tasks):
    task = next(t for t in bundled_tasks if t.id == "daily-en-japan-heritage-trip")
    events, funnel = _crafted_run(task)
    card = run_funnel_html(funnel, judge="offline judge", lang="en")
    counts = {b: int(n) for b, n in re.findall(r"data-bucket='(\w+)' data-count='(\d+)'", card)}
    assert counts == {b: n for b, n in funnel.counts().items()} and sum(counts.values()) == len(task.graph)
    assert f"data-n-gt='{len(task.graph)}'" in card
    assert counts["covered"] == 1 and counts["not_asked"] > 0  # stages 3… were never disclosed

    chat = chat_messages(events, task, anchors=TURN_ANCHOR)
    anchors = [re.search(rf"id='{TURN_ANCHOR}-(\d+)'", str(m.content)) for m in chat]
    user_turns = [(int(a.group(1)), m.role) for a, m in zip(anchors, chat) if a]
    assert user_turns == [(1, "user"), (2, "user"), (3, "user")]  # one per user turn, on its message
    assert TURN_ANCHOR not in "".join(str(m.content) for m in chat_messages(events, task))  # Play's chat: none

    linked = {int(t) for t in re.findall(r"data-turn='(\d+)'", card)}
    assert linked and linked <= {n for n, _ in user_turns}
    seen = funnel.fates[0]
    assert seen.sighting is not None and jump_turn(seen) == 3  # first shown on turn 3: its line goes there
    never = next(f for f in funnel.fates if f.bucket == "not_asked")
    assert jump_turn(never) is None
    item = re.search(rf"<li class='vs-funnel-triple' id='vs-runs-funnel-gt-{never.gt_index + 1}'.*?</li>", card, re.S)
    assert item and "data-turn" not in item.group(0) and "its stage was never disclosed" in item.group(0)


def test_the_card_keeps_every_text_as_text(bundled_tasks):
    img, script = '<img src=x onerror="window.__pwned=1">', "<script>alert(1)</script>"
    fates = (
        TripleFate(gt_index=0, head=img, relation=script, tail="'quoted' & more", bucket="judged_not_covered", stage=0, stage_source="task",
                   disclosed=Disclosure(0, 1, 2), seen="yes", sighting=Sighting(5, 4, "c1", f"search{img}", 2, f"javascript:{script}"),
                   prediction=0, verdict="not covered", rationale=f"wrong value {img}"),
    )
    funnel = RunFunnel("r1", "t", "text", fates, prediction=((img, script, "x"),), prediction_valid=(False,), prediction_seen=(True,))
    card = run_funnel_html(funnel, judge=f"judge {img}", lang="zh")
    assert "<img" not in card and "<script" not in card
    assert html.escape(img) in card and "&#x27;quoted&#x27; &amp; more" in card
    assert "判为未覆盖" in card and "评判结论" in card  # a Chinese task's words


def test_the_leaderboard_bars_carry_each_buckets_count():
    rows = [funnel_row("a · vibesearch profile", [[1, 2, 3, 0, 4], [0, 0, 1, 1, 8]]), funnel_row("b <i>x</i> · official profile", [[0, 5, 0, 0, 5]])]
    fig = funnel_figure(rows, "en")
    assert [t.name for t in fig.data] == ["not asked", "not seen", "not written", "judged not covered", "covered"]
    for k, row in enumerate(rows):
        assert [t.text[k] for t in fig.data] == [str(row[b]) if row[b] else "" for b in BUCKETS]
        assert abs(sum(t.x[k] for t in fig.data) - 100) < 1e-9
    assert "<i>" not in "".join(fig.data[0].y)  # a configuration's name is text in the plot too
    assert [t.name for t in funnel_figure(rows, "zh").data][-1] == "已覆盖"
    assert funnel_figure([], "en").layout.annotations[0].text == "No scored runs yet"
