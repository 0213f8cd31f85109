"""What the official-profile session tests share: the tea task, the stand-in checkout, building a
run of the react agent and an LLM-played user under the official profile, fake replies, and readers
of the stored events."""

from __future__ import annotations

import sys
from pathlib import Path

from vibesearch.agents import make_agent
from vibesearch.users import make_user
from vibesearch.protocol import build_config

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "data" / "official_harness"
sys.path.insert(0, str(HERE.parent / "users"))
from _tea_task import TASK  # noqa: E402,F401 - re-exported: the task the fixtures build


def _build(task, settings, *, agent_model, sim_model="fake/off-sim", user="paper", **flat):
    config = build_config(
        settings, task_id=task.id, agent="react", agent_model=agent_model, user=user, simulator_model=sim_model,
        protocol="official", **flat,
    )
    return config, task, make_agent(config, task, settings), make_user(config, task, settings)


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _answer_agent(req):
    """An agent that replies at once (no tools); the extraction request gets one triple."""
    if not req.tools:
        return litellm_reply('[{"head": "Uji", "relation": "located in", "tail": "Kyoto Prefecture"}]')
    n = sum(1 for m in req.messages if m.get("role") == "user")
    return litellm_reply(f"Here is what I found for message {n}.")


def litellm_reply(content: str, **kw):
    from vibesearch.llm import fake

    return fake.Reply(content=content, **kw)


def _user_messages(store, run_id, phase="dialogue"):
    return [e.data.content for e in store.events(run_id, kinds=["message"]) if e.data.role == "user" and e.data.phase == phase]
