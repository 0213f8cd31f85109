"""The rule-based simulator: cue triggers, questions for `asks` stages, pushes, perfunctory answers, done."""

from __future__ import annotations

from vibesearch.run.conversation import Conversation
from vibesearch.run.events import MessageEvent
from vibesearch.config import Settings
from vibesearch.users import RuleUser, UserState, derive_cues, make_user, push_message, questions, trigger_fires
from vibesearch.protocol import build_config


def convo_with(reply: str) -> Conversation:
    c = Conversation()
    c.add(MessageEvent(role="user", content="hi"))
    c.add(MessageEvent(role="assistant", content=reply, final=True))
    return c


async def test_mentions_stage_fires_on_cue_case_insensitive(tea_task):
    user = make_user(build_config(Settings(), user="rules"), tea_task, Settings())
    turn = await user.next_turn(convo_with("Try MATCHA and sencha."), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "disclose" and turn.stage_advanced and turn.trigger_met
    assert turn.message == tea_task.stages[1].line
    assert turn.decided_by == "rules"


async def test_not_fired_pushes_with_the_fallback(tea_task):
    user = RuleUser(tea_task)
    turn = await user.next_turn(convo_with("Green tea is popular in cafés."), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "push" and not turn.stage_advanced and turn.trigger_met is False
    # the fallback's content, worded as the user: "Asks for ..." -> "I'd like ..."
    assert "concrete tea names" in turn.message and not turn.message.lower().startswith("asks")
    assert turn.message != tea_task.stages[1].line


async def test_asks_stage_needs_the_cue_in_a_question(tea_task):
    user = RuleUser(tea_task)
    state = UserState(tea_task, 1, 2)
    statement = await user.next_turn(convo_with("Uji is the most famous region. Prices vary."), state)
    assert statement.reply_kind in ("push", "perfunctory") and not statement.stage_advanced
    question = await user.next_turn(convo_with("Prices vary a lot. Do you care which region it comes from?"), state)
    assert question.reply_kind == "disclose" and question.message == tea_task.stages[2].line
    phrase = await user.next_turn(convo_with("Would you like me to compare Uji with other regions."), state)
    assert phrase.stage_advanced  # a question phrase counts even without a question mark


async def test_cues_derived_from_the_condition(tea_task):
    stage = tea_task.stages[3]
    assert stage.cues == []
    assert {"Uji", "Nishio"} <= set(derive_cues(stage.trigger.condition))
    assert trigger_fires(stage, "Nishio matcha costs less.")[0]
    assert not trigger_fires(stage, "Sencha is cheap.")[0]
    # Chinese examples in brackets and capitalised names
    assert {"太初历", "授时历"} <= set(derive_cues("助手提到中国古代的具体历法名称（如太初历、授时历）"))
    assert "Newton" in derive_cues("the assistant names Newton as an inventor")


async def test_uncovered_question_gets_a_perfunctory_answer_then_the_push(tea_task):
    user = RuleUser(tea_task)
    turn = await user.next_turn(convo_with("Here are some teas. What is your budget per cup?"), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "perfunctory"
    assert turn.message.startswith("I don't really mind either way. ")  # a sentence of its own, then the push
    assert "concrete tea names" in turn.message


async def test_done_only_after_the_last_stage_was_disclosed(tea_task):
    user = RuleUser(tea_task)
    last = len(tea_task.stages) - 1
    before = await user.next_turn(convo_with("Uji costs more than Nishio."), UserState(tea_task, last - 1, 4))
    assert before.reply_kind == "disclose" and before.stage_advanced
    after = await user.next_turn(convo_with("Here are three importers."), UserState(tea_task, last, 5))
    assert after.reply_kind == "done" and after.message == "[DONE]"


async def test_bundled_chinese_task_rules(bundled_tasks):
    zh = [t for t in bundled_tasks if t.language == "zh"]
    if not zh:
        return
    task = zh[0]
    user = RuleUser(task)
    fired = await user.next_turn(convo_with(f"可以讲讲{task.stages[1].cues[0]}。"), UserState(task, 0, 1))
    assert fired.stage_advanced and fired.message == task.stages[1].line
    push = await user.next_turn(convo_with("天文学很有意思。你对哪个朝代感兴趣？"), UserState(task, 0, 1))
    assert push.reply_kind == "perfunctory" and push.message.startswith("这个我无所谓。") and "?." not in push.message


def test_question_detection():
    assert questions("Here it is. Want more? 还有吗？ Shall I go on.") == ["Want more?", "还有吗？", "Shall I go on."]
    assert questions("No questions here.") == []


def test_push_without_fallback_is_generic(tea_task):
    assert "specifics" in push_message(tea_task, None)
