"""The messages a person's reply kinds send when the box is left empty read as a person would
write them, in the task's language; the card shows exactly what is then sent."""

from __future__ import annotations

import copy

import pytest

from _tea_task import TASK

from vibesearch.run import UserState, UserTurn
from vibesearch.run.events import DECISIONS
from vibesearch.tasks.models import Task
from vibesearch.users import HumanUser, auto_message, finish_sentence, push_message, reply_kind_help

BAD = ("?.", "..", "。.", "？。", "— Hmm", "—  ", "preference — ")


def _task(fallback: str, *, language: str = "en") -> Task:
    data = copy.deepcopy(TASK)
    data["language"] = language
    data["persona"]["stages"][1]["fallback"] = fallback
    return Task.model_validate(data)


def _clean(text: str) -> None:
    assert text and not any(b in text for b in BAD), text
    assert text[-1] in ".?!。？！", text


@pytest.mark.parametrize(
    "fallback, expected_push",
    [
        ("Asks again which of the sites was listed first, and in which year?", "I'm asking again: which of the sites was listed first, and in which year?"),
        ("Asks for concrete tea names instead of general advice.", "I'd like concrete tea names instead of general advice."),
        ("Asks whether the assistant can compare the two prices", "I'd like to know whether you can compare the two prices."),
    ],
)
def test_english_messages_end_once_and_are_not_spliced(fallback, expected_push):
    task = _task(fallback)
    assert push_message(task, fallback, 0) == expected_push
    for kind in DECISIONS:
        text = auto_message(task, kind, 0, user_turns=1)
        if kind != "done":
            _clean(text)
    perf = auto_message(task, "perfunctory", 0, 1)
    assert perf == "I don't really mind either way. " + expected_push  # two sentences, no dash splice, no opener inside
    assert auto_message(task, "redirect", 0, 1) == "Let's get back to what I asked. " + expected_push
    assert auto_message(task, "disclose", 0, 1) == task.stages[1].line
    assert auto_message(task, "done", 0, 1) == "[DONE]"


@pytest.mark.parametrize("fallback", ["追问哪一个最早列入名录，是哪一年？", "要求按时间顺序列出所有节日", "能不能再具体一点。"])
def test_chinese_messages(fallback):
    task = _task(fallback, language="zh")
    for kind in ("push", "perfunctory", "redirect"):
        text = auto_message(task, kind, 0, user_turns=1)
        _clean(text)
        assert not any(c.isascii() and c.isalpha() for c in text), text  # no English words mixed in
    assert auto_message(task, "push", 0, 0).startswith(("我还想知道", "请", "能不能"))
    assert auto_message(task, "perfunctory", 0, 0).startswith("这个我无所谓。")


def test_finish_sentence():
    assert finish_sentence("in which year?.") == "in which year?"
    assert finish_sentence("Can you list them") == "Can you list them?"
    assert finish_sentence("I need the dates,") == "I need the dates."
    assert finish_sentence("列全吗？", "zh") == "列全吗？"
    assert finish_sentence("请列出来", "zh") == "请列出来。"


def test_card_lines_cover_every_kind_and_match_what_is_sent():
    task = _task("Asks for concrete tea names instead of general advice.")
    help_ = reply_kind_help(task, 0, user_turns=2)
    assert [h.kind for h in help_] == list(DECISIONS)
    assert all(h.meaning and "\n" not in h.meaning for h in help_)
    user = HumanUser(task)
    state = UserState(task, 0, 2)
    for h in help_:
        sent = user.normalise(UserTurn(message="", reply_kind=h.kind, decided_by="human"), state)
        assert sent.message == h.empty, h.kind


def test_the_app_card_explains_each_kind():
    from vibesearch.app.render import human_card_html

    task = _task("Asks for concrete tea names instead of general advice.")
    html = human_card_html(task, 0, waiting=True, user_turns=1)
    for kind in DECISIONS:
        assert f"<b>{kind}</b>" in html
    assert html.count("Empty box sends:") == len(DECISIONS)
    assert "I&#x27;d like concrete tea names" in html or "I'd like concrete tea names" in html
