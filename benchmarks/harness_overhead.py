"""How much of a run's wall time is the harness itself?

One run of a bundled task: 30 user turns and 150 tool calls (five search/visit steps per turn),
the ReAct agent on a fake model that answers after a fixed latency (default 50 ms), the rule-based
simulator (``--simulator fake`` uses an LLM simulator on the same fake model), the offline tools
and a real SQLite file. The fake models are served the way ``complete()`` serves an
OpenAI-compatible endpoint (its direct HTTP path, see vibesearch/llm/_direct.py); ``--litellm``
sends every call through litellm instead, as before that path existed.

    python benchmarks/harness_overhead.py [--latency 0.05] [--turns 30] [--tools-per-turn 5] [--litellm] [--compare]
        [--no-write-behind] [--unsettled] [--variants --rounds 3] [--endpoint] [--profile]

``--profile`` profiles the run alone (not the imports) with cProfile and reports the session's and the
users' own time; with ``HARNESS_PROFILE_OUT=FILE`` set the whole profile is written there for pstats.

``--endpoint`` measures the path users take: the agent is ``openai/bench`` pointed (as
``VIBESEARCH_API_BASE`` would) at an OpenAI-compatible server in a process of its own
(``benchmarks/_fake_openai_server.py`` on 127.0.0.1, answering each call ``--latency`` after it
arrived, ``--tools-per-turn`` ``search`` calls a turn), reached over HTTP by the direct path's
aiohttp client. The model's time is then what the server says it held the calls (its timers run a
few ms late in this VM: 54 ms for 50); everything else, the loopback HTTP included, is the harness. Without it the fake provider answers in process (``fake/``, through
an httpx transport, its own work counted as the model's).

The session writes its events from a writer thread while the run goes on (``session._record``);
"SQLite" is what the run waits for, the writer's own time is printed beside it.
``--no-write-behind`` writes every event group on the run's thread (``Recorder.write_behind``).
Before the run the process is settled as ``vibesearch run`` and a worker settle theirs before they
drive runs (``vibesearch._gc.settle``: what start-up made is taken out of the cycle collector's
sight); ``--unsettled`` leaves that out.

``--compare`` runs two rounds of the set-ups in ``SETUPS``, alternating, and prints each run: (a)
as users run it, (b) events written on the run's thread, (c) not settled, so each change is
compared with itself undone in one invocation (single runs on a loaded machine vary by a
millisecond or more). ``--variants`` runs ``--rounds`` rounds of the same and prints their
medians. (Several runs on one event loop, on SQLite and PostgreSQL:
benchmarks/write_behind_concurrency.py.)

"Waiting for the model" is the time the fake model really took: its sleep as slept (the event
loop wakes up a little late), its handler, and on the direct path the fake endpoint reading the
request and writing the answer (what a real server does). Everything else is the harness, broken down per model call
(the LLM client: request building and encoding, answer parsing, usage and cost), per tool call, per stored event (SQLite) and the rest (session, agent and user
logic). The share at 1 s model latency is computed from the per-call costs measured in the
same run (the harness does the same work whatever the model's latency).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vibesearch._gc import settle  # noqa: E402
from vibesearch.agents import make_agent  # noqa: E402
from vibesearch.config import BUNDLED_TASKS, Settings  # noqa: E402
from vibesearch.llm import fake  # noqa: E402
from vibesearch.session import run_session  # noqa: E402
from vibesearch.store import Store  # noqa: E402
from vibesearch.tasks import load_tasks  # noqa: E402
from vibesearch.users import make_user  # noqa: E402
from vibesearch.protocol import build_config

TIMES: dict[str, float] = {"model_wait": 0.0, "sqlite": 0.0, "sqlite_behind": 0.0, "tokens": 0.0}


class _TimedSleep:
    """Stands in for the ``asyncio`` module inside vibesearch.llm.fake: its sleeps are the model."""

    def __getattr__(self, name: str):
        return getattr(asyncio, name)

    async def sleep(self, delay: float) -> None:
        t0 = time.perf_counter()
        try:
            await asyncio.sleep(delay)
        finally:
            if not SERVING:
                TIMES["model_wait"] += time.perf_counter() - t0


SERVING: list[bool] = []  # set while the fake endpoint (direct path) answers: all of it is the model's


def time_the_model() -> None:
    """The model's time: on the direct path everything the fake endpoint does (read the request,
    run the handler, sleep, write the answer — a real server's work); through litellm the sleep
    and the handler (litellm's own work around them is client work)."""
    fake.asyncio = _TimedSleep()  # type: ignore[attr-defined]
    make_transport = fake.transport

    def timed_transport():
        inner = make_transport()

        class Timed(type(inner)):  # type: ignore[misc]
            async def handle_async_request(self, request):
                t0 = time.perf_counter()
                SERVING.append(True)
                try:
                    return await inner.handle_async_request(request)
                finally:
                    SERVING.pop()
                    TIMES["model_wait"] += time.perf_counter() - t0

        return Timed()

    fake.transport = timed_transport
    for name in ("_handle", "_answer"):
        original = getattr(fake, name)

        def timed(*args, _original=original, **kwargs):
            t0 = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                if not SERVING:
                    TIMES["model_wait"] += time.perf_counter() - t0

        setattr(fake, name, timed)


COUNTS: dict[str, int] = {"model_calls": 0, "appends": 0}


def agent_model(latency: float, tools_per_turn: int):
    """Per user turn: ``tools_per_turn`` steps with one tool call each, then a neutral reply."""

    def handler(req: fake.Request) -> fake.Reply:
        COUNTS["model_calls"] += 1
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
        out = {"trigger_met": False, "reply_kind": "push", "reply": "Please keep digging.", "rationale": "not yet"}
        return fake.Reply(content=json.dumps(out), delay_s=latency)

    return handler


def instrument(store: Store) -> None:
    """Time SQLite writes and the agent's token counting.

    The session writes its events from a writer thread while the run goes on (``session._record``):
    ``sqlite`` is the time the run itself spends on them (writes on its own thread and waits for
    the writer), ``sqlite_behind`` the writer thread's time, overlapped with the model's."""
    append_many, append_groups = store.append_many, store.append_groups
    main = threading.get_ident()

    def timed_append_many(run_id, items, **kwargs):  # on the run's thread (write-behind off)
        if threading.get_ident() != main:
            return append_many(run_id, items, **kwargs)  # the writer's: timed by append_groups
        t0 = time.perf_counter()
        try:
            return append_many(run_id, items, **kwargs)
        finally:
            TIMES["sqlite"] += time.perf_counter() - t0
            COUNTS["appends"] += len(items)
            COUNTS["commits"] = COUNTS.get("commits", 0) + 1

    def timed_append_groups(groups):  # the writer threads' jobs: one transaction each
        t0 = time.perf_counter()
        try:
            return append_groups(groups)
        finally:
            TIMES["sqlite_behind"] += time.perf_counter() - t0
            COUNTS["appends"] += sum(len(items) for _run, items, _lease in groups)
            COUNTS["commits"] = COUNTS.get("commits", 0) + 1

    store.append_many = timed_append_many  # type: ignore[method-assign]
    store.append_groups = timed_append_groups  # type: ignore[method-assign]


def time_the_waits_for_the_writer() -> None:
    """What the run waits for the writer thread (``Recorder.drain``) counts as SQLite time."""
    from vibesearch.session import _record

    drain = _record.Recorder.drain

    def timed_drain(self, **kwargs):
        t0 = time.perf_counter()
        try:
            return drain(self, **kwargs)
        finally:
            TIMES["sqlite"] += time.perf_counter() - t0

    _record.Recorder.drain = timed_drain  # type: ignore[method-assign]

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
    ap.add_argument("--litellm", action="store_true", help="send every model call through litellm (no direct path)")
    ap.add_argument("--compare", action="store_true",
                    help="run two rounds of the set-ups of SETUPS (as users run it, and each change it is compared "
                         "with undone), alternating, and print each run (a loaded machine makes single runs noisy)")
    ap.add_argument("--no-write-behind", action="store_true", help="write every event group on the run's thread (no writer thread)")
    ap.add_argument("--unsettled", action="store_true",
                    help="do not settle the process before the run (no gc.freeze, as before vibesearch._gc.settle)")
    ap.add_argument("--variants", action="store_true",
                    help="run --rounds rounds of the set-ups of SETUPS, alternating; print the medians")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --variants")
    ap.add_argument("--endpoint", action="store_true",
                    help="the user's path: openai/bench at a local OpenAI-compatible server in its own process, over HTTP")
    args = ap.parse_args()
    args.base = start_endpoint(args) if args.endpoint else None
    if args.litellm:
        os.environ["VIBESEARCH_LLM_DIRECT"] = "0"
    time_the_model()
    time_the_waits_for_the_writer()

    fake.register("bench-agent", agent_model(args.latency, args.tools_per_turn))
    fake.register("bench-sim", simulator_model(args.latency))
    from vibesearch.session._record import Recorder

    if args.variants or args.compare:
        await variants(args, rounds=args.rounds if args.variants else 2, medians=bool(args.variants))
        return
    Recorder.write_behind = not args.no_write_behind
    await measure(args)


# the set-ups compared: (events written behind by the writer thread, the process settled first)
SETUPS = {
    "a) as users run it": (True, True),
    "b) events on the run thread": (False, True),
    "c) not settled (no gc.freeze)": (True, False),
}


async def variants(args: argparse.Namespace, *, rounds: int, medians: bool) -> None:
    """``rounds`` rounds of the set-ups of ``SETUPS``, one run of each per round in turn (the
    machine's load changes over time), then each run's figure and (``medians``) their medians."""
    from vibesearch.session._record import Recorder

    got: dict[str, list[Measured]] = {name: [] for name in SETUPS}
    for round_no in range(1, rounds + 1):
        for name, (behind, settled) in SETUPS.items():
            Recorder.write_behind, args.unsettled = behind, not settled
            print(f"\n=== round {round_no}/{rounds}: {name} ===")
            got[name].append(await measure(args))
    Recorder.write_behind, args.unsettled = True, False
    path = "openai/bench at a local endpoint over HTTP" if args.base else "fake/ in process"
    if not medians:
        print(f"\nharness per model call, tools excluded ({path}; each run), and share at {args.latency * 1000:.0f} ms / 1 s:")
        for name, runs in got.items():
            print(f"  {name:<32} " + "  ".join(f"{m.per_call * 1000:5.2f} ms ({share(m.per_call, args.latency):4.2f}% / "
                                               f"{share(m.per_call, 1.0):4.2f}%)" for m in runs))
        return
    print(f"\nmedians of {rounds} runs each at {args.latency * 1000:.0f} ms model latency ({args.turns} turns; {path}):")
    print(f"  {'set-up':<32} {'harness/call':>12} {'share of wall':>13} {'SQLite waited/call':>18} {'writer/call':>11} {'CPU/call':>9}"
          f"   each run's harness/call (ms)")
    for name, runs in got.items():
        per = statistics.median(m.per_call for m in runs) * 1000
        wall_share = statistics.median(m.share for m in runs)
        waited = statistics.median(m.sqlite_waited for m in runs) * 1000
        behind = statistics.median(m.sqlite_behind for m in runs) * 1000
        cpu = statistics.median(m.cpu_per_call for m in runs) * 1000
        each = " ".join(f"{m.per_call * 1000:.2f}" for m in runs)
        print(f"  {name:<32} {per:9.2f} ms {wall_share:11.3f} % {waited:15.3f} ms {behind:8.3f} ms {cpu:6.2f} ms   {each}")
    print("  (harness/call: wall minus the model's wait minus the tools, per model call; share of wall: the same over the\n"
          "   wall time; SQLite waited: what the run waited for appends; writer: the writer thread's appends, overlapped)")


@dataclass(frozen=True)
class Measured:
    """One run's figures (seconds; per model call where named so)."""

    per_call: float  # harness per model call, tools excluded
    wall: float
    share: float  # harness without the tools, % of the wall time
    sqlite_waited: float  # per model call: appends on the run's thread and waits for the writer
    sqlite_behind: float  # per model call: the writer thread's appends
    cpu_per_call: float  # process CPU time per model call, the tools' wall time taken off


def _server(base: str, path: str, method: str = "GET") -> dict:
    """The fake endpoint's own account (``/stats``: requests, ``busy_call_s`` = the seconds it held them)."""
    import urllib.request

    req = urllib.request.Request(base.removesuffix("/v1") + path, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read())


def start_endpoint(args: argparse.Namespace) -> str:
    """Start ``_fake_openai_server.py`` on 127.0.0.1 (ended with this process); its base URL."""
    import atexit
    import subprocess

    server = Path(__file__).resolve().parent / "_fake_openai_server.py"
    proc = subprocess.Popen([sys.executable, str(server), "--port", "0", "--latency", str(args.latency), "--tool-steps",
                             str(args.tools_per_turn)], stdout=subprocess.PIPE, text=True)
    atexit.register(proc.terminate)
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("PORT "):
        raise SystemExit(f"error: the fake endpoint did not start: {line!r}")
    return f"http://127.0.0.1:{int(line.split()[1])}/v1"


def share(per_call: float, latency: float) -> float:
    """The harness' share of wall time (tools excluded) when each model call takes ``latency``."""
    return 100 * per_call / (per_call + latency)


async def measure(args: argparse.Namespace) -> Measured:
    """One run; prints its breakdown and returns its figures."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == args.task)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        settings = Settings(db=db, max_user_turns=args.turns, max_steps_per_turn=args.tools_per_turn + 5, tasks="")
        store = Store(db)
        instrument(store)
        user_kind = "simulator" if args.simulator == "fake" else "rules"
        if args.base:
            settings = Settings(db=db, max_user_turns=args.turns, max_steps_per_turn=args.tools_per_turn + 5, tasks="", api_base=args.base)
        agent_model_name = "openai/bench" if args.base else "fake/bench-agent"
        config = build_config(
            settings, task_id=task.id, agent="react", agent_model=agent_model_name, user=user_kind, simulator_model="fake/bench-sim"
        )
        agent = make_agent(config, task, settings)
        user = make_user(config, task, settings)
        # warm-up: imports and litellm's first-call setup are not the harness' steady state
        from vibesearch.llm import complete

        await complete([{"role": "user", "content": "hi"}], model=agent_model_name, purpose="other", settings=settings)
        for key in TIMES:
            TIMES[key] = 0.0
        for key in COUNTS:
            COUNTS[key] = 0
        if args.base:
            _server(args.base, "/reset", "POST")
        if args.unsettled:
            gc.unfreeze()  # what an earlier run of this process settled is in the collector's sight again
        else:
            settle()  # as `vibesearch run` and a worker do before they drive runs (vibesearch/_gc.py)

        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        t0, cpu0 = time.perf_counter(), time.process_time()
        result = await run_session(config, task, agent, user, store, settings)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        if profiler is not None:
            profiler.disable()

        events = store.events(result.run_id)
        inside_complete = sum(e.data.latency_s or 0 for e in events if e.kind == "usage")
        tool_time = sum(e.data.elapsed_s or 0 for e in events if e.kind == "tool_result")

    if args.base:  # what the server held the calls (its timer, in a VM often a few ms late): that is the model
        served = _server(args.base, "/stats")
        COUNTS["model_calls"] = int(served["requests"])
        TIMES["model_wait"] = float(served["busy_call_s"])
    model = TIMES["model_wait"]
    calls = max(1, COUNTS["model_calls"])
    tools = max(1, result.tool_calls)
    harness = wall - model
    client = max(0.0, inside_complete - model)
    rest = harness - TIMES["sqlite"] - TIMES["tokens"] - tool_time - client
    per_call = (harness - tool_time) / calls  # the goal: everything but the model and the tools
    ms = 1000.0
    path = "litellm" if args.litellm else "direct HTTP (OpenAI-compatible) path"
    if args.base:
        path = f"the direct path's aiohttp client to {args.base} (a server in its own process)"
    print(f"run: {result.termination}, {result.user_turns} user turns, {result.tool_calls} tool calls, "
          f"{COUNTS['model_calls']} model calls, {len(events)} events; model calls through {path}")
    print(f"wall time                      {wall:8.2f} s")
    print(f"waiting for the model          {model:8.2f} s  ({COUNTS['model_calls']} calls x {args.latency * ms:.0f} ms nominal; as taken)")
    print(f"harness (wall - model)         {harness:8.2f} s  = {100 * harness / wall:5.1f}% of wall time")
    print("  of which:                                 total     per unit")
    print(f"    LLM client (per model call)    {client:8.3f} s  {client / calls * ms:7.2f} ms  (inside complete() beyond the model's wait)")
    print(f"    tool execution (per tool call) {tool_time:8.3f} s  {tool_time / tools * ms:7.2f} ms")
    print(f"    SQLite (per stored event)      {TIMES['sqlite']:8.3f} s  {TIMES['sqlite'] / max(1, COUNTS['appends']) * ms:7.2f} ms  "
          f"({COUNTS['appends']} events in {COUNTS.get('commits', 0)} commits; what the run waited for)")
    print(f"      written behind (not waited)  {TIMES['sqlite_behind']:8.3f} s  {TIMES['sqlite_behind'] / max(1, COUNTS['appends']) * ms:7.2f} ms  "
          "(the writer thread, while the run goes on)")
    print(f"    agent token counting           {TIMES['tokens']:8.3f} s  {TIMES['tokens'] / calls * ms:7.2f} ms per model call")
    print(f"    session, agent, user logic     {rest:8.3f} s  {rest / calls * ms:7.2f} ms per model call")
    print(f"harness per model call, tools excluded: {per_call * ms:.2f} ms (goal <= 2 ms)")
    # CPU time does not grow when other processes share the cores (wall time does); it includes
    # the fake endpoint's own work and the tools' threads
    print(f"CPU time of the whole process: {cpu:.2f} s = {cpu / calls * ms:.2f} ms per model call, "
          f"{(cpu - tool_time) / calls * ms:.2f} ms without the tools' wall time")
    for latency in (args.latency, 1.0):
        # the same harness work around a model of another latency (measured costs, nominal waits)
        share = harness / (harness + calls * latency)
        share_no_tools = (harness - tool_time) / (harness + calls * latency)
        print(f"share of wall time at {latency * ms:5.0f} ms model latency: harness {100 * share:5.2f}%, "
              f"without the tools {100 * share_no_tools:5.2f}%  (computed from the per-call costs)")
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
        if os.environ.get("HARNESS_PROFILE_OUT"):  # the whole profile of the run, for pstats or snakeviz
            profiler.dump_stats(os.environ["HARNESS_PROFILE_OUT"])
    return Measured(per_call=per_call, wall=wall, share=100 * (harness - tool_time) / wall, sqlite_waited=TIMES["sqlite"] / calls,
                    sqlite_behind=TIMES["sqlite_behind"] / calls, cpu_per_call=(cpu - tool_time) / calls)


if __name__ == "__main__":
    asyncio.run(main())
