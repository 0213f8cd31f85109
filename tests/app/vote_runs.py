"""Runs for the voting card's tests, written straight into the app's database: two
configurations (agents and models named nowhere else, so a page or an answer naming them is a
leak) with finished runs of one task, each a short conversation with a final answer, and one run
whose final answer is empty (an attention item's obvious loser)."""

from __future__ import annotations

from pathlib import Path

from label_runs import JAPAN

from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import ErrorEvent, MessageEvent
from vibesearch.store import Store
from vibesearch.tasks import load_tasks

AGENTS = (("voteagentk3", "votemodelk3"), ("voteagentm8", "votemodelm8"))
SECRETS = tuple(name for pair in AGENTS for name in pair)


def vote_runs(db: Path, per_config: int = 2, empty: bool = True) -> list[str]:
    """``per_config`` finished runs of JAPAN per configuration (each a question, an error quoting
    the agent's model, and an answer "Side text <k>-<i>: …" that names the run, not the agent),
    plus, with ``empty``, a run of the first configuration with no final answer."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == JAPAN)
    snap = task.model_dump(mode="json")
    store = Store(db)
    out = []
    for k, (agent, model) in enumerate(AGENTS):
        for i in range(per_config + (1 if empty and k == 0 else 0)):
            run = store.create_run(JAPAN, task_json=snap, agent=agent, agent_model=model, user="rules", status="finished")
            store.append(run.id, MessageEvent(role="user", content=task.persona.initial_query))
            # an error quoting the model, as a provider's does: the card must write the name out
            store.append(run.id, ErrorEvent(source="llm", message=f"{model} was rate limited; retried"))
            blank = i == per_config
            reply = "" if blank else f"Side text {k}-{i}: visit **Nikko** and Kyoto. <script>alert(1)</script> See https://example.org/{k}{i}"
            store.append(run.id, MessageEvent(role="assistant", content=reply, final=True))
            out.append(run.id)
    return out
