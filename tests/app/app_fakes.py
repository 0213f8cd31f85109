"""Scripted models for the app tests, loaded into the app subprocess with
``VIBESEARCH_FAKE_MODELS=app_fakes:register_fakes`` (with tests/app on PYTHONPATH).

* ``fake/app-agent`` — a ReAct agent's model. On a new user message it calls ``search`` with the
  message; once it has a result it replies naming the next stage's cues inside a question (which
  fires ``mentions``, ``asks`` and ``completes`` triggers alike for the rule-based simulator).
  Asked for the graph, it returns a JSON array: the task's first ground-truth triples plus one
  made-up triple, so the score is neither 0 nor 1.
* ``fake/app-agent-slow`` — the same, two seconds per call (for Stop).
* ``fake/app-sim`` — the LLM simulator's model (used in the shadow): ``disclose`` when the
  agent's latest message names a cue of the next stage, ``push`` otherwise.

The task is found from the conversation's opening query; the stage pointer from the stage
lines already said. Nothing here depends on the exact prompt wording of the product.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from vibesearch.config import BUNDLED_TASKS
from vibesearch.llm import fake
from vibesearch.tasks import load_tasks
from vibesearch.users import cues_for

STEP_DELAY_S = float(os.environ.get("VS_APP_FAKE_DELAY", "0.25"))


@lru_cache(maxsize=1)
def _tasks():
    return load_tasks([BUNDLED_TASKS])


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _all_text(req: fake.Request) -> str:
    return "\n".join(_text(m.get("content")) for m in req.messages)


def _task_in(text: str):
    for t in _tasks():
        if t.persona.initial_query in text:
            return t
    return None


def _pointer(task, texts: list[str]) -> int:
    """The last stage whose line was said (0: only the opening)."""
    ptr = 0
    for i, st in enumerate(task.persona.stages[1:], start=1):
        if any(st.line in t for t in texts):
            ptr = i
    return ptr


def _cue_question(task, ptr: int) -> str:
    stages = task.persona.stages
    if ptr + 1 >= len(stages):
        return "I have covered every part of your request. Is there anything else you need?"
    cues = cues_for(stages[ptr + 1]) or [stages[ptr + 1].name]
    named = ", ".join(cues[:3])
    return f"Here is what the sources say so far. Would you like me to go into {named}?"


def agent(req: fake.Request, delay: float = STEP_DELAY_S) -> fake.Reply:
    users = [_text(m.get("content")) for m in req.messages if m.get("role") == "user"]
    last = req.last_user
    task = _task_in("\n".join(users))
    if not req.tools or '"head"' in last:
        triples = [t.model_dump() for t in task.graph[:4]] if task is not None else []
        triples.append({"head": "Fake Agent", "relation": "invented", "tail": "nothing at all"})
        return fake.Reply(content="```json\n" + json.dumps(triples, ensure_ascii=False) + "\n```", delay_s=delay)
    if not req.tool_results():
        return fake.Reply(tool_calls=[("search", {"query": last[:120], "topn": 3})], delay_s=delay)
    if task is None:
        return fake.Reply(content="I searched but I am not sure what you need. What exactly are you after?", delay_s=delay)
    return fake.Reply(content=_cue_question(task, _pointer(task, users)), delay_s=delay)


def simulator(req: fake.Request) -> fake.Reply:
    texts = [_text(m.get("content")) for m in req.messages]
    task = _task_in("\n".join(texts))
    latest = next((_text(m.get("content")) for m in reversed(req.messages) if m.get("role") == "user"), "")
    if task is None:
        out = {"trigger_met": False, "reply_kind": "push", "reply": "Please go on.", "rationale": "no task found"}
        return fake.Reply(content=json.dumps(out))
    ptr = _pointer(task, [t for m, t in zip(req.messages, texts) if m.get("role") == "assistant"])
    stages = task.persona.stages
    if ptr + 1 >= len(stages):
        out = {"trigger_met": True, "reply_kind": "done", "reply": "[DONE]", "rationale": "every stage said"}
    elif any(c.lower() in latest.lower() for c in (cues_for(stages[ptr + 1]) or [stages[ptr + 1].name])):
        out = {"trigger_met": True, "reply_kind": "disclose", "reply": stages[ptr + 1].line, "rationale": "the reply names the next stage's cue"}
    else:
        out = {"trigger_met": False, "reply_kind": "push", "reply": "That is not quite it yet, keep going.", "rationale": "no cue of the next stage"}
    return fake.Reply(content=json.dumps(out, ensure_ascii=False))


def register_fakes() -> None:
    fake.register("app-agent", agent)
    fake.register("app-agent-slow", lambda r: agent(r, delay=2.0))
    fake.register("cmp-agent", agent)  # a second configuration of the same agent (the Compare tab's)
    fake.register("app-sim", simulator)
