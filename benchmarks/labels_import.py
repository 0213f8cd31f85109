"""``vibesearch labels import`` of large files: the bulk path against the per-row one, same run.

    python benchmarks/labels_import.py [--sizes 20000,200000] [--baseline 2000] [--db URL]

A throwaway SQLite database (or ``--db``, an empty PostgreSQL database) gets 10 finished runs of
1,000 ground-truth and 50 predicted triples each; a CSV label file of each size is written and
imported the way the command does it (``read_label_file`` checks every row, ``store_labels``
checks them against the runs and writes them in one transaction), first into empty tables
(inserts) and then again (every row replaces a stored one: updates). The baseline is the way an
import wrote before: for every row a look-up of its run, then in one transaction for every row a
look-up of its stored label and a flush (``Store.put_labels``), on the first ``--baseline`` rows
of the smallest file, in the same process and database — the whole file
that way took 41 s for 20,000 rows and did not finish 200,000 in 600 s. Printed: seconds and
rows/s per size and pass, and how many times the baseline's rows/s that is.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

RUNS, GT, PRED = 10, 1000, 50
TASK = {
    "id": "bench-labels", "subset": "daily", "language": "en",
    "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
    "graph": [{"head": f"h{i}", "relation": "r", "tail": f"t{i}"} for i in range(GT)],
    "extra": {},
}


def make_runs(store) -> list[str]:
    from vibesearch.run import GraphEvent

    runs = []
    for _ in range(RUNS):
        run = store.create_run("bench-labels", task_json=TASK, status="finished")
        store.add_graph(run.id, GraphEvent(triples=[{"head": f"p{i}", "relation": "r", "tail": "x"} for i in range(PRED)]))
        runs.append(run.id)
    return runs


def write_file(path: Path, runs: list[str], n: int) -> Path:
    """``n`` distinct labels: run, triple and annotator vary; every row has evidence and a note."""
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write("run_id,gt_index,annotator,covered,evidence,note\n")
        for k in range(n):
            rest = k // RUNS
            fh.write(f"{runs[k % RUNS]},{rest % GT},annotator {rest // GT},{'true' if k % 3 else 'false'},{k % PRED} {(k + 7) % PRED},row {k}\n")
    return path


def clear(store) -> None:
    from sqlalchemy import text

    with store.engine.begin() as conn:
        conn.execute(text("DELETE FROM labels"))


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000,200000", help="rows per file, comma-separated")
    ap.add_argument("--baseline", type=int, default=2000, help="rows written the per-row way")
    ap.add_argument("--db", default=None, help="an empty PostgreSQL database URL (default: a throwaway SQLite file)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    from vibesearch.labels.labels_io import read_label_file, store_labels
    from vibesearch.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(args.db or Path(tmp) / "labels.db")
        runs = make_runs(store)
        files = {n: write_file(Path(tmp) / f"labels_{n}.csv", runs, n) for n in sizes}

        sample = read_label_file(files[min(sizes)])[: args.baseline]

        def per_row() -> None:  # what an import did before: a run look-up per row, then one transaction of per-row writes
            for rec in sample:
                store.get_run(rec["run_id"])
            store.put_labels(sample)

        clear(store)
        base_s = timed(per_row)
        base_rate = len(sample) / base_s
        print(f"baseline, per row ({len(sample):,} rows): {base_s:6.2f} s  {base_rate:9,.0f} rows/s")

        for n in sizes:
            clear(store)
            for label in ("inserts", "updates"):
                started = time.perf_counter()
                records = read_label_file(files[n])
                read_s = time.perf_counter() - started
                store_labels(store, records, files[n])
                write_s = time.perf_counter() - started - read_s
                total = read_s + write_s
                rate = n / total
                print(f"bulk, {n:>7,} rows, {label}: {total:6.2f} s (read and check {read_s:5.2f} s, store {write_s:5.2f} s)  "
                      f"{rate:9,.0f} rows/s  = {rate / base_rate:6.1f}x the per-row rate")
        store.engine.dispose()


if __name__ == "__main__":
    main()
