"""How much of a run's wall time is the harness itself?

One run of a bundled task: 30 user turns and 150 tool calls (five search/visit steps per turn),
the ReAct agent on a fake model that answers after a fixed latency (default 50 ms) through
litellm's custom-provider hook, the rule-based simulator (``--simulator fake`` uses an LLM
simulator on the same fake model), the offline tools and a real SQLite file.

    python benchmarks/harness_overhead.py [--latency 0.05] [--turns 30] [--tools-per-turn 5]

It prints the wall time, the time spent waiting for the model (the fake's latency, i.e. what a
provider would cost), and the rest — the harness — as a share of the wall time, broken down into
SQLite writes, the agent's token counting, tool execution, litellm's client overhead and the
remainder (session, agent and user logic). The target is a harness share under 2%.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vibesearch.agents import make_agent  # noqa: E402
from vibesearch.config import BUNDLED_TASKS, Settings  # noqa: E402
from vibesearch.llm import fake  # noqa: E402
from vibesearch.run import RunConfig  # noqa: E402
from vibesearch.session import run_session  # noqa: E402
from vibesearch.store import Store  # noqa: E402
from vibesearch.tasks import load_tasks  # noqa: E402
from vibesearch.users import make_user  # noqa: E402

TIMES: dict[str, float] = {"model_wait": 0.0, "sqlite": 0.0, "tokens": 0.0}
COUNTS: dict[str, int] = {"model_calls": 0, "appends": 0}


def agent_model(latency: float, tools_per_turn: int):
    """Per user turn: ``tools_per_turn`` steps with one tool call each, then a neutral reply."""

    def handler(req: fake.Request) -> fake.Reply:
        COUNTS["model_calls"] += 1
        TIMES["model_wait"] += latency
        if not req.tools:
            return fake.Reply(content='[{"head": "a", "relation": "b", "tail": "c"}]', delay_s=latency)
        done = len(req.tool_results())
        if done < tools_per_turn:
            if done % 2 == 0:
                return fake.Reply(tool_calls=[("search", {"query": req.last_user[:80] or "history"})], delay_s=latency)
            return fake.Reply(tool_calls=[("visit", {"url": ["https://example.org/nowhere"], "goal": "facts"})], delay_s=latency)
        return fake.Reply(content="Here is a summary of what the pages say, nothing more.", delay_s=latency)

    return handler


def simulator_model(latency: float):
    def handler(req: fake.Request) -> fake.Reply:
        COUNTS["model_calls"] += 1
        TIMES["model_wait"] += latency
        out = {"trigger_met": False, "reply_kind": "push", "reply": "Please keep digging.", "rationale": "not yet"}
        return fake.Reply(content=json.dumps(out), delay_s=latency)

    return handler


def instrument(store: Store) -> None:
    """Time SQLite writes and the agent's token counting."""
    append = store.append

    def timed_append(run_id, data):
        t0 = time.perf_counter()
        try:
            return append(run_id, data)
        finally:
            TIMES["sqlite"] += time.perf_counter() - t0
            COUNTS["appends"] += 1

    store.append = timed_append  # type: ignore[method-assign]

    from vibesearch.agents import compaction

    count = compaction.count_tokens

    def timed_count(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return count(*args, **kwargs)
        finally:
            TIMES["tokens"] += time.perf_counter() - t0

    compaction.count_tokens = timed_count


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=0.05, help="fake model latency per call, seconds")
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--tools-per-turn", type=int, default=5)
    ap.add_argument("--simulator", choices=["rules", "fake"], default="rules")
    ap.add_argument("--task", default="pro-en-analysis-history")
    ap.add_argument("--profile", action="store_true", help="also report the CPU time of the session and user code alone (cProfile)")
    args = ap.parse_args()

    fake.register("bench-agent", agent_model(args.latency, args.tools_per_turn))
    fake.register("bench-sim", simulator_model(args.latency))
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == args.task)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        settings = Settings(db=db, max_user_turns=args.turns, max_steps_per_turn=args.tools_per_turn + 5, tasks="")
        store = Store(db)
        instrument(store)
        user_kind = "simulator" if args.simulator == "fake" else "rules"
        config = RunConfig.from_settings(
            settings, task_id=task.id, agent="react", agent_model="fake/bench-agent", user=user_kind, simulator_model="fake/bench-sim"
        )
        agent = make_agent(config, task, settings)
        user = make_user(config, task, settings)
        # warm-up: imports and litellm's first-call setup are not the harness' steady state
        from vibesearch.llm import complete

        await complete([{"role": "user", "content": "hi"}], model="fake/bench-sim", purpose="other", settings=settings)
        for key in TIMES:
            TIMES[key] = 0.0
        for key in COUNTS:
            COUNTS[key] = 0

        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        t0 = time.perf_counter()
        result = await run_session(config, task, agent, user, store, settings)
        wall = time.perf_counter() - t0
        if profiler is not None:
            profiler.disable()

        events = store.events(result.run_id)
        inside_complete = sum(e.data.latency_s or 0 for e in events if e.kind == "usage")
        tool_time = sum(e.data.elapsed_s or 0 for e in events if e.kind == "tool_result")

    model = TIMES["model_wait"]
    harness = wall - model
    litellm_overhead = max(0.0, inside_complete - model)
    rest = harness - TIMES["sqlite"] - TIMES["tokens"] - tool_time - litellm_overhead
    print(f"run: {result.termination}, {result.user_turns} user turns, {result.tool_calls} tool calls, "
          f"{COUNTS['model_calls']} model calls, {len(events)} events")
    print(f"wall time                      {wall:8.2f} s")
    print(f"waiting for the model          {model:8.2f} s  ({COUNTS['model_calls']} calls x {args.latency * 1000:.0f} ms)")
    print(f"harness (wall - model)         {harness:8.2f} s  = {100 * harness / wall:5.1f}% of wall time (target < 2%)")
    print("  of which:")
    print(f"    SQLite writes              {TIMES['sqlite']:8.2f} s  ({COUNTS['appends']} events, {1000 * TIMES['sqlite'] / max(1, COUNTS['appends']):.2f} ms each)")
    print(f"    agent token counting       {TIMES['tokens']:8.2f} s  (litellm.token_counter before every step)")
    print(f"    tool execution             {tool_time:8.2f} s")
    print(f"    litellm client overhead    {litellm_overhead:8.2f} s  (time inside complete() beyond the latency)")
    print(f"    session, agent, user logic {rest:8.2f} s  = {100 * rest / wall:5.1f}% of wall time")
    if profiler is not None:
        import pstats

        own = {"session": 0.0, "users": 0.0}
        for (file, _line, _name), stat in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
            for part in own:
                if f"vibesearch{os.sep}{part}{os.sep}" in file:
                    own[part] += stat[2]  # time in the function itself, callees excluded
        print("  own code (cProfile, callees excluded; the profiler slows everything down):")
        for part, secs in own.items():
            print(f"    vibesearch/{part + '/':<19}{secs:8.3f} s")


if __name__ == "__main__":
    asyncio.run(main())
