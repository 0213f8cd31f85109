"""Event appends from 16 concurrent sessions: SQLite against PostgreSQL, side by side.

    python benchmarks/db_append.py [--sessions 16] [--events 200] [--pg postgresql+psycopg://…]

Each session is its own process appending ``--events`` events (one committed transaction each,
as a live run writes them) to its own run, all at once. Printed per engine: total appends per
second, and the p50 / p95 / max latency of one append. Without ``--pg`` a throwaway PostgreSQL
cluster is started the way the tests do (``tests/pg_cluster.py``: needs PostgreSQL's programs).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _session(db: str, run_id: str, n: int, start: float, out: "mp.Queue[tuple[float, float, list[float]]]") -> None:
    from vibesearch.run import MessageEvent
    from vibesearch.store import Store

    store = Store(db)
    while time.time() < start:
        time.sleep(0.001)
    took = []
    began = time.time()
    for i in range(n):
        t0 = time.perf_counter()
        store.append(run_id, MessageEvent(role="assistant", content=f"step {i} " + "x" * 400))
        took.append(time.perf_counter() - t0)
    out.put((began, time.time(), took))


def measure(db: str, sessions: int, events: int) -> dict[str, float]:
    from vibesearch.store import Store

    store = Store(db)
    runs = [store.create_run("bench").id for _ in range(sessions)]
    ctx = mp.get_context("spawn")
    out: "mp.Queue[tuple[float, float, list[float]]]" = ctx.Queue()
    start = time.time() + 8.0  # every process has opened its store by then (else it starts late: see below)
    procs = [ctx.Process(target=_session, args=(db, rid, events, start, out)) for rid in runs]
    for p in procs:
        p.start()
    latencies: list[float] = []
    spans = []
    for _ in procs:
        began, ended, took = out.get(timeout=900)
        spans.append((began, ended))
        latencies += took
    wall = max(e for _, e in spans) - min(b for b, _ in spans)  # first append to last
    for p in procs:
        p.join()
    assert all(len(store.events(r)) == events for r in runs)
    latencies.sort()
    return {
        "appends_per_s": len(latencies) / wall,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))] * 1000,
        "max_ms": latencies[-1] * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=16)
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--pg", default=None, help="a PostgreSQL URL (an empty database); default: a throwaway cluster")
    args = ap.parse_args()

    from vibesearch.store import upgrade_database

    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["SQLite"] = measure(str(Path(tmp) / "bench.db"), args.sessions, args.events)
    cluster = None
    url = args.pg
    if url is None:
        sys.path.insert(0, str(REPO / "tests"))
        from pg_cluster import PgCluster, find_bindir

        bindir = find_bindir()
        if bindir is None:
            sys.exit("PostgreSQL's programs (initdb, pg_ctl) are missing: install them or pass --pg URL")
        cluster = PgCluster(bindir).start()
        url = cluster.new_database()
    try:
        upgrade_database(url)
        results["PostgreSQL"] = measure(url, args.sessions, args.events)
    finally:
        if cluster is not None:
            cluster.stop()

    print(f"{args.sessions} sessions × {args.events} appends each, one process per session")
    print(f"{'':>14} {'SQLite':>10} {'PostgreSQL':>12}")
    for key, label in (("appends_per_s", "appends/s"), ("p50_ms", "p50 ms"), ("p95_ms", "p95 ms"), ("max_ms", "max ms")):
        print(f"{label:>14} {results['SQLite'][key]:>10.1f} {results['PostgreSQL'][key]:>12.1f}")


if __name__ == "__main__":
    main()
