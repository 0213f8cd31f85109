"""Redirects are read off the free text of the official simulator and of imported official
trajectories (neither says what kind of reply it wrote): a reply that discloses nothing and steers
the assistant back ("not what I asked", "I don't need that, I just want ...", "这些我暂时不需要，
我就想问问 ...") is a ``redirect``, counted in the run's ``redirect_rate``."""

from __future__ import annotations

from _official_session import _answer_agent, _build, litellm_reply
from vibesearch.interop.official_trajectories import import_trajectory
from vibesearch.run.events import StageEvent
from vibesearch.run.protocols import UserState
from vibesearch.scoring import run_stats
from vibesearch.session import run_session
from vibesearch.tasks.models import Task
from vibesearch.users.paper import infer_turn



def test_the_reply_kinds_read_off_free_text(task):
    state = UserState(task=task, stage_index=0)
    kinds = {text: infer_turn(task, state, text).reply_kind for text in (
        "That's not what I asked. Back to my question: which teas?",
        "Hold on, I still have questions before you wrap up.",
        "这些我暂时不需要，我就想问问口服药是不是容易犯困？",
        "No particular preference, honestly.",
        "Can you give me more detail on the prices?",
        task.persona.stages[1].line,
    )}
    assert list(kinds.values()) == ["redirect", "redirect", "redirect", "perfunctory", "push", "disclose"]


async def test_the_official_simulators_redirect_is_stored_and_counted(fake, task, store, settings):
    replies = iter(["That's not what I asked, let's get back to my question.", "Tell me more about the prices.", "[DONE]"])
    fake.register("off-agent", _answer_agent)
    fake.register("off-sim", lambda req: litellm_reply(next(replies)))
    result = await run_session(*_build(task, settings, agent_model="fake/off-agent"), store, settings)
    kinds = [e.data.reply_kind for e in store.events(result.run_id, kinds=["stage"]) if isinstance(e.data, StageEvent)]
    assert kinds[1:] == ["redirect", "push", "done"]
    stats = run_stats(store, result.run_id)
    assert stats.reply_kinds["redirect"] == 1 and stats.redirect_rate == 1 / 3


def test_an_imported_official_trajectory_with_its_task_counts_its_redirects(store, shared_dir):
    # the real sample: "这些我暂时不需要，我就想问问……" steers the assistant back to what the user asked
    stages = [{"name": f"s{i}", "trigger": {"kind": "start" if i == 0 else "mentions", "condition": "c"}, "line": f"一句不会出现的话 {i} ZQX"}
              for i in range(3)]
    task = Task.model_validate({"id": "task_007_allergy", "subset": "daily", "language": "zh",
                                "graph": [{"head": "过敏性鼻炎", "relation": "症状", "tail": "打喷嚏"}],
                                "persona": {"background": "b", "initial_query": "春季过敏", "stages": stages}})
    run_id = import_trajectory(store, shared_dir / "data" / "official-trajectories" / "task_007_allergy.condensed.json", task=task).run_id
    decisions = [e.data for e in store.events(run_id, kinds=["stage"]) if isinstance(e.data, StageEvent) and e.data.reply_kind != "open"]
    messages = [e.data.content for e in store.events(run_id, kinds=["message"]) if e.data.role == "user" and e.data.phase == "dialogue"][1:]
    redirected = [m for d, m in zip(decisions, messages) if d.reply_kind == "redirect"]
    assert redirected and all("暂时不需要" in m or "不急" in m or "就想" in m for m in redirected)
    stats = run_stats(store, run_id)
    assert stats.redirect_rate is not None and stats.redirect_rate > 0
