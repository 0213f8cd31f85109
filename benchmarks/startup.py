"""How long the ``vibesearch`` command takes to get going and to go away.

Each command runs as its own process, the way a person types it, on a fresh SQLite file:

* ``run --agent react`` on a fake model (``fake/startup``, served by this file through
  ``VIBESEARCH_FAKE_MODELS``): the time from starting the process to its first model call, and
  from its last model call to the process having exited;
* the same run as users run it against a real endpoint: ``--model openai/gpt-4o-mini`` with
  ``VIBESEARCH_API_BASE`` pointing to a local OpenAI-compatible server
  (``benchmarks/_fake_openai_server.py``, answering at once), which notes when each call arrives;
* ``tasks list``, ``score --all`` (offline judge) and ``report`` on a finished offline run: the
  whole command, start to exit.

Every command is timed two ways in the same invocation, alternating, and the medians are
printed with their ratio:

* **now** — ``python -m vibesearch.cli.main ...``, as installed;
* **eager** — the way it was before litellm was loaded only where needed (for the ``openai/``
  run: before its context window and price were read from litellm's packaged map without
  importing litellm, it was loaded before the first call): litellm imported and
  the fake provider plugged into it before the command starts (what ``fake.register`` used to
  do), and the interpreter's usual last cycle search at exit (no ``gc.freeze``, see
  ``vibesearch/cli/main.py``). ``tasks list``, ``score`` and ``report`` did not load litellm
  before either: for them this column is what a module-level ``import litellm`` on their way
  would cost (``tests/cli/test_startup.py`` fails if one appears).

    python benchmarks/startup.py [--rounds 3] [--task daily-en-japan-heritage-trip]

The local server is this folder's ``_fake_openai_server.py`` on 127.0.0.1 (ended on exit).

Nothing here touches the network or needs a key.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LOG_VARIABLE = "VIBESEARCH_STARTUP_LOG"

# the old way: litellm and the fake provider loaded before the command, no gc.freeze at exit
EAGER = (
    "import sys, litellm\n"
    "from vibesearch.llm import fake\n"
    "fake.install()\n"
    "from vibesearch.cli import main\n"
    "sys.argv = ['vibesearch', *sys.argv[1:]]\n"
    "main._run(sys)\n"
)


def register() -> None:
    """``VIBESEARCH_FAKE_MODELS=startup:register``: ``fake/startup`` notes the time of each call."""
    from vibesearch.llm import fake

    def answer(req: fake.Request) -> fake.Reply:
        with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as log:
            log.write(f"{time.time()}\n")
        if not req.tools:  # the graph extraction at the end
            return fake.Reply(content="[]")
        return fake.Reply(content="I have nothing on that yet. What matters most to you?")

    fake.register("startup", answer)


def _command(way: str, args: list[str]) -> list[str]:
    if way == "eager":
        return [sys.executable, "-c", EAGER, *args]
    return [sys.executable, "-m", "vibesearch.cli.main", *args]


def _env(log: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    env["VIBESEARCH_FAKE_MODELS"] = "startup:register"
    env[LOG_VARIABLE] = str(log)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def _timed(way: str, args: list[str], work: Path, server: str | None = None) -> tuple[float, float, float, list[float]]:
    """(start, end, wall seconds, model call times) of one command; with ``server`` (a local
    OpenAI-compatible server's address) the model is called there, and the times are its own
    (the first call's arrival, the last answer's departure)."""
    log = work / f"calls-{time.monotonic_ns()}.txt"
    log.write_text("", encoding="utf-8")
    env = _env(log)
    if server is not None:
        env["VIBESEARCH_API_BASE"] = f"{server}/v1"
        _http(f"{server}/reset", post=True)
    start = time.time()
    proc = subprocess.run(_command(way, args), cwd=work, env=env, capture_output=True, text=True)
    end = time.time()
    if proc.returncode != 0:
        raise SystemExit(f"{way} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    if server is not None:
        stats = _http(f"{server}/stats")
        calls = [float(stats["first_at"]), float(stats["last_at"])] if stats["requests"] else []
    else:
        calls = [float(line) for line in log.read_text(encoding="utf-8").split()]
    return start, end, end - start, calls


def _http(url: str, post: bool = False) -> dict:
    request = urllib.request.Request(url, method="POST" if post else "GET", data=b"" if post else None)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _server(work: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(HERE / "_fake_openai_server.py"), "--port", "0", "--latency", "0", "--tool-steps", "1"],
                            cwd=work, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("PORT "):
        proc.kill()
        raise SystemExit(f"the local OpenAI-compatible server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{line.split()[1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="times each command runs each way (alternating)")
    parser.add_argument("--task", default="daily-en-japan-heritage-trip")
    opts = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="vibesearch-startup-"))
    db = work / "startup.db"
    scored = work / "scored.db"
    # one finished offline run for score and report (made once, not timed)
    _timed("now", ["run", "-t", opts.task, "--db", str(scored)], work)

    react = ["run", "--agent", "react", "--model", "fake/startup", "-t", opts.task, "--max-user-turns", "2", "--db", str(db)]
    real = ["run", "--agent", "react", "--model", "openai/gpt-4o-mini", "-t", opts.task, "--max-user-turns", "2", "--db", str(db)]
    server, address = _server(work)
    others = {
        "tasks list": ["tasks", "list"],
        "score --all (offline judge)": ["score", "--all", "--rescore", "--db", str(scored)],
        "report": ["report", "--db", str(scored)],
    }
    ways = ("now", "eager")
    first: dict[tuple[str, str], list[float]] = {}
    leave: dict[tuple[str, str], list[float]] = {}
    wall: dict[tuple[str, str], list[float]] = {}
    paths = {"fake/": (react, None), "openai/ + local server": (real, address)}
    try:
        for _ in range(opts.rounds):
            for way in ways:
                for path, (args, at) in paths.items():
                    start, end, seconds, calls = _timed(way, args, work, at)
                    if not calls:
                        raise SystemExit(f"{way} {path}: the run made no model call")
                    first.setdefault((path, way), []).append(calls[0] - start)
                    leave.setdefault((path, way), []).append(end - calls[-1])
                    wall.setdefault((f"run --agent react ({path})", way), []).append(seconds)
                for name, args in others.items():
                    wall.setdefault((name, way), []).append(_timed(way, args, work)[2])
    finally:
        server.terminate()
        server.wait(timeout=30)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    print(f"median of {opts.rounds} round(s), seconds; 'eager' = litellm loaded up front, no gc.freeze at exit")
    print(f"{'':52s} {'now':>7s} {'eager':>7s} {'eager/now':>10s}")
    rows = []
    for path in paths:
        rows += [
            (f"react ({path}): to first call", med(first[(path, "now")]), med(first[(path, "eager")])),
            (f"react ({path}): last call to exit", med(leave[(path, "now")]), med(leave[(path, "eager")])),
            (f"react ({path}): whole command", med(wall[(f"run --agent react ({path})", "now")]),
             med(wall[(f"run --agent react ({path})", "eager")])),
        ]
    rows += [(f"{name}: whole command", med(wall[(name, 'now')]), med(wall[(name, 'eager')])) for name in others]
    for label, now, eager in rows:
        print(f"{label:52s} {now:7.2f} {eager:7.2f} {eager / now if now else float('nan'):9.1f}x")
    fake, real_first = med(first[("fake/", "now")]), med(first[("openai/ + local server", "now")])
    print(f"to first call, now: openai/ + local server / fake/ = {real_first / fake if fake else float('nan'):.2f}x; "
          f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)")


if __name__ == "__main__":
    main()
