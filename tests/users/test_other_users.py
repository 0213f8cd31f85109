"""Paper-faithful simulator, the person (human), the shadow and the scripted users."""

from __future__ import annotations

import asyncio
import threading

from vibesearch.run.conversation import Conversation
from vibesearch.run.events import MessageEvent, StageEvent
from vibesearch.config import Settings
from vibesearch.users import HumanUser, PaperUser, ShadowUser, UserState, UserTurn, make_user, shadow_agreement
from vibesearch.users.paper import infer_turn, persona_markdown
from vibesearch.users.scripted import direct_query
from vibesearch.protocol import build_config


def convo_with(reply: str) -> Conversation:
    c = Conversation()
    c.add(MessageEvent(role="user", content="opening"))
    c.add(MessageEvent(role="assistant", content=reply, final=True))
    return c


# ------------------------------------------------------------------ paper-faithful
async def test_paper_user_sends_the_whole_persona_and_infers_progress(fake, tea_task, settings):
    seen = []
    line = tea_task.stages[1].line

    def handler(req):
        seen.append(req)
        return fake.Reply(content=f"Oh nice. {line}" if len(seen) == 1 else "[DONE]")

    user = make_user(build_config(settings, user="paper", simulator_model=fake.register("paper-sim", handler)), tea_task, settings)
    assert isinstance(user, PaperUser)
    first = await user.next_turn(convo_with("Matcha is a good choice."), UserState(tea_task, 0, 1))
    assert first.stage_advanced and first.reply_kind == "disclose" and first.decided_by == "simulator"
    assert first.rationale.startswith("inferred from text")
    system = seen[0].system
    # every stage is in the persona text, as the official harness gives it
    assert all(s.line in system for s in tea_task.stages) and "Stage 2" in system
    assert seen[0].response_format is None  # free text
    done = await user.next_turn(convo_with("More."), UserState(tea_task, 1, 2))
    assert done.reply_kind == "done"


def test_paper_inference(tea_task):
    state = UserState(tea_task, 0, 1)
    assert not infer_turn(tea_task, state, "Tell me more about teas.").stage_advanced
    assert infer_turn(tea_task, state, "No preference, really. What else?").reply_kind == "perfunctory"
    # a short fragment of the line is not a disclosure
    assert not infer_turn(tea_task, state, "Matcha sounds good.").stage_advanced
    paraphrase = tea_task.stages[1].line.replace("difference", "difference, roughly,")
    assert infer_turn(tea_task, state, paraphrase).stage_advanced


def test_persona_markdown_prefers_the_official_text(tea_task):
    assert "Matcha grades" in persona_markdown(tea_task)
    tea_task.persona_markdown = "# Core Identity\nofficial text"
    assert persona_markdown(tea_task) == "# Core Identity\nofficial text"


# ------------------------------------------------------------------ a person
async def test_human_turn_is_awaited_and_normalised(tea_task):
    user = HumanUser(tea_task)
    assert user.pending_state() is None
    state = UserState(tea_task, 0, 1)
    waiting = asyncio.create_task(user.next_turn(convo_with("Matcha?"), state))
    pending = await user.wait_pending()
    assert pending["next_index"] == 1 and pending["next_line"] == tea_task.stages[1].line
    assert pending["trigger_kind"] == "mentions" and pending["fallback"] == tea_task.stages[1].fallback
    assert pending["last_reply"] == "Matcha?" and not waiting.done()
    await user.submit(UserTurn(message="", reply_kind="disclose", decided_by="human"))
    turn = await waiting
    assert turn.stage_advanced and turn.message == tea_task.stages[1].line and turn.decided_by == "human"
    assert user.pending_state() is None


async def test_human_submit_from_another_thread(tea_task):
    user = HumanUser(tea_task)
    waiting = asyncio.create_task(user.next_turn(convo_with("x"), UserState(tea_task, 0, 1)))
    await user.wait_pending()
    threading.Thread(target=user.submit_nowait, args=(UserTurn("Names, please.", "push"),)).start()
    turn = await asyncio.wait_for(waiting, 5)
    assert turn.reply_kind == "push" and turn.message == "Names, please." and not turn.stage_advanced
    assert turn.trigger_met is False


async def test_human_disclose_with_nothing_left_is_a_push(tea_task):
    user = HumanUser(tea_task)
    last = len(tea_task.stages) - 1
    task = asyncio.create_task(user.next_turn(convo_with("x"), UserState(tea_task, last, 5)))
    await user.wait_pending()
    await user.submit(UserTurn("more", "disclose"))
    turn = await task
    assert turn.reply_kind == "push" and not turn.stage_advanced


# ------------------------------------------------------------------ shadow
async def test_shadow_runs_beside_the_person(tea_task, settings):
    user = make_user(build_config(settings, user="human", shadow="rules"), tea_task, settings)
    assert isinstance(user, ShadowUser)
    task = asyncio.create_task(user.next_turn(convo_with("Try matcha."), UserState(tea_task, 0, 1)))
    await user.wait_pending()
    await user.submit(UserTurn("Hmm, tell me more first.", "push"))
    turn = await task
    assert turn.decided_by == "human" and turn.reply_kind == "push"
    assert turn.shadow is not None and turn.shadow.stage_advanced  # the rules would have disclosed


def test_shadow_agreement_counts_turns():
    def ev(adv, shadow=False, kind="push"):
        return StageEvent(stage_index=1 if adv else 0, advanced=adv, reply_kind="disclose" if adv else kind, decided_by="shadow" if shadow else "human", shadow=shadow)

    events = [
        StageEvent(stage_index=0, reply_kind="open", decided_by="human"),
        ev(False), ev(False, True),
        ev(True), ev(False, True),
        ev(True), ev(True, True),
        ev(False),  # no shadow opinion: not counted
    ]
    assert shadow_agreement(events) == {"n": 3, "agree": 2, "rate": 2 / 3}
    assert shadow_agreement([])["rate"] is None


# ------------------------------------------------------------------ scripted
async def test_direct_user(tea_task):
    user = make_user(build_config(Settings(), user="direct"), tea_task, Settings())
    opening = await user.opening(UserState(tea_task))
    assert opening.message == direct_query(tea_task)
    assert all(s.line in opening.message for s in tea_task.stages[1:])
    done = await user.next_turn(convo_with("answer"), UserState(tea_task, 0, 1))
    assert done.reply_kind == "done" and done.decided_by == "script"
    tea_task.final_query = "Everything at once, please."
    assert (await make_user(build_config(Settings(), user="direct"), tea_task, Settings()).opening(UserState(tea_task))).message == "Everything at once, please."


async def test_staged_user(tea_task):
    tea_task.sub_queries = ["q1", "q2", "q3"]
    user = make_user(build_config(Settings(), user="staged"), tea_task, Settings())
    assert (await user.opening(UserState(tea_task))).message == "q1"
    t2 = await user.next_turn(convo_with("a"), UserState(tea_task, 0, 1))
    t3 = await user.next_turn(convo_with("a"), UserState(tea_task, 1, 2))
    end = await user.next_turn(convo_with("a"), UserState(tea_task, 2, 3))
    assert [t2.message, t3.message] == ["q2", "q3"] and t2.stage_advanced and t3.stage_advanced
    assert end.reply_kind == "done"
