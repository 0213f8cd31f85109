"""How long ``python app.py`` takes to answer its first HTTP request: this checkout against a baseline's.

    python benchmarks/app_startup.py [--rounds 3] [--baseline DIR]

Each start is its own process, the way a person types it: ``python app.py`` in the checkout, on a
fresh SQLite file and a free port, nothing configured (the offline defaults). Timed from starting
the process to its "starting…" line on stdout and to the first ``200`` answer to ``GET /`` (polled
every 50 ms), and the CPU seconds the process had used by then (less moved by other work on the
machine than the wall time). With ``--baseline DIR`` (another checkout, e.g. ``git worktree add
/tmp/base REV``) the same is done on that checkout's code, alternating with this one, in the same
invocation; the medians are printed with their ratio, and the machine's load average. Two kinds of
start are timed each round: a **first start** on a fresh database (the schema's migrations are in
the figure) and a **later start** on the database an earlier start made (what a user gets every
time after the first).
Modules are loaded as an installed copy loads them, from their compiled bytecode: one untimed start
per checkout comes first and may write what a checkout lacks (``PYTHONDONTWRITEBYTECODE`` is not
passed on).
``--gradio`` also times a bare ``import gradio`` (wall and CPU), with the garbage collector on as
in any program: about the floor (the app imports gradio with the collector paused, a little under it).

Nothing here touches the network or needs a key.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIMIT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def installed_env() -> dict[str, str]:
    """This environment, but Python may keep its compiled modules (``__pycache__``) as installed
    copies have them: with ``PYTHONDONTWRITEBYTECODE`` set, a checkout's modules whose bytecode is
    missing or stale were compiled again on every start (0.4 s of CPU for this project's)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def start(code: Path, db: Path) -> tuple[float, float, float]:
    """Seconds to the "starting…" line and to the first 200 on ``/``, and the CPU seconds the
    process had used by then (less moved by other work on the machine than the wall time), with
    the app's database at ``db`` (made by this start if it is not there)."""
    port = free_port()
    env = {**installed_env(), "PYTHONPATH": str(code), "VIBESEARCH_PORT": str(port), "VIBESEARCH_HOST": "127.0.0.1",
           "VIBESEARCH_DB": str(db), "PYTHONUNBUFFERED": "1"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=code, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        said = time.perf_counter() - t0
        if "starting" not in first:
            raise SystemExit(f"error: {code}/app.py printed {first!r} first, not its starting line")
        while time.perf_counter() - t0 < LIMIT:
            if proc.poll() is not None:
                raise SystemExit(f"error: {code}/app.py exited with {proc.returncode} before answering")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    if r.status == 200:
                        return said, time.perf_counter() - t0, cpu_seconds(proc.pid)
            except OSError:
                pass
            time.sleep(0.05)
        raise SystemExit(f"error: {code}/app.py did not answer within {LIMIT:.0f} s")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bare_gradio() -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c "import gradio"`` (the CPU from the finished child's usage)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import gradio"], check=True, env={**installed_env(), "GRADIO_ANALYTICS_ENABLED": "False"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", type=Path, default=None, help="another vibesearch checkout to compare with")
    ap.add_argument("--gradio", action="store_true", help="also time a bare `import gradio` each round")
    args = ap.parse_args()
    if args.baseline and not (args.baseline / "app.py").is_file():
        ap.error(f"--baseline {args.baseline}: not a vibesearch checkout (no app.py there)")
    codes = {"new": REPO, **({"old": args.baseline.resolve()} if args.baseline else {})}
    kinds = ("first", "later")
    said: dict[tuple[str, str], list[float]] = {(n, k): [] for n in codes for k in kinds}
    served: dict[tuple[str, str], list[float]] = {(n, k): [] for n in codes for k in kinds}
    cpu: dict[tuple[str, str], list[float]] = {(n, k): [] for n in codes for k in kinds}
    floor: list[tuple[float, float]] = []
    loads = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        kept = {name: tmp / f"kept-{name}.db" for name in codes}
        for name, code in codes.items():  # untimed: writes the bytecode a checkout lacks (``installed_env``) and the kept database
            start(code, kept[name])
        for round_no in range(args.rounds):
            for name, code in codes.items():
                for kind in kinds:
                    loads.append(os.getloadavg()[0])
                    db = tmp / f"fresh-{name}-{round_no}.db" if kind == "first" else kept[name]
                    s, h, c = start(code, db)
                    said[name, kind].append(s)
                    served[name, kind].append(h)
                    cpu[name, kind].append(c)
            if args.gradio:
                floor.append(bare_gradio())
    print(f"python app.py, {args.rounds} rounds alternating; load average {statistics.mean(loads):.1f} on {os.cpu_count()} cores")
    for kind, what in (("first", "first start (fresh database)"), ("later", "later start (existing database)")):
        print(what)
        for name in codes:
            key = (name, kind)
            print(f"  {name}: 'starting…' after {statistics.median(said[key]):.2f} s, first HTTP 200 after {statistics.median(served[key]):.2f} s "
                  f"(each round: {', '.join(f'{t:.2f}' for t in served[key])}), CPU by then {statistics.median(cpu[key]):.2f} s")
        if "old" in codes:
            old, new = ("old", kind), ("new", kind)
            print(f"  old / new, first HTTP 200: {statistics.median(served[old]) / statistics.median(served[new]):.2f}x wall, "
                  f"{statistics.median(cpu[old]) / statistics.median(cpu[new]):.2f}x CPU")
    if floor:
        print(f"bare `import gradio`: {statistics.median(w for w, _ in floor):.2f} s, CPU {statistics.median(c for _, c in floor):.2f} s (medians)")


if __name__ == "__main__":
    main()
