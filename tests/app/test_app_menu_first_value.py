"""A filter menu's first value ("(any)", "(all)", "(judge with most scores)") in a Chinese browser:
its label is Chinese, the value the browser sends back stays the token the handlers read, and the
menu still refuses a value it does not offer — the Chinese label sent as a value among them."""

from __future__ import annotations

import gradio as gr
import pytest

from vibesearch.app import UI_I18N, first_choice
from vibesearch.app.leaderboard import ALL, AUTO
from vibesearch.app.runs import ANY


def test_the_first_value_is_labelled_in_chinese_and_sent_as_its_token():
    menu = gr.Dropdown(first_choice(ANY, ["finished", "cancelled"], "zh"), value=ANY)
    assert menu.choices[0] == ("（任意）", ANY) and menu.preprocess(ANY) == ANY
    with pytest.raises(gr.Error, match="not in the list of choices"):
        menu.preprocess("（任意）")
    assert first_choice(ANY, ["x"]) == [(ANY, ANY), ("x", "x")]  # English: as it always was
    assert [label for label, _ in (first_choice(ALL, [], "zh") + first_choice(AUTO, [], "zh"))] == ["（全部）", "（得分最多的评判）"]


def test_no_choice_of_the_app_is_a_key_of_gradio_s_translations(settings):
    """Gradio's page translates any component value equal to a key of the app's i18n table: a menu's
    or a radio's value there would be shown, then sent back, in Chinese (and refused). No choice
    value of any menu, radio or checkbox group of the page is one of those keys."""
    from vibesearch.app.ui import build_app

    keys = set(UI_I18N.translations["zh-CN"])
    demo = build_app(settings)
    try:
        values = {str(v) for block in demo.blocks.values() for _label, v in (getattr(block, "choices", None) or [])}
        assert {ANY, ALL, AUTO, "run", "all", "coverage"} <= values | {ALL, AUTO}
        assert not values & keys, sorted(values & keys)
    finally:
        demo.vibesearch.manager.shutdown()
