"""Throughput of queued batches (``vibesearch run --queue`` + ``vibesearch worker``) against the
one-process batch runner (``vibesearch run --concurrency S``), on PostgreSQL, with a model whose
latency is all there is.

In one invocation this script

1. makes a throwaway PostgreSQL cluster (``initdb`` into a temporary folder; as root it runs as
   the ``postgres`` user) and starts the fake OpenAI-compatible server
   (``benchmarks/_fake_openai_server.py``, a separate aiohttp process on 127.0.0.1) that answers
   every chat-completions call exactly ``--latency`` seconds after it arrived. Its answers make
   each run cost ``--tool-steps + 2`` calls: ``--tool-steps`` ``search`` tool calls, the final
   reply, and the graph extraction (one user turn: ``--max-user-turns 1``);
2. measures the per-run overhead: a batch of 2 runs, one at a time, in the one-process runner;
   the second run (a warm process) from its row's creation to its ``end`` event, less
   ``calls × latency``. The latency-bound ideal is then
   ``slots × 3600 / (calls × latency + that overhead)`` runs per hour;
3. runs ``--runs`` runs (default 2 × slots) of the ReAct agent (``--agent react --model
   openai/bench``, pointed at the fake server by ``VIBESEARCH_API_BASE``) with the offline rules
   user on one bundled task, in each configuration, each on a fresh database of the cluster
   (``vibesearch db upgrade`` first):

   * ``1 process``: ``vibesearch run --json --concurrency S`` (the baseline);
   * ``1 process, table (piped)`` / ``(terminal)``: the same as users run it, without ``--json``,
     its progress display written to a file / to a pseudo-terminal (``--configs table,tty``); the
     report says the CPU per run of each as a ratio to ``--json``;
   * ``1×S``, ``2×S/2``, ``4×S/4``: ``vibesearch run --queue`` with 1, 2 or 4
     ``vibesearch worker --slots`` processes (started and registered before the batch is queued:
     workers are long-lived).

   Every process that drives runs (the one-process runner, the workers) is started with the
   model's context-window lookup made (``--cold`` turns this off; it used to load litellm, ~5 s of
   CPU; the direct path's models are now looked up in litellm's packaged map without it);
4. prints one row per configuration: the wall time from the launch of the command (``run`` or
   ``run --queue``) to the last run's ``end`` event, runs/hour, the ideal and the share of it,
   the peak and mean number of calls in flight at the fake server (mean = call-seconds / wall),
   the ratio to the baseline, the claim overhead and CPU use. The **claim overhead** of a run is
   the time from the moment its job could have been taken (it was queued and a worker slot was
   free: procrastinate's ``deferred`` event, or the ``succeeded`` event of the job whose slot it
   took; per worker, from ``procrastinate_jobs.worker_id``) to the arrival of its first model
   call at the fake server (matched to the run by a nonce the server puts in its tool-call ids,
   which the run stores in its ``tool_call`` events). For the one-process runner the same is
   computed for the runs that took a freed slot (a run's slot opens with the ``end`` event of the
   one before it).

Command line::

    python benchmarks/queue_throughput.py [--slots 200] [--runs 400] [--latency 1.0] [--tool-steps 4]
        [--configs base,table,tty,1,2,4] [--task daily-en-japan-heritage-trip] [--cold] [--json FILE] [--baseline DIR]

``--baseline DIR`` runs every configuration a second time on another checkout's code, right after
this checkout's (rows marked "(baseline)"), so a change is measured against what came before it in
one invocation, on the same machine load. Its "vs 1 process" column still divides by this
checkout's one-process row.

A quick check: ``--slots 20 --runs 40 --latency 0.5``. The machine's own load counts: the table
shows the CPU each process used (% of one core over the wall time) and how busy the whole machine
was. Every process this script starts (PostgreSQL, the fake server, the workers) is ended on exit,
Ctrl-C included, and the cluster's folder removed.
"""

from __future__ import annotations

import argparse
import atexit
import heapq
import itertools
import json
import os
import pty
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vibesearch.runner.queued import lane_slots

ROOT = Path(__file__).resolve().parent.parent
SERVER = Path(__file__).resolve().parent / "_fake_openai_server.py"
MODEL = "openai/bench"
CLK = os.sysconf("SC_CLK_TCK")
_NONCE = re.compile(r"bq-([0-9a-f]+)-\d+")

# a vibesearch CLI process with the model's context window looked up first
_WARM = (
    "import sys\n"
    "from vibesearch.llm import context_window\n"
    "context_window(sys.argv[1], 1)\n"
    "sys.argv = ['vibesearch', *sys.argv[2:]]\n"
    "from vibesearch.cli.main import main\n"
    "sys.exit(main())\n"
)


# the one-process configurations: ``--configs`` name → (display) and the row's name
ONE_PROCESS = {"json": "1 process", "table": "1 process, table (piped)", "tty": "1 process, table (terminal)"}
ONE_PROCESS_CONFIGS = {"base": "json", "table": "table", "tty": "tty"}


def _drain(fd: int) -> None:
    """Read a pseudo-terminal's output until its last writer is gone (what a terminal shows)."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- processes



def _signal(proc: subprocess.Popen, sig: int) -> None:
    """Send ``sig`` to the process group ``proc`` leads (it may be gone already)."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def _reap(proc: subprocess.Popen, grace: float) -> None:
    """Wait ``grace`` seconds for ``proc`` to end, then kill its group."""
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        _signal(proc, signal.SIGKILL)
        proc.wait()

class Procs:
    """Every process this script started; all ended (their process groups) on exit."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []
        self.cluster: "Cluster | None" = None
        self.tmp = Path(tempfile.mkdtemp(prefix="vibesearch-qbench-"))

    def start(self, cmd: list[str], log: str, env: dict[str, str] | None = None, **kw: Any) -> subprocess.Popen:
        out = open(self.tmp / log, "ab")
        proc = subprocess.Popen(cmd, env=env, stdout=kw.pop("stdout", out), stderr=kw.pop("stderr", out), start_new_session=True, cwd=self.tmp, **kw)
        self.procs.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen, grace: float = 20.0) -> None:
        if proc.poll() is None:
            _signal(proc, signal.SIGTERM)
            _reap(proc, grace)
        if proc in self.procs:
            self.procs.remove(proc)

    def cleanup(self) -> None:
        for proc in list(self.procs):
            if proc.poll() is None:
                _signal(proc, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for proc in list(self.procs):
            _reap(proc, max(0.1, deadline - time.monotonic()))
        self.procs.clear()
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
        shutil.rmtree(self.tmp, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bindir() -> Path:
    candidates: list[str] = []
    if shutil.which("pg_config"):
        done = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidates.append(done.stdout.strip())
    candidates += sorted((str(p) for p in Path("/usr/lib/postgresql").glob("*/bin")), reverse=True)
    for found in (shutil.which("initdb"), shutil.which("pg_ctl")):
        if found:
            candidates.append(str(Path(found).parent))
    for folder in candidates:
        if folder and (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    raise SystemExit("error: no PostgreSQL server binaries (initdb, pg_ctl) found")


class Cluster:
    """A throwaway PostgreSQL cluster (as in tests/pg_cluster.py): stopped and removed by ``stop``."""

    def __init__(self, root: Path):
        self.bindir = _pg_bindir()
        self.root = root / "pg"
        self.root.mkdir()
        self.data = self.root / "data"
        self.port = _free_port()
        self.names = itertools.count(1)
        self.up = False
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(root, user.pw_uid, user.pw_gid)
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
                "-c max_connections=800 -c shared_buffers=128MB")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"), "-o", opts, "-w", "start")
        self.up = True

    def stop(self) -> None:
        if self.up:
            try:
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            except Exception as exc:  # noqa: BLE001 - still remove the folder
                print(f"warning: could not stop PostgreSQL: {exc}", file=sys.stderr)
            self.up = False

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def new_database(self) -> str:
        import psycopg

        name = f"qbench_{next(self.names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"


def libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


# --------------------------------------------------------------------------- CPU accounting


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the state on (field 3)


def cpu_s(pid: int, children: bool = False) -> float:
    """CPU seconds of a live process (utime + stime, and its reaped children's with ``children``)."""
    f = _stat(pid)
    if f is None:
        return 0.0
    ticks = int(f[11]) + int(f[12]) + ((int(f[13]) + int(f[14])) if children else 0)
    return ticks / CLK


def cluster_cpu_s(postmaster: int | None) -> float:
    """The PostgreSQL server's CPU seconds: the postmaster with its reaped backends, and the live ones."""
    if postmaster is None:
        return 0.0
    total = cpu_s(postmaster, children=True)
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            f = _stat(int(entry.name))
            if f is not None and int(f[1]) == postmaster:
                total += (int(f[11]) + int(f[12])) / CLK
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot (/proc/stat)."""
    parts = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    total = sum(parts[:8])
    return (total - idle) / CLK, total / CLK


# --------------------------------------------------------------------------- helpers


def env_for(api_base: str, root: Path = ROOT) -> dict[str, str]:
    """The environment of the processes this script starts: the vibesearch code under ``root``
    (this checkout, or ``--baseline``'s), the fake server as the model's endpoint, no keys."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.pop("OPENAI_API_KEY", None)
    env["VIBESEARCH_API_BASE"] = api_base
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def vibesearch_cmd(args: list[str], cold: bool) -> list[str]:
    """The command line of ``vibesearch ARGS``; unless ``cold``, with the model's context window looked up first."""
    script = _WARM.replace("context_window(sys.argv[1], 1)\n", "") if cold else _WARM
    return [sys.executable, "-c", script, MODEL, *args]


def http_json(url: str, method: str = "GET") -> dict[str, Any]:
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read())


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


@dataclass
class RunRow:
    run_id: str
    status: str
    created: float
    first_event: float
    last_event: float
    nonce: str | None


def call_latencies(url: str, batch_id: str | None = None) -> list[float]:
    """Every model call's latency as the run measured it (its ``usage`` events: pool wait and event-loop lag included)."""
    import psycopg

    where = "AND r.batch_id = %s" if batch_id else ""
    sql = f"""SELECT (e.data_json::json->>'latency_s')::float FROM events e JOIN runs r ON r.id = e.run_id
              WHERE e.kind = 'usage' {where}"""
    with psycopg.connect(libpq(url)) as conn:
        return [float(r[0]) for r in conn.execute(sql, (batch_id,) if batch_id else ()).fetchall() if r[0] is not None]


def read_runs(url: str, batch_id: str | None = None) -> list[RunRow]:
    import psycopg

    where = "WHERE r.batch_id = %s" if batch_id else ""
    sql = f"""
        SELECT r.id, r.status, extract(epoch FROM r.created_at), extract(epoch FROM min(e.ts)), extract(epoch FROM max(e.ts)),
               (SELECT e2.data_json FROM events e2 WHERE e2.run_id = r.id AND e2.kind = 'tool_call' ORDER BY e2.seq LIMIT 1)
        FROM runs r JOIN events e ON e.run_id = r.id {where}
        GROUP BY r.id, r.status, r.created_at"""
    with psycopg.connect(libpq(url)) as conn:
        rows = conn.execute(sql, (batch_id,) if batch_id else ()).fetchall()
    out = []
    for run_id, status, created, first, last, tool_call in rows:
        found = _NONCE.search(tool_call or "")
        out.append(RunRow(run_id, status, float(created), float(first), float(last), found.group(1) if found else None))
    return out


@dataclass
class JobRow:
    run_id: str
    worker: int | None
    status: str
    deferred: float
    started: float | None
    ended: float | None


def read_jobs(url: str, batch_id: str) -> list[JobRow]:
    import psycopg

    sql = """
        SELECT j.args->>'run_id', j.worker_id, j.status::text,
               extract(epoch FROM min(e.at) FILTER (WHERE e.type = 'deferred')),
               extract(epoch FROM max(e.at) FILTER (WHERE e.type = 'started')),
               extract(epoch FROM max(e.at) FILTER (WHERE e.type IN ('succeeded', 'failed')))
        FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id
        WHERE j.args->>'batch_id' = %s GROUP BY j.id ORDER BY j.id"""
    with psycopg.connect(libpq(url)) as conn:
        rows = conn.execute(sql, (batch_id,)).fetchall()
    return [JobRow(r[0], r[1], r[2], float(r[3]), float(r[4]) if r[4] is not None else None, float(r[5]) if r[5] is not None else None) for r in rows]


def jobs_left(url: str, batch_id: str) -> int:
    import psycopg

    with psycopg.connect(libpq(url)) as conn:
        row = conn.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE args->>'batch_id' = %s AND status NOT IN ('succeeded', 'failed', 'cancelled', 'aborted')",
            (batch_id,),
        ).fetchone()
    return int(row[0])


def workers_registered(url: str) -> int:
    import psycopg

    with psycopg.connect(libpq(url)) as conn:
        return int(conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()[0])


def slot_claims(starts: list[tuple[float, float, float, float | None]], slots: int, ready: float) -> list[tuple[float, bool]]:
    """For one driver of ``slots`` slots, free from ``ready`` on, and its runs as (runnable-from,
    start, end, first call): each run's claim overhead (first call − the moment it could have
    been taken) and whether its slot was freed by an earlier run."""
    free: list[tuple[float, bool]] = [(ready, False)] * slots
    heapq.heapify(free)
    timeline = sorted(
        [(end, 0, i) for i, (_q, _s, end, _f) in enumerate(starts)] + [(s, 1, i) for i, (_q, s, _e, _f) in enumerate(starts)]
    )
    out: list[tuple[float, bool]] = []
    for _t, kind, i in timeline:
        queued, _start, end, first = starts[i]
        if kind == 0:
            heapq.heappush(free, (end, True))
            continue
        slot_at, reused = heapq.heappop(free) if free else (queued, False)
        runnable = max(queued, slot_at)
        if first is not None:
            out.append((first - runnable, reused and slot_at >= queued))
    return out


# --------------------------------------------------------------------------- one configuration


@dataclass
class Result:
    name: str
    processes: int
    slots: int
    runs: int
    finished: int = 0
    wall_s: float = 0.0
    startup_s: float = 0.0  # launch → first run opened
    calls: int = 0
    peak: int = 0
    busy_call_s: float = 0.0
    claims: list[float] = field(default_factory=list)
    claims_reused: list[float] = field(default_factory=list)
    claim_parts: dict[str, list[float]] = field(default_factory=dict)
    call_latency: list[float] = field(default_factory=list)  # as the runs measured them
    durations: list[float] = field(default_factory=list)  # run row created → end event
    cpu: list[float] = field(default_factory=list)  # per vibesearch process, CPU s over the wall
    pg_cpu: float = 0.0
    server_cpu: float = 0.0
    machine_busy: float = 0.0
    cpu_from_startup: bool = False  # CPU counted from the end of start-up (the one-process runner)
    notes: list[str] = field(default_factory=list)


class Bench:
    def __init__(self, args: argparse.Namespace, procs: Procs):
        self.args = args
        self.procs = procs
        self.cluster = Cluster(procs.tmp)
        procs.cluster = self.cluster
        self.cluster.start()
        self.server = procs.start(
            [sys.executable, str(SERVER), "--port", "0", "--latency", str(args.latency), "--tool-steps", str(args.tool_steps)],
            "server.log", stdout=subprocess.PIPE,
        )
        line = self.server.stdout.readline().decode() if self.server.stdout else ""
        if not line.startswith("PORT "):
            raise SystemExit(f"error: the fake server did not start: {line!r} (log: {procs.tmp / 'server.log'})")
        self.base = f"http://127.0.0.1:{int(line.split()[1])}"
        self.env = self.own_env = env_for(self.base + "/v1")
        self.baseline_env = env_for(self.base + "/v1", args.baseline) if args.baseline else None
        self.calls_per_run = args.tool_steps + 2

    # the common arguments of a batch
    def batch_args(self, runs: int) -> list[str]:
        return ["--tasks", self.args.task, "--runs", str(runs), "--agent", "react", "--model", MODEL, "--user", "rules",
                "--max-user-turns", "1", "--search", "offline"]

    def cli(self, args: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
        done = subprocess.run(vibesearch_cmd(args, cold=True), env=self.env, capture_output=True, text=True, timeout=timeout, cwd=self.procs.tmp)
        if done.returncode != 0:
            raise RuntimeError(f"vibesearch {' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        return done

    def fresh_db(self) -> str:
        url = self.cluster.new_database()
        self.cli(["db", "upgrade", "--db", url])
        return url

    def overhead(self) -> tuple[float, float]:
        """(per-run overhead, the warm run's duration) from 2 runs one at a time in one process."""
        url = self.fresh_db()
        http_json(self.base + "/reset", "POST")
        self.cli(["run", "--db", url, "--json", "--concurrency", "1", *self.batch_args(2)], timeout=600)  # cold: the 2nd run is warm
        runs = sorted(read_runs(url), key=lambda r: r.created)
        warm = runs[-1]
        duration = warm.last_event - warm.created
        return duration - self.calls_per_run * self.args.latency, duration

    def _cpu_snapshot(self, pids: list[int]) -> tuple[list[float], float, float, tuple[float, float]]:
        return ([cpu_s(p) for p in pids], cluster_cpu_s(self.cluster.postmaster_pid()), cpu_s(self.server.pid), machine_busy())

    def _finish(self, res: Result, url: str, before: Any, after: Any, t0: float, runs: list[RunRow]) -> None:
        res.finished = sum(r.status == "finished" for r in runs)
        res.durations = [r.last_event - r.created for r in runs]
        res.call_latency = call_latencies(url)
        end = max((r.last_event for r in runs), default=time.time())
        res.wall_s = end - t0
        res.startup_s = (min(r.created for r in runs) - t0) if runs else 0.0
        res.cpu = [a - b for a, b in zip(after[0], before[0])]
        res.pg_cpu = after[1] - before[1]
        res.server_cpu = after[2] - before[2]
        busy = after[3][0] - before[3][0]
        total = after[3][1] - before[3][1]
        res.machine_busy = busy / total if total else 0.0
        stats = http_json(self.base + "/stats")
        res.calls = int(stats["requests"])
        res.peak = int(stats["peak_in_flight"])
        res.busy_call_s = float(stats["busy_call_s"])
        self.conversations = stats["conversations"]
        if res.finished < res.runs:
            res.notes.append(f"{res.runs - res.finished} run(s) did not finish")

    def first_call(self, run: RunRow | None) -> float | None:
        if run is None or run.nonce is None:
            return None
        conv = self.conversations.get(run.nonce)
        return float(conv["first"]) if conv else None

    def one_process(self, display: str = "json") -> Result:
        """One ``vibesearch run`` process: with ``--json`` (``json``, the baseline), or as users run
        it, showing its progress: piped to a file (``table``) or on a pseudo-terminal (``tty``)."""
        s, n = self.args.slots, self.args.runs
        res = Result(ONE_PROCESS[display], 1, s, n)
        url = self.fresh_db()
        http_json(self.base + "/reset", "POST")
        t0 = time.time()
        shown = ["--json"] if display == "json" else []
        streams: dict[str, Any] = {}
        if display == "tty":  # the display's output read (and dropped) from the terminal's other end
            main_end, side = pty.openpty()
            streams = {"stdout": side, "stderr": side}
            threading.Thread(target=_drain, args=(main_end,), daemon=True).start()
        proc = self.procs.start(vibesearch_cmd(["run", "--db", url, *shown, "--concurrency", str(s), *self.batch_args(n)], self.args.cold),
                                f"one-process-{display}.log", env=self.env, **streams)
        if display == "tty":
            os.close(side)
        snaps = [(time.time(), self._cpu_snapshot([proc.pid]))]
        deadline = time.monotonic() + self.args.timeout
        while proc.poll() is None:
            snap = self._cpu_snapshot([proc.pid])
            if snap[0][0] > 0:
                snaps.append((time.time(), snap))
            if time.monotonic() > deadline:
                res.notes.append("timed out")
                break
            time.sleep(0.25)
        after = self._cpu_snapshot([proc.pid])
        after = (snaps[-1][1][0], after[1], after[2], after[3])  # the process's own CPU: its last sample alive
        self.procs.stop(proc)
        runs = read_runs(url)
        # the CPU counted from the first run on (the process's start-up, imports included, is not)
        opened = min((r.created for r in runs), default=t0)
        before = next((snap for when, snap in reversed(snaps) if when <= opened), snaps[0][1])
        self._finish(res, url, before, after, t0, runs)
        res.cpu_from_startup = True
        # a run's slot is free from the end of the one before it (the first wave: from the launch)
        items = [(t0, r.created, r.last_event, self.first_call(r)) for r in runs]
        for claim, reused in slot_claims(items, s, t0):
            if reused:
                res.claims_reused.append(claim)
        res.notes.append("claim overhead: runs that took a freed slot only (the first wave waits for the process to start)")
        return res

    def queued(self, workers: int) -> Result:
        s, n = self.args.slots, self.args.runs
        per = max(1, s // workers)
        res = Result(f"queued {workers}×{per}", workers, per * workers, n)
        url = self.fresh_db()
        procs = [self.procs.start(vibesearch_cmd(["worker", "--db", url, "--slots", str(per)], self.args.cold), f"worker-{workers}-{i}.log", env=self.env)
                 for i in range(workers)]
        deadline = time.monotonic() + 300
        lanes = lane_slots(per)  # a worker claims in lanes, each a procrastinate worker of its own
        while workers_registered(url) < workers * len(lanes):
            dead = [p for p in procs if p.poll() is not None]
            if dead:
                raise RuntimeError(f"a worker exited ({dead[0].returncode}): see {self.procs.tmp}/worker-{workers}-*.log")
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not register within 300 s")
            time.sleep(0.2)
        ready = time.time()
        time.sleep(0.5)
        http_json(self.base + "/reset", "POST")
        pids = [p.pid for p in procs]
        before = self._cpu_snapshot(pids)
        t0 = time.time()
        # the queueing command makes no model call: it is started as it is (no litellm loaded first)
        done = subprocess.run(vibesearch_cmd(["run", "--queue", "--db", url, "--json", *self.batch_args(n)], cold=True),
                              env=self.env, capture_output=True, text=True, timeout=600, cwd=self.procs.tmp)
        if done.returncode != 0:
            raise RuntimeError(f"run --queue failed: {done.stderr.strip()[-2000:]}")
        batch = json.loads(done.stdout)["batch_id"]
        deadline = time.monotonic() + self.args.timeout
        while jobs_left(url, batch) > 0:
            if time.monotonic() > deadline:
                res.notes.append("timed out")
                break
            time.sleep(0.5)
        after = self._cpu_snapshot(pids)
        status = self.cli(["batch", "status", batch, "--db", url, "--json"])  # the CLI's own view, once
        counts = json.loads(status.stdout)["counts"]
        if counts.get("finished") != n:
            res.notes.append(f"batch status: {counts}")
        runs = read_runs(url, batch)
        jobs = read_jobs(url, batch)
        for p in procs:
            self.procs.stop(p)
        self._finish(res, url, before, after, t0, runs)
        by_run = {r.run_id: r for r in runs}
        queued_at = min(j.deferred for j in jobs) if jobs else t0
        res.claim_parts = {"queued → job started": [], "job started → first call": []}
        for _worker, group in itertools.groupby(sorted(jobs, key=lambda j: j.worker or 0), key=lambda j: j.worker):
            group = [j for j in group if j.started is not None and j.ended is not None]
            items = [(j.deferred, j.started, j.ended, self.first_call(by_run.get(j.run_id))) for j in group]
            for claim, reused in slot_claims(items, max(lanes), ready):
                res.claims.append(claim)
                if reused:
                    res.claims_reused.append(claim)
            for j in group:
                first = self.first_call(by_run.get(j.run_id))
                if first is not None and j.started is not None:
                    res.claim_parts["job started → first call"].append(first - j.started)
        first_wave = [j for j in jobs if j.started is not None][: res.slots]
        res.claim_parts["queued → job started"] = [j.started - j.deferred for j in first_wave if j.started is not None]
        res.startup_s = queued_at - t0
        res.notes.append(f"`run --queue` took {queued_at - t0:.1f} s to the first job queued, {max(j.deferred for j in jobs) - queued_at:.1f} s more to the last")
        return res


# --------------------------------------------------------------------------- report


def fmt(x: float | None, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


def table(rows: list[list[str]], head: list[str]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def report(results: list[Result], ideal_per_run: float, overhead: float, warm: float, args: argparse.Namespace, calls_per_run: int) -> str:
    base = next((r for r in results if r.processes == 1 and r.name == "1 process"), None)  # this checkout's
    base_rate = base.finished * 3600 / base.wall_s if base and base.wall_s else None
    base_drained = base.finished * 3600 / (base.wall_s - base.startup_s) if base and base.wall_s > base.startup_s else None
    head = ["configuration", "runs ok", "wall s", "start-up s", "runs/h", "runs/h after start-up", "ideal runs/h", "share of ideal", "peak in flight",
            "mean in flight", "vs 1 process", "claim p50/p95 s", "claim (freed slot) p50/p95 s", "call latency seen p50/p95 s",
            "run duration p50/p95 s", "CPU % per process", "PostgreSQL CPU %", "fake server CPU %", "machine busy %", "CPU s per run"]
    rows = []
    for r in results:
        rate = r.finished * 3600 / r.wall_s if r.wall_s else 0.0
        drain = r.wall_s - r.startup_s
        span = drain if r.cpu_from_startup else r.wall_s  # the interval the CPU figures cover
        drained = r.finished * 3600 / drain if drain > 0 else 0.0
        ideal = r.slots * 3600 / ideal_per_run
        rows.append([
            r.name, f"{r.finished}/{r.runs}", fmt(r.wall_s), fmt(r.startup_s), f"{rate:,.0f}", f"{drained:,.0f}", f"{ideal:,.0f}",
            f"{rate / ideal:.0%} / {drained / ideal:.0%}",
            str(r.peak), fmt(r.busy_call_s / drain if drain > 0 else None),
            f"{rate / base_rate:.2f}× / {drained / base_drained:.2f}×" if base_rate and base_drained else "-",
            f"{fmt(pct(r.claims, .5), '.2f')} / {fmt(pct(r.claims, .95), '.2f')}" if r.claims else "-",
            f"{fmt(pct(r.claims_reused, .5), '.2f')} / {fmt(pct(r.claims_reused, .95), '.2f')}" if r.claims_reused else "-",
            f"{fmt(pct(r.call_latency, .5), '.2f')} / {fmt(pct(r.call_latency, .95), '.2f')}",
            f"{fmt(pct(r.durations, .5), '.1f')} / {fmt(pct(r.durations, .95), '.1f')}",
            " ".join(f"{100 * c / span:.0f}" for c in r.cpu) if span > 0 else "-",
            fmt(100 * r.pg_cpu / span if span > 0 else None, ".0f"), fmt(100 * r.server_cpu / span if span > 0 else None, ".0f"),
            f"{100 * r.machine_busy:.0f}",
            f"{(sum(r.cpu) + r.pg_cpu) / r.finished:.3f}" if r.finished else "-",
        ])
    out = [
        f"queue throughput: {args.runs} runs per configuration, {args.slots} slots in all, latency {args.latency} s, "
        f"{calls_per_run} calls per run ({args.tool_steps} tool steps + reply + extraction), task {args.task}, "
        f"{os.cpu_count()} CPU(s){'; cold processes' if args.cold else ''}",
        f"ideal per run: {calls_per_run} × {args.latency} s + {overhead:.2f} s overhead = {ideal_per_run:.2f} s "
        f"(overhead: the second of 2 runs run one at a time in one process, row created → end event, {warm:.2f} s, less the calls' latency)",
        "",
        table(rows, head),
        "",
        "wall: launch of `vibesearch run` / `run --queue` → the last run's end event; start-up: launch → the first run opened "
        "(1 process) / the first job queued (queued); runs/h = finished runs × 3600 / wall (after start-up: / (wall − start-up)); "
        "share of ideal: of runs/h / of runs/h after start-up; vs 1 process: ratio of runs/h / of runs/h after start-up; "
        "mean in flight = call-seconds at the fake server / (wall − start-up); call latency seen: the runs' own measure of each "
        "model call (usage events; the server answers after exactly the latency: the rest is waiting for a pooled connection "
        "and a busy event loop); run duration: run row created → end event; CPU %: of one core over the wall time; CPU s per run: "
        "the vibesearch processes' and PostgreSQL's CPU seconds per finished run (the fake server's not counted)",
    ]
    for r in results:
        extra = list(r.notes)
        for name, values in r.claim_parts.items():
            if values:
                extra.append(f"{name}: p50 {fmt(pct(values, .5), '.2f')} s, p95 {fmt(pct(values, .95), '.2f')} s")
        extra.append(f"{r.calls} calls at the fake server ({r.calls / max(1, r.finished):.1f} per finished run)")
        if r.finished:
            per_run = (sum(r.cpu) + r.pg_cpu) / r.finished
            extra.append(f"CPU-bound ceiling with all {os.cpu_count()} cores for these processes and PostgreSQL: "
                         f"{(os.cpu_count() or 1) * 3600 / per_run:,.0f} runs/h")
        out.append(f"- {r.name}: " + "; ".join(extra))
    base_cpu = sum(base.cpu) / base.finished if base and base.finished else None
    for r in results:
        if r.name.startswith("1 process, table") and r.finished and base_cpu:
            out.append(f"- progress display: {r.name} uses {sum(r.cpu) / r.finished / base_cpu:.2f}× the CPU per run of --json "
                       f"(the vibesearch process's CPU s per finished run: {sum(r.cpu) / r.finished:.3f} vs {base_cpu:.3f}; target ≤ 1.10×)")
    capped = [r for r in results if r.peak == 64 * r.processes and r.slots / r.processes > 64]
    if capped:
        out.append(
            "- calls in flight stopped at 64 per process in: " + ", ".join(r.name for r in capped)
            + " — a cap of 64 connections per process on the direct model path (vibesearch/llm/_direct.py allows MAX_CONNECTIONS)"
        )
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description="Throughput of queued batches against the one-process runner (see the module docstring).")
    p.add_argument("--slots", type=int, default=200, help="runs driven at once in all (default 200)")
    p.add_argument("--runs", type=int, default=None, help="runs per configuration (default 2 × slots)")
    p.add_argument("--latency", type=float, default=1.0, help="seconds the fake model takes for every call")
    p.add_argument("--tool-steps", type=int, default=4, help="tool calls per run (calls per run = this + 2)")
    p.add_argument("--configs", default="base,table,tty,1,2,4",
                   help="base (one process, --json), table (one process showing its progress, piped), tty (the same on a "
                        "pseudo-terminal) and/or worker counts, comma-separated")
    p.add_argument("--task", default="daily-en-japan-heritage-trip", help="a bundled task id")
    p.add_argument("--timeout", type=float, default=1800, help="the longest a configuration may take, in seconds")
    p.add_argument("--cold", action="store_true", help="do not look up the model's context window in each process before it starts")
    p.add_argument("--json", type=Path, default=None, help="also write the results to this JSON file")
    p.add_argument("--baseline", type=Path, default=None,
                   help="another checkout of vibesearch (e.g. `git worktree add /tmp/base v1`): each configuration is also run "
                        "on its code, right after this checkout's, in the same invocation (same cluster, server and schema)")
    args = p.parse_args()
    if args.baseline is not None and not (args.baseline / "vibesearch" / "__init__.py").is_file():
        p.error(f"--baseline {args.baseline}: not a vibesearch checkout (no vibesearch/__init__.py there)")
    args.runs = args.runs or 2 * args.slots
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]

    procs = Procs()
    atexit.register(procs.cleanup)

    def interrupted(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    try:
        bench = Bench(args, procs)
        print(f"cluster on port {bench.cluster.port}, fake server at {bench.base}; measuring the per-run overhead …", file=sys.stderr, flush=True)
        overhead, warm = bench.overhead()
        ideal_per_run = bench.calls_per_run * args.latency + max(0.0, overhead)
        results: list[Result] = []
        codes = [("", bench.own_env)] + ([(" (baseline)", bench.baseline_env)] if bench.baseline_env else [])
        for c in configs:
            for label, env in codes:  # with --baseline: each configuration on this code, then on the baseline's
                bench.env = env
                print(f"[{time.strftime('%H:%M:%S')}] configuration {c}{label} …", file=sys.stderr, flush=True)
                res = bench.one_process(ONE_PROCESS_CONFIGS[c]) if c in ONE_PROCESS_CONFIGS else bench.queued(int(c))
                res.name += label
                print(f"  {res.name}: {res.finished}/{res.runs} runs in {res.wall_s:.1f} s, peak {res.peak} in flight", file=sys.stderr, flush=True)
                results.append(res)
        bench.env = bench.own_env
        text = report(results, ideal_per_run, overhead, warm, args, bench.calls_per_run)
        print(text)
        if args.json:
            args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "overhead_s": overhead,
                                             "ideal_per_run_s": ideal_per_run, "results": [r.__dict__ for r in results]}, indent=2))
        return 0
    except KeyboardInterrupt:
        print("interrupted: stopping every process and removing the cluster", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        procs.cleanup()


if __name__ == "__main__":
    sys.exit(main())
