"""The LLM simulator through litellm's fake provider: the harness owns the stage pointer."""

from __future__ import annotations

import json

import pytest

from vibesearch.run.conversation import Conversation
from vibesearch.run.events import ErrorEvent, MessageEvent, UsageEvent
from vibesearch.users import SimulatorUser, UserState, make_user
from vibesearch.protocol import build_config


def convo_with(reply: str) -> Conversation:
    c = Conversation()
    c.add(MessageEvent(role="user", content="Which Japanese green teas would work on a café menu?"))
    c.add(MessageEvent(role="assistant", content=reply, final=True))
    return c


def scripted(fake, name, outputs):
    """A fake simulator model that returns the given texts in order and records the requests."""
    seen = []

    def handler(req):
        seen.append(req)
        out = outputs[min(len(seen) - 1, len(outputs) - 1)]
        return fake.Reply(content=out if isinstance(out, str) else json.dumps(out))

    return fake.register(name, handler), seen


async def test_prompt_carries_state_and_rules(fake, tea_task, settings):
    model, seen = scripted(fake, "sim-prompt", [{"trigger_met": False, "reply_kind": "push", "reply": "Names please.", "rationale": "no"}])
    user = SimulatorUser(tea_task, settings, model=model)
    events = []
    turn = await user.next_turn(convo_with("Green tea is nice."), UserState(tea_task, 0, 1, emit=events.append))
    assert turn.reply_kind == "push" and turn.message == "Names please." and not turn.stage_advanced
    req = seen[0]
    system = req.system
    assert tea_task.persona.background in system and tea_task.persona.behavior in system
    assert "NEXT STAGE: stage 1" in system and tea_task.stages[1].line in system and tea_task.stages[1].fallback in system
    assert tea_task.stages[2].line not in system  # later stages stay hidden
    assert "never suggest" in system and "[DONE]" in system and "Markdown" in system
    # the agent's reply is the incoming message; the user's own words are the model's side
    assert req.messages[-1] == {"role": "user", "content": "Green tea is nice."}
    assert req.messages[-2]["role"] == "assistant"
    assert req.response_format == {"type": "json_object"}
    assert any(isinstance(e, UsageEvent) and e.purpose == "simulator" for e in events)


async def test_disclose_with_trigger_met(fake, tea_task, settings):
    model, _ = scripted(fake, "sim-ok", [{"trigger_met": True, "reply_kind": "disclose", "reply": tea_task.stages[1].line, "rationale": "matcha"}])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Try matcha."), UserState(tea_task, 0, 1))
    assert turn.stage_advanced and turn.reply_kind == "disclose" and turn.message == tea_task.stages[1].line


async def test_disclose_without_trigger_becomes_push_and_hides_the_line(fake, tea_task, settings):
    model, _ = scripted(fake, "sim-bad-disclose", [{"trigger_met": False, "reply_kind": "disclose", "reply": tea_task.stages[1].line}])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Tea."), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "push" and not turn.stage_advanced
    assert turn.message != tea_task.stages[1].line and "concrete tea names" in turn.message
    assert "harness" in (turn.rationale or "")


async def test_push_text_kept_when_disclose_refused_but_no_line(fake, tea_task, settings):
    model, _ = scripted(fake, "sim-refused", [{"trigger_met": False, "reply_kind": "disclose", "reply": "Which teas exactly?"}])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Tea."), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "push" and turn.message == "Which teas exactly?"


async def test_claiming_two_stages_advances_one(fake, tea_task, settings):
    both = tea_task.stages[1].line + " " + tea_task.stages[2].line
    model, _ = scripted(fake, "sim-greedy", [{"trigger_met": True, "reply_kind": "disclose", "reply": both, "stages_disclosed": 2}])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Matcha, Uji."), UserState(tea_task, 0, 1))
    assert turn.stage_advanced and turn.message == tea_task.stages[1].line
    assert tea_task.stages[2].line not in turn.message


async def test_done_refused_while_stages_remain_and_honoured_at_the_end(fake, tea_task, settings):
    model, _ = scripted(fake, "sim-done", [{"trigger_met": True, "reply_kind": "done", "reply": "[DONE]"}])
    user = SimulatorUser(tea_task, settings, model=model)
    early = await user.next_turn(convo_with("Matcha."), UserState(tea_task, 1, 2))
    assert early.reply_kind == "push" and "[DONE]" not in early.message and early.message
    last = len(tea_task.stages) - 1
    end = await user.next_turn(convo_with("Importers: A, B."), UserState(tea_task, last, 5))
    assert end.reply_kind == "done" and end.message == "[DONE]"


async def test_markdown_and_fences_are_repaired(fake, tea_task, settings):
    raw = '```json\n{"trigger_met": "yes", "reply_kind": "Perfunctory", "reply": "**No preference.** Now the teas?",}\n```'
    model, _ = scripted(fake, "sim-fenced", [raw])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Budget?"), UserState(tea_task, 0, 1))
    assert turn.reply_kind == "perfunctory" and turn.message == "No preference. Now the teas?"


async def test_unreadable_output_retried_then_pushes(fake, tea_task, settings):
    model, seen = scripted(fake, "sim-garbage", ["not json at all", "still nothing"])
    events = []
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Tea."), UserState(tea_task, 0, 1, emit=events.append))
    assert len(seen) == 2  # one retry with the parse error
    assert "could not be read" in seen[1].messages[-1]["content"]
    assert turn.reply_kind == "push" and "concrete tea names" in turn.message
    assert any(isinstance(e, ErrorEvent) and not e.fatal for e in events)


async def test_retry_fixes_a_bad_first_output(fake, tea_task, settings):
    model, seen = scripted(fake, "sim-second", ["oops", {"trigger_met": True, "reply_kind": "disclose", "reply": ""}])
    turn = await SimulatorUser(tea_task, settings, model=model).next_turn(convo_with("Matcha!"), UserState(tea_task, 0, 1))
    assert len(seen) == 2 and turn.stage_advanced and turn.message == tea_task.stages[1].line  # empty reply -> the line


def test_make_user_needs_a_model(tea_task, settings):
    with pytest.raises(ValueError, match="simulator model"):
        make_user(build_config(settings, user="simulator"), tea_task, settings)
    with pytest.raises(ValueError, match="'rules', 'simulator'"):  # the config refuses a kind no user has
        make_user(build_config(settings, user="robot"), tea_task, settings)
