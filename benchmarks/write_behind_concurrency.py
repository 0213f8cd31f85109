"""Does the event writer thread (``Recorder.write_behind``) pay off when several runs share one
event loop?

A batch drives its ``--concurrency`` runs on one loop, and the app's runner loop drives every
live run of a server. With the events written on the run's thread, each commit holds up the loop
for every run on it (SQLite's busy waits, PostgreSQL's round trips and WAL flushes); with the
writer thread the loop only hands the groups over. This runs ``--runs`` runs of one bundled task
at once through ``runner.batch.run_batch`` (the batch runner's own path: its lease, each run's
lease, the semaphore), on the fake model of benchmarks/harness_overhead.py (``--latency``, default
1 s) with its offline tools and rule-based user, on SQLite and on PostgreSQL, with the writer
thread on and off, alternating, and prints the medians of the rounds.

    python benchmarks/write_behind_concurrency.py [--runs 8] [--turns 5] [--latency 1.0] [--rounds 3]
        [--engines sqlite,postgresql] [--pg-url URL] [--pg-no-fsync]

PostgreSQL: without ``--pg-url`` a throwaway cluster is started (``initdb`` into a temporary
folder, a free port, the socket in that folder; as the ``postgres`` user when run as root) with
``fsync`` on as a real server has it (``--pg-no-fsync``: off, as tests/pg_cluster.py runs it), and
every measurement gets a new database. With ``--pg-url`` every measurement writes its runs into
that database (brought to the newest schema first).

Per measurement, summed over the runs (each run's wall time from its start to its result):

* harness per model call: the runs' wall time minus the model's waits (as harness_overhead.py
  takes them: the sleeps as slept, so a late wake-up counts as the model's) minus the tools, per
  model call; "nominal" takes the nominal latency per call instead, so a wake-up the loop made
  late counts as the harness';
* share of wall: that harness time over the runs' wall time;
* the loop's stalls: a heartbeat task sleeps 10 ms over and over and records how late it woke:
  the worst, the worst once the runs' start-up is over (after 2 s, until the first run ends) and
  the 99th percentile;
* "store on loop": what the loop thread spent in ``append_many`` and waiting for the writer
  (``Recorder.drain``), per model call; "writer": the writer threads' appends, overlapped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import harness_overhead as ho  # this folder is on sys.path when the script is run

from vibesearch.config import BUNDLED_TASKS, Settings
from vibesearch.llm import fake
from vibesearch.protocol import build_config
from vibesearch.session._record import Recorder
from vibesearch.runner.batch import BatchSpec, Job, build_parts, run_batch
from vibesearch.store import Store, upgrade_database
from vibesearch.tasks import load_tasks

HEARTBEAT_S = 0.01
STEADY_AFTER_S = 2.0  # the runs' start-up (rows, leases, first connections) is over by then


@dataclass(frozen=True)
class Figures:
    """One measurement (seconds unless named otherwise)."""

    batch_wall: float  # the whole batch, first run started to last result
    run_wall: float  # summed over the runs
    calls: int
    per_call: float  # harness per model call (the model's waits as slept)
    per_call_nominal: float  # the same with nominal model waits
    share: float  # % of the runs' wall time
    worst_stall: float
    worst_steady: float  # the worst stall once every run is under way, until the first one ends
    p99_stall: float
    store_on_loop: float  # per model call
    writer: float  # per model call


class Heartbeat:
    """A task on the loop that sleeps ``HEARTBEAT_S`` again and again; ``late`` holds how much
    later than asked each sleep ended (the loop was busy with something else)."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self.at: list[float] = []  # when each sleep ended
        self._task: asyncio.Task[None] | None = None

    async def _beat(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(HEARTBEAT_S)
            woke = time.perf_counter()
            self.late.append(woke - asked - HEARTBEAT_S)
            self.at.append(woke)

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._beat())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def worst(self, start: float = float("-inf"), end: float = float("inf")) -> float:
        """The latest wake-up of the sleeps that ended between ``start`` and ``end``."""
        return max((late for late, at in zip(self.late, self.at) if start <= at <= end), default=0.0)

    def worst_at(self, since: float) -> float:
        """When the worst stall ended, seconds after ``since``."""
        return self.at[self.late.index(self.worst())] - since if self.late else 0.0

    def p99(self) -> float:
        if len(self.late) < 100:
            return self.worst()
        return statistics.quantiles(self.late, n=100)[98]


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary folder (removed by ``stop``)."""

    def __init__(self, fsync: bool):
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
        initdb = shutil.which("initdb") or (str(found[0]) if found else None)
        if initdb is None:
            sys.exit("PostgreSQL's initdb was not found (install postgresql, or pass --pg-url)")
        self.bin = Path(initdb).parent
        self.fsync = fsync
        self.home = Path(tempfile.mkdtemp(prefix="vibesearch-bench-pg-"))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            pg = pwd.getpwnam("postgres")
            os.chown(self.home, pg.pw_uid, pg.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.count = 0

    def _call(self, *argv: str) -> None:
        done = subprocess.run([*self.prefix, *argv], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{Path(argv[0]).name} failed: {(done.stderr or done.stdout).strip()}")

    def start(self) -> "Cluster":
        data = str(self.home / "data")
        self._call(str(self.bin / "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = (f"-p {self.port} -k {self.home} -c listen_addresses=127.0.0.1 -c max_connections=200 "
                   f"-c fsync={'on' if self.fsync else 'off'}")
        self._call(str(self.bin / "pg_ctl"), "-D", data, "-l", str(self.home / "log"), "-o", options, "-w", "start")
        return self

    def stop(self) -> None:
        try:
            self._call(str(self.bin / "pg_ctl"), "-D", str(self.home / "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def fresh_database(self) -> str:
        import psycopg

        self.count += 1
        name = f"bench{os.getpid()}_{self.count}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"


class Databases:
    """Where each measurement writes: a new SQLite file, a new PostgreSQL database (own cluster)
    or the ``--pg-url`` database."""

    def __init__(self, args: argparse.Namespace, tmp: Path):
        self.tmp = tmp
        self.pg_url: str | None = args.pg_url
        self.cluster: Cluster | None = None
        self.count = 0
        if "postgresql" in args.engines and self.pg_url is None:
            self.cluster = Cluster(fsync=not args.pg_no_fsync).start()
        elif self.pg_url is not None:
            upgrade_database(self.pg_url)

    def new(self, engine: str) -> str:
        self.count += 1
        if engine == "sqlite":
            return str(self.tmp / f"bench{self.count}.db")
        if self.cluster is None:
            assert self.pg_url is not None
            return self.pg_url
        url = self.cluster.fresh_database()
        upgrade_database(url)
        return url

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


def reset_counters() -> None:
    for key in ho.TIMES:
        ho.TIMES[key] = 0.0
    for key in ho.COUNTS:
        ho.COUNTS[key] = 0


async def measure(args: argparse.Namespace, url: str, *, turns: int, latency: float, quiet: bool = False) -> Figures:
    """``args.runs`` runs at once on this loop, into the database at ``url``."""
    task = next(t for t in load_tasks([BUNDLED_TASKS]) if t.id == args.task)
    fake.register("bench-agent", ho.agent_model(latency, args.tools_per_turn))
    fake.register("bench-sim", ho.simulator_model(latency))
    settings = Settings(db=url, max_user_turns=turns, max_steps_per_turn=args.tools_per_turn + 5, tasks="")
    store = Store(url)
    ho.instrument(store)
    config = build_config(settings, task_id=task.id, agent="react", agent_model="fake/bench-agent", user="rules",
                          simulator_model="fake/bench-sim")
    spec = BatchSpec(tasks=[task], config=config, runs=args.runs, concurrency=args.runs)
    starts: list[float] = []
    ends: list[float] = []

    def build(config, task, settings):  # called in each run's task just before its session starts
        starts.append(time.perf_counter())
        return build_parts(config, task, settings)

    def finished(job: Job, result) -> None:
        ends.append(time.perf_counter())
        if result.status == "failed":
            raise RuntimeError(f"a run failed: {result.error}")

    from vibesearch.llm import complete

    await complete([{"role": "user", "content": "hi"}], model="fake/bench-sim", purpose="other", settings=settings)
    reset_counters()
    beat = Heartbeat()
    beat.start()
    t0 = time.perf_counter()
    results = await run_batch(store, settings, spec, build=build, on_result=finished)
    batch_wall = time.perf_counter() - t0
    await beat.stop()
    # each run's wall time is from its start to its result: summed over the runs, the sum of the
    # ends minus the sum of the starts (whichever run each belongs to)
    run_wall = sum(ends) - sum(starts)
    tools = 0.0
    for _job, result in results:
        tools += sum(e.data.elapsed_s or 0 for e in store.events(result.run_id, kinds=["tool_result"]))
    store.engine.dispose()
    calls = max(1, ho.COUNTS["model_calls"])
    harness = run_wall - ho.TIMES["model_wait"] - tools
    nominal = run_wall - calls * latency - tools
    got = Figures(batch_wall=batch_wall, run_wall=run_wall, calls=calls, per_call=harness / calls, per_call_nominal=nominal / calls,
                  share=100 * harness / run_wall, worst_stall=beat.worst(),
                  worst_steady=beat.worst(t0 + STEADY_AFTER_S, min(ends)), p99_stall=beat.p99(),
                  store_on_loop=ho.TIMES["sqlite"] / calls, writer=ho.TIMES["sqlite_behind"] / calls)
    if not quiet:
        ms = 1000
        print(f"  {len(results)} runs, {calls} model calls, {ho.COUNTS['appends']} events in {ho.COUNTS.get('commits', 0)} commits; "
              f"batch {batch_wall:.1f} s, runs {run_wall:.1f} s in all, model {ho.TIMES['model_wait']:.1f} s, tools {tools:.2f} s")
        print(f"  harness/call {got.per_call * ms:.2f} ms (nominal waits {got.per_call_nominal * ms:.2f} ms), share {got.share:.3f} %, "
              f"loop stall worst {got.worst_stall * ms:.1f} ms (at {beat.worst_at(t0):.1f} s), "
              f"steady {got.worst_steady * ms:.1f} ms, p99 {got.p99_stall * ms:.2f} ms, "
              f"store on loop {got.store_on_loop * ms:.3f} ms/call, writer {got.writer * ms:.3f} ms/call")
    return got


SETUPS = {True: "write-behind on", False: "write-behind off"}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=8, help="runs at once on the one loop")
    ap.add_argument("--turns", type=int, default=5, help="user turns per run")
    ap.add_argument("--tools-per-turn", type=int, default=5)
    ap.add_argument("--latency", type=float, default=1.0, help="fake model latency per call, seconds")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; each measures every engine with the writer thread on and off")
    ap.add_argument("--engines", default="sqlite,postgresql", type=lambda s: [e.strip() for e in s.split(",") if e.strip()])
    ap.add_argument("--pg-url", help="a PostgreSQL database to write to (default: a throwaway cluster)")
    ap.add_argument("--pg-no-fsync", action="store_true", help="the throwaway cluster runs with fsync off (as the tests' does)")
    ap.add_argument("--task", default="pro-en-analysis-history")
    args = ap.parse_args()
    unknown = set(args.engines) - {"sqlite", "postgresql"}
    if unknown:
        ap.error(f"unknown engine(s): {', '.join(sorted(unknown))}")
    ho.time_the_model()
    ho.time_the_waits_for_the_writer()

    with tempfile.TemporaryDirectory() as tmp:
        dbs = Databases(args, Path(tmp))
        try:
            for engine in args.engines:  # warm-up (imports, first connections), not counted
                Recorder.write_behind = True
                await measure(args, dbs.new(engine), turns=1, latency=0.01, quiet=True)
            got: dict[tuple[str, bool], list[Figures]] = {(e, b): [] for e in args.engines for b in SETUPS}
            for round_no in range(1, args.rounds + 1):
                order = (True, False) if round_no % 2 else (False, True)  # ABBA: drift hits both alike
                for engine in args.engines:
                    for behind in order:
                        Recorder.write_behind = behind
                        print(f"\n=== round {round_no}/{args.rounds}: {engine}, {SETUPS[behind]} ===", flush=True)
                        got[(engine, behind)].append(await measure(args, dbs.new(engine), turns=args.turns, latency=args.latency))
            Recorder.write_behind = True
        finally:
            dbs.close()
    report(args, got)


def report(args: argparse.Namespace, got: dict[tuple[str, bool], list[Figures]]) -> None:
    def med(runs: list[Figures], name: str) -> float:
        return statistics.median(getattr(m, name) for m in runs)

    pg = "" if "postgresql" not in args.engines else (
        ", PostgreSQL " + ("at --pg-url" if args.pg_url else f"own cluster, fsync {'off' if args.pg_no_fsync else 'on'}"))
    print(f"\nmedians of {args.rounds} rounds: {args.runs} runs at once on one loop, {args.turns} turns each, "
          f"{args.latency * 1000:.0f} ms model latency{pg}")
    columns = (("batch wall", "batch_wall", 1, "s"), ("runs' wall", "run_wall", 1, "s"), ("harness/call", "per_call", 1000, "ms"),
               ("(nominal)", "per_call_nominal", 1000, "ms"), ("share", "share", 1, "%"), ("worst stall", "worst_stall", 1000, "ms"),
               ("(steady)", "worst_steady", 1000, "ms"), ("p99 stall", "p99_stall", 1000, "ms"),
               ("store on loop", "store_on_loop", 1000, "ms"), ("writer", "writer", 1000, "ms"))
    print(f"  {'engine, set-up':<29}" + "".join(f" {title:>13}" for title, *_ in columns))
    for (engine, behind), runs in got.items():
        cells = "".join(f" {med(runs, name) * scale:>{13 - len(unit) - 1}.{3 if unit == '%' else 2}f} {unit}"
                        for _title, name, scale, unit in columns)
        print(f"  {engine + ', ' + SETUPS[behind]:<29}{cells}")
    print("  each round (harness/call ms; worst stall ms; steady ms):")
    for (engine, behind), runs in got.items():
        print(f"    {engine + ', ' + SETUPS[behind]:<29} " + " ".join(f"{m.per_call * 1000:.2f}" for m in runs) + "; "
              + " ".join(f"{m.worst_stall * 1000:.0f}" for m in runs) + "; " + " ".join(f"{m.worst_steady * 1000:.0f}" for m in runs))
    print("  (harness/call: the runs' wall time minus the model's waits as slept minus the tools, per model call; nominal:\n"
          "   with nominal model waits, the loop's late wake-ups counted as harness; share: harness over the runs' wall time;\n"
          "   stalls: how late a 10 ms sleep on the loop woke, steady: after the first 2 s until the first run ended; store on\n"
          "   loop: appends and waits for the writer on the loop's thread, per call; writer: the writer threads' appends)")
    def ratio(engine: str, name: str) -> float:
        return med(got[(engine, False)], name) / max(1e-9, med(got[(engine, True)], name))

    for engine in args.engines:
        print(f"{engine}: write-behind off / on: harness per call {ratio(engine, 'per_call'):.2f}×, worst loop stall {ratio(engine, 'worst_stall'):.2f}× "
              f"(steady {ratio(engine, 'worst_steady'):.2f}×, p99 {ratio(engine, 'p99_stall'):.2f}×)")


if __name__ == "__main__":
    asyncio.run(main())
