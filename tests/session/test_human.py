"""A person (scripted here) with the simulator in the shadow: both decisions stored, agreement computed."""

from __future__ import annotations

import asyncio

from _parts import parts

from vibesearch.session import run_session
from vibesearch.users import UserTurn, shadow_agreement


async def scripted_person(user, plan):
    """Plays the persona: on each awaited turn, applies the next decision of ``plan``."""
    for decision in plan:
        state = await asyncio.wait_for(user.wait_pending(), 20)
        seen = state["request"]
        if decision == "disclose":
            await user.submit(UserTurn(message="", reply_kind="disclose", decided_by="human"))
        elif decision == "done":
            await user.submit(UserTurn(message="", reply_kind="done", decided_by="human"))
        else:
            await user.submit(UserTurn(message=f"{decision}: tell me more", reply_kind=decision, decided_by="human"))
        while user.waiting and user.pending_state() and user.pending_state()["request"] == seen:
            await asyncio.sleep(0.01)


async def test_human_and_shadow_decisions_are_stored_side_by_side(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human", shadow="fake/sim")
    # the fake agent meets every trigger, so the shadow simulator discloses on every turn;
    # the person pushes on turn 2 and answers perfunctorily on turn 4
    plan = ["disclose", "push", "disclose", "perfunctory", "disclose", "done"]
    run = asyncio.create_task(run_session(config, task, agent, user, store, settings))
    await scripted_person(user, plan)
    result = await asyncio.wait_for(run, 60)
    assert result.termination == "done" and result.status == "finished"
    stages = [e.data for e in store.events(result.run_id, kinds=["stage"])]
    primary = [s for s in stages if not s.shadow]
    shadow = [s for s in stages if s.shadow]
    assert [s.reply_kind for s in primary] == ["open", *plan]
    assert all(s.decided_by == "human" for s in primary)
    assert len(shadow) == len(plan) and all(s.decided_by == "shadow" for s in shadow)
    # each shadow decision directly follows the person's, before the user message
    events = store.events(result.run_id)
    for i, ev in enumerate(events):
        if ev.kind == "stage" and ev.data.shadow:
            assert events[i - 1].kind == "stage" and not events[i - 1].data.shadow
            assert events[i + 1].kind == "message" and events[i + 1].data.role == "user"
    # the pointer follows the person only
    assert [s.stage_index for s in primary] == [0, 1, 1, 2, 2, 3, 3]
    agreement = shadow_agreement(events)
    # the fake agent meets the next trigger on every turn, so the shadow would have disclosed on
    # every turn; the person advanced only on the three disclose turns
    assert agreement["n"] == len(plan)
    person_adv = [s.advanced for s in primary[1:]]
    shadow_adv = [s.advanced for s in shadow]
    assert agreement["agree"] == sum(a == b for a, b in zip(person_adv, shadow_adv))
    assert shadow_adv == [True] * 6 and person_adv == [True, False, True, False, True, False]
    assert agreement["agree"] == 3 and agreement["rate"] == 0.5
    messages = [e.data.content for e in events if e.kind == "message" and e.data.role == "user" and e.data.phase == "dialogue"]
    assert messages[1] == task.stages[1].line and messages[2] == "push: tell me more" and messages[-1] == "[DONE]"
