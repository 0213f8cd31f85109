"""How long ``vibesearch analyse`` takes over 1,000 stored runs of the bundled tasks, on one core.

    python benchmarks/analyse_speed.py [--runs 1000] [--seed-runs 2] [--budget 30]

A throwaway SQLite database gets real runs made with the offline defaults (the retrieval
baseline against the rule-based user on the offline corpus: ``vibesearch run`` on every task of
``personas/``, ``--seed-runs`` per task) scored by the offline judge (``vibesearch score --all``);
those runs are then copied under new ids (the run row, its events, its graph, its score and
verdicts) until the database holds ``--runs`` runs. ``vibesearch analyse --json`` then runs in a
child process pinned to one core (``os.sched_setaffinity``), and its wall time and CPU time
(user + system; on a shared machine the wall time also counts the waits for the core) are printed
beside the budget, with what the JSON says (runs analysed, ground-truth triples, the five buckets' sum).
Exit 1 when its CPU time is over ``--budget`` seconds (what it takes on one core of its own) or the buckets do not sum to the ground truth.

The offline defaults are deterministic, so the copies hold the same texts as the runs they copy,
as 1,000 real runs of these tasks with these defaults would.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def vibesearch(*args: str, one_core: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    pin = (lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})) if one_core else None
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args], env=env, capture_output=True, text=True,
                          preexec_fn=pin, check=False)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def copy_runs(path: Path, total: int) -> int:
    """Copy the stored runs under new ids until ``total`` runs are stored; returns the count."""
    db = sqlite3.connect(path)
    run_cols, graph_cols = columns(db, "runs"), columns(db, "graphs")
    score_cols, verdict_cols = columns(db, "scores"), columns(db, "verdicts")
    seeds = [row[0] for row in db.execute("SELECT id FROM runs ORDER BY created_at")]
    n = len(seeds)
    while n < total:
        for old in seeds:
            if n >= total:
                break
            new = uuid.uuid4().hex[:12]
            rest = [c for c in run_cols if c != "id"]
            db.execute(f"INSERT INTO runs (id, {', '.join(rest)}) SELECT ?, {', '.join(rest)} FROM runs WHERE id = ?", (new, old))
            db.execute("INSERT INTO events (run_id, seq, ts, kind, data_json) SELECT ?, seq, ts, kind, data_json FROM events WHERE run_id = ?",
                       (new, old))
            graph_ids: dict[int, int] = {}
            g_rest = [c for c in graph_cols if c not in ("id", "run_id")]
            for (gid,) in db.execute("SELECT id FROM graphs WHERE run_id = ? ORDER BY id", (old,)).fetchall():
                cur = db.execute(f"INSERT INTO graphs (run_id, {', '.join(g_rest)}) SELECT ?, {', '.join(g_rest)} FROM graphs WHERE id = ?", (new, gid))
                graph_ids[gid] = int(cur.lastrowid or 0)
            s_rest = [c for c in score_cols if c not in ("id", "run_id", "graph_id")]
            v_rest = [c for c in verdict_cols if c not in ("id", "run_id", "score_id")]
            for sid, gid in db.execute("SELECT id, graph_id FROM scores WHERE run_id = ? ORDER BY id", (old,)).fetchall():
                cur = db.execute(f"INSERT INTO scores (run_id, graph_id, {', '.join(s_rest)}) SELECT ?, ?, {', '.join(s_rest)} FROM scores WHERE id = ?",
                                 (new, graph_ids.get(gid), sid))
                db.execute(f"INSERT INTO verdicts (run_id, score_id, {', '.join(v_rest)}) SELECT ?, ?, {', '.join(v_rest)} FROM verdicts WHERE score_id = ?",
                           (new, cur.lastrowid, sid))
            n += 1
    db.commit()
    db.close()
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed-runs", type=int, default=2, help="real runs per bundled task before copying")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds allowed")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        t0 = time.perf_counter()
        for step in (("run", "--tasks", str(ROOT / "personas"), "--runs", str(args.seed_runs), "--db", str(db)),
                     ("score", "--all", "--db", str(db))):
            done = vibesearch(*step)
            if done.returncode:
                print(f"error: vibesearch {step[0]} failed: {done.stderr.strip()[-500:]}")
                return 1
        n = copy_runs(db, args.runs)
        print(f"database: {n} runs ({args.seed_runs} real runs per bundled task, the rest copies), made in {time.perf_counter() - t0:.1f} s")
        t0, cpu0 = time.perf_counter(), _children_cpu()
        done = vibesearch("analyse", "--json", "--db", str(db), one_core=True)
        took, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        if done.returncode:
            print(f"error: vibesearch analyse failed: {done.stderr.strip()[-500:]}")
            return 1
        result = json.loads(done.stdout)
        every = result["funnel"]["all"]
        buckets = sum(every[k] for k in ("not_asked", "not_seen", "not_written", "judged_not_covered", "covered"))
        print(f"vibesearch analyse --json on one core: {took:.1f} s wall, {cpu:.1f} s CPU (budget {args.budget:.0f} s) · "
              f"{result['n_analysed']} runs analysed · {every['n_gt']} ground-truth triples · buckets sum to {buckets}")
        return 0 if cpu <= args.budget and buckets == every["n_gt"] and result["n_analysed"] == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
