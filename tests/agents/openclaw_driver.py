"""One openclaw run, end to end, in a process of its own (the tests start it in a network
namespace that has only loopback, and may kill it mid-run).

    python openclaw_driver.py OUT_DIR [--silent | --shy] [--official HARNESS]

``--silent``: the model never answers (to kill the run mid-turn); ``--shy``: the opening is
answered with OpenClaw's "NO_REPLY", a nudge gets the answer (one user turn, idle wait 1 s);
``--official HARNESS``: under the official profile with that checkout.

Starts the scripted model (``openclaw_fake``) on 127.0.0.1, runs a two-turn persona run of a
tiny task (the second turn waits for a nudge; idle wait 1 s) with the openclaw agent and the rule-based user on a fresh SQLite store, scores it with
the offline judge, and writes ``result.json`` (the run's events and score, the model's requests)
into OUT_DIR. ``requests.jsonl`` there grows as the model is asked.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from agents_testkit import write_task  # noqa: E402
from openclaw_fake import FakeModel  # noqa: E402


def _two_stage_task(folder: Path) -> Path:
    """The tiny task with a second stage, disclosed once the agent has named Basel."""
    path = write_task(folder)
    task = json.loads(path.read_text(encoding="utf-8"))
    task["persona"]["stages"].append({
        "name": "Students", "trigger": {"kind": "mentions", "condition": "the agent names Euler's birthplace"},
        "cues": ["Basel"], "line": "Thanks. And who were Euler's own students?",
    })
    path.write_text(json.dumps(task, ensure_ascii=False), encoding="utf-8")
    return path


def _interfaces() -> list[str]:
    """The network interfaces this process can use (only "lo" in the tests' namespace)."""
    try:
        lines = Path("/proc/net/dev").read_text().splitlines()[2:]
    except OSError:
        return []
    return sorted(line.split(":", 1)[0].strip() for line in lines if ":" in line)


async def main(out: Path, silent: bool, shy: bool, harness: str | None) -> None:
    from vibesearch.agents import make_agent
    from vibesearch.config import Settings
    from vibesearch.protocol import build_config
    from vibesearch.scoring.scorer import score_run_async
    from vibesearch.session.loop import run_session
    from vibesearch.store import open_db
    from vibesearch.tasks import load_tasks
    from vibesearch.users import make_user

    model = FakeModel(out / "requests.jsonl", silent=silent, shy=shy)
    try:
        task = load_tasks([_two_stage_task(out / "tasks")])[0]
        settings = Settings(
            db=out / "runs.db", api_base=model.base_url, openclaw_memory_dir=out / "memory", llm_retries=0, official_harness=harness,
        )
        config = build_config(
            settings, task_id=task.id, agent="openclaw", agent_model="openai/fake-model", user="rules",
            max_user_turns=1 if shy else 3, protocol="official" if harness else None,
            openclaw={"idle_s": 1.0, "max_nudges": 2},
        )
        store = open_db(settings.db)
        agent = make_agent(config, task, settings)
        user = make_user(config, task, settings)
        (out / "started").write_text("1")
        result = await run_session(config, task, agent, user, store, settings)
        score = await score_run_async(store, result.run_id, settings=settings) if result.status == "finished" and not harness else None
        events = [e.data.model_dump() for e in store.events(result.run_id)]
        (out / "result.json").write_text(json.dumps({
            "status": result.status, "termination": result.termination, "events": events,
            "score": _plain(score), "requests": model.requests, "interfaces": _interfaces(),
        }, default=str), encoding="utf-8")
    finally:
        model.close()


def _plain(value: object) -> object:
    import dataclasses

    if value is None:
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    return dump() if dump else str(value)


if __name__ == "__main__":
    args = sys.argv[2:]
    official = args[args.index("--official") + 1] if "--official" in args else None
    asyncio.run(main(Path(sys.argv[1]), "--silent" in args, "--shy" in args, official))
