"""Play's texts for a person and a demo (app/render.py, app/play.py, app/_graph_figure.py): the
stage card says the next stage's line and fallback once each, escapes the task's text, and folds
the reply kinds' help; the decision starts unchosen; the chat has no share or clear button; "one
entity's neighbourhood" with no entity picked asks for one instead of drawing the whole graph."""

from __future__ import annotations

import html

from vibesearch.app import PLAY_CSS, graph_figure, play
from vibesearch.app.render import human_card_html


def _japan(bundled_tasks):
    return next(t for t in bundled_tasks if t.id == "daily-en-japan-heritage-trip")


def test_the_card_says_each_stage_line_and_fallback_once(bundled_tasks):
    task = _japan(bundled_tasks)
    nxt = task.persona.stages[1]
    card = html.unescape(human_card_html(task, 0, waiting=True, user_turns=1))
    assert card.count(nxt.line) == 1, card
    assert nxt.fallback and card.count(nxt.fallback) == 1, card
    assert "the Line above" in card and "Fallback above" in card
    assert "<details class='vs-kinds'>" in card  # the help is folded: the controls stay near the top


def test_the_card_escapes_the_task_text(bundled_tasks):
    task = _japan(bundled_tasks).model_copy(deep=True)
    st = task.persona.stages[1]
    st.line = "<img src=x onerror=alert(1)> go on"
    st.fallback = "<b>more</b> please, and tell me more about it"
    card = human_card_html(task, 0, waiting=True)
    assert "<img" not in card and "<b>more</b>" not in card
    assert "&lt;img" in card


def test_the_last_stage_card_still_shows_every_message(bundled_tasks):
    task = _japan(bundled_tasks)
    last = len(task.persona.stages) - 1
    card = human_card_html(task, last, waiting=True, user_turns=3)
    assert "Every stage is disclosed" in card and "above" not in card  # nothing printed above to point at


def test_no_default_decision_no_share_and_the_send_keys_said():
    assert "share" not in play.CHAT_BUTTONS and "copy_all" not in play.CHAT_BUTTONS
    # Gradio draws the trash button with no flag to leave it out: its panel is hidden by place, not by its label
    assert "#vs-play-chat .icon-button-wrapper.top-panel" in PLAY_CSS and 'aria-label="Clear"' not in PLAY_CSS
    assert "Shift+Enter sends" in play.SEND_HINT


def test_a_neighbourhood_with_no_entity_asks_for_one():
    gt = [{"head": "Kyoto", "relation": "has", "tail": "Kiyomizu-dera"}]
    pred = [{"head": "Kyoto", "relation": "has", "tail": "Nijo Castle"}]
    fig = graph_figure(gt, pred, show="focus", title="Run 1")
    assert "pick an entity" in fig.layout.title.text and "showing" not in fig.layout.title.text
    assert any("Pick an entity" in a.text for a in fig.layout.annotations)
    assert not [t for t in fig.data if getattr(t, "x", None)]  # no triple drawn
    picked = graph_figure(gt, pred, show="focus", focus="kyoto", title="Run 1")
    assert "neighbourhood of" in picked.layout.title.text


def test_the_card_and_stepper_speak_the_tasks_language():
    from vibesearch.app import DECISION_WORDS, lang_of
    from vibesearch.app.play import decision_radio, turn_html
    from vibesearch.app.render import human_card_html, stepper_html
    from vibesearch.tasks import load_tasks
    from vibesearch.config import BUNDLED_TASKS

    tasks = {t.id: t for t in load_tasks([BUNDLED_TASKS])}
    zh, en = tasks["daily-zh-traditional-festivals"], tasks["daily-en-japan-heritage-trip"]
    assert (lang_of(zh), lang_of(en)) == ("zh", "en")
    card_zh, card_en = human_card_html(zh, 0, waiting=True), human_card_html(en, 0, waiting=True)
    assert "下一阶段 2" in card_zh and "每个选项的作用" in card_zh and "Next stage" not in card_zh
    assert "Next stage 2" in card_en and "下一阶段" not in card_en
    # whose turn it is is said once, by the line above the controls, not again in the card
    assert "轮到你了" not in card_zh and "Your turn" not in card_en
    assert "轮到你了" in turn_html(True, "zh") and "Your turn" in turn_html(True, "en")
    assert "阶段：已透露 1 / 11" in stepper_html(zh, []) and "Stages: 1 / 9 disclosed" in stepper_html(en, [])  # the opening is out
    assert [c[0] for c in decision_radio(zh).choices] == [DECISION_WORDS[k]["zh"] for k in ("disclose", "push", "perfunctory", "redirect", "done")]
