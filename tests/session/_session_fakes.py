"""Deterministic fake models for the session tests (also loaded into CLI subprocesses through
``VIBESEARCH_FAKE_MODELS=_session_fakes:register``).

* ``fake/agent`` — a ReAct agent's model: per user turn it searches, visits the first result, then
  replies with text that meets the next stage's trigger (the stage's cues, inside a question). For
  the extraction instruction it answers a JSON array of triples. Its answers depend only on the
  request, so a resumed run asks and gets exactly what an uninterrupted one does.
* ``fake/sim`` — the LLM simulator's model: reads the stage card from the system prompt, answers
  ``disclose`` with the line when the agent's last message contains a cue of the next stage, and
  ``done`` when every stage has been said. ``fake/sim-greedy`` claims two stages at once.
* ``fake/agent-quiet`` — replies without meeting any trigger (for max-turn and budget runs).

``VIBESEARCH_TEST_FAKE_DELAY`` (seconds) slows every call; ``VIBESEARCH_TEST_FAKE_HOLD`` (a file
path) holds every call until that file exists (a test keeps a run mid-call exactly as long as it
needs); ``VIBESEARCH_TEST_FAKE_FAIL`` (a rate, e.g. 0.2) makes that share of calls fail with 429 /
500 / timeout in a seeded pattern.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import threading
from functools import lru_cache
from typing import Callable

from vibesearch.config import BUNDLED_TASKS
from vibesearch.llm import fake
from vibesearch.tasks import load_tasks
from vibesearch.users import cues_for

_URL = re.compile(r"\((https?://[^\s)]+)\)|(https?://\S+)")
_lock = threading.Lock()
_calls = {"n": 0, "failed": 0}
_attempts: dict[str, int] = {}
EXTRA_TASKS: list = []  # tests may add tasks of their own


@lru_cache(maxsize=1)
def _bundled():
    return load_tasks([BUNDLED_TASKS])


def task_for(first_user_text: str):
    for t in [*EXTRA_TASKS, *_bundled()]:
        if t.persona.initial_query.strip() == (first_user_text or "").strip():
            return t
    return None


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _fault(name: str, req: fake.Request):
    """The seeded failure pattern: an error kind for this call, or None.

    Whether an attempt fails depends only on the request's content and the attempt number, so
    the pattern is the same however concurrent runs interleave. A request fails at most twice
    in a row, so the client's retries always get through.
    """
    rate = float(os.environ.get("VIBESEARCH_TEST_FAKE_FAIL", "0") or 0)
    if not rate:
        return None
    key = hashlib.sha1((name + json.dumps(req.messages, sort_keys=True, default=str)).encode()).hexdigest()
    with _lock:
        attempt = _attempts.get(key, 0)
        _attempts[key] = attempt + 1
        _calls["n"] += 1
    if attempt < 2 and random.Random(f"{key}:{attempt}").random() < rate:
        with _lock:
            _calls["failed"] += 1
        return ("429", "500", "timeout")[int(key[:4], 16) % 3 if attempt == 0 else (int(key[:4], 16) + 1) % 3]
    return None


def _delay() -> float:
    return float(os.environ.get("VIBESEARCH_TEST_FAKE_DELAY", "0") or 0)


def next_stage_cue(task, user_texts: list[str]) -> str | None:
    """A cue of the stage after the last one the user said (None when all were said)."""
    stages = task.persona.stages
    pointer = 0
    for i, s in enumerate(stages):
        if any(s.line.strip() == u.strip() for u in user_texts):
            pointer = max(pointer, i)
    if pointer + 1 >= len(stages):
        return None
    cues = cues_for(stages[pointer + 1])
    return cues[0] if cues else stages[pointer + 1].name


def agent_handler(req: fake.Request, *, quiet: bool = False) -> fake.Reply:
    err = _fault("agent", req)
    if err:
        return fake.Reply(error=err, delay_s=_delay())
    users = [_text(m.get("content")) for m in req.messages if m.get("role") == "user"]
    last = req.last_user
    if not req.tools:  # extraction (or a forced reply): a JSON array of triples
        if "JSON" in last or "json" in last or "知识图谱" in last:
            triples = [{"head": "fake agent", "relation": "answered", "tail": f"turn {i}"} for i in range(len(users))]
            return fake.Reply(content="```json\n" + json.dumps(triples) + "\n```", delay_s=_delay())
        return fake.Reply(content="Here is my answer.", delay_s=_delay())
    results = req.tool_results()
    if not results:
        return fake.Reply(tool_calls=[("search", {"query": last[:200]})], delay_s=_delay())
    if len(results) == 1:
        urls = [a or b for a, b in _URL.findall(_text(results[0].get("content")))]
        if urls:
            return fake.Reply(tool_calls=[("visit", {"url": [urls[0]], "goal": last[:100]})], delay_s=_delay())
    task = task_for(users[0] if users else "")
    if quiet or task is None:
        return fake.Reply(content=f"I looked into it ({len(results)} tool results) and have nothing new.", delay_s=_delay())
    cue = next_stage_cue(task, users)
    if cue is None:
        return fake.Reply(content="That covers everything you asked for.", delay_s=_delay())
    return fake.Reply(content=f"I found material on {cue}. Would you like more detail about {cue}?", delay_s=_delay())


def sim_handler(req: fake.Request, *, greedy: bool = False) -> fake.Reply:
    err = _fault("sim", req)
    if err:
        return fake.Reply(error=err, delay_s=_delay())
    system = req.system
    said = [_text(m.get("content")) for m in req.messages if m.get("role") == "assistant"]
    task = task_for(said[0] if said else "")
    reply_to = _text(req.messages[-1].get("content")) if req.messages else ""
    if "Every stage has been said" in system:
        out = {"trigger_met": True, "reply_kind": "done", "reply": "[DONE]", "rationale": "all said"}
        return fake.Reply(content=json.dumps(out), delay_s=_delay())
    m = re.search(r"NEXT STAGE: stage (\d+)", system)
    if task is None or m is None:
        return fake.Reply(content=json.dumps({"trigger_met": False, "reply_kind": "push", "reply": "Go on."}), delay_s=_delay())
    idx = int(m.group(1))
    stage = task.persona.stages[idx]
    cues = cues_for(stage) or [stage.name]
    if any(c.lower() in reply_to.lower() for c in cues):
        line = stage.line
        out = {"trigger_met": True, "reply_kind": "disclose", "reply": line, "rationale": "cue present"}
        if greedy and idx + 1 < len(task.persona.stages):
            out["reply"] = line + " " + task.persona.stages[idx + 1].line
            out["stages_disclosed"] = 2
        return fake.Reply(content=json.dumps(out, ensure_ascii=False), delay_s=_delay())
    out = {"trigger_met": False, "reply_kind": "push", "reply": "Keep going, I need more specifics.", "rationale": "no cue"}
    return fake.Reply(content=json.dumps(out), delay_s=_delay())


def _held(handler):
    """``handler`` with its replies held while ``VIBESEARCH_TEST_FAKE_HOLD`` names a missing file."""
    def answer(req: fake.Request) -> fake.Reply:
        reply = handler(req)
        gate = os.environ.get("VIBESEARCH_TEST_FAKE_HOLD")
        if gate:
            reply.hold = lambda: os.path.exists(gate)
        return reply
    return answer


def _noting_freeze(handler: Callable[[fake.Request], fake.Reply]) -> Callable[[fake.Request], fake.Reply]:
    """``handler``, noting at each call how many objects the process has frozen (``gc.freeze``) in
    the file ``VIBESEARCH_TEST_FREEZE_NOTE`` names: a worker settles before its first run."""

    def answer(req: fake.Request) -> fake.Reply:
        import gc

        with open(os.environ["VIBESEARCH_TEST_FREEZE_NOTE"], "a", encoding="utf-8") as note:
            note.write(f"{gc.get_freeze_count()}\n")
        return handler(req)
    return answer


def register() -> None:
    fake.register("agent", _held(agent_handler))
    fake.register("agent-freeze-note", _noting_freeze(agent_handler))
    fake.register("agent-quiet", _held(lambda r: agent_handler(r, quiet=True)))
    fake.register("sim", _held(sim_handler))
    fake.register("sim-greedy", _held(lambda r: sim_handler(r, greedy=True)))
