"""Byte size of the HTML report: one copy of plotly.js per report against one per figure, same run.

    python benchmarks/report_size.py [--tasks 20] [--runs 3]

A throwaway SQLite database gets two configurations (a model agent and the offline baseline),
``--tasks`` tasks of 12 ground-truth triples and ``--runs`` runs per task and configuration, each
scored by the offline judge. ``vibesearch.reports`` builds the report and renders it as HTML the
way ``vibesearch report --format html`` does: plotly.js written once in the head, every figure
with ``include_plotlyjs=False``. The other layout, every figure carrying its own copy of the
library (``include_plotlyjs=True`` per figure), is rendered from the same figures in the same
process, and its size is that report with each figure swapped for its self-contained version.
Printed: both sizes in bytes, the old / new ratio, the figures, and how long each rendering took.

Open time (``--open``, on by default when Debian's Chromium is at /usr/bin/chromium): both files
are written to disk and opened from ``file://`` in headless Chromium (Playwright), each ``--repeat``
times in a fresh page, timing from navigation until every figure has been drawn (each figure's
div holds plotly's drawing). The median of each is printed, and old / new.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

GT = [{"head": f"h{i}", "relation": "r", "tail": f"t{i}"} for i in range(12)]


def task(task_id: str, subset: str, language: str) -> dict:
    return {"id": task_id, "subset": subset, "language": language, "graph": GT, "extra": {},
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]}}


def fill(store, tasks: int, runs: int) -> None:
    from vibesearch.run import EndEvent, GraphEvent, MessageEvent, UsageEvent
    from vibesearch.scoring import score_run

    for t in range(tasks):
        subset, language = ("pro", "en") if t % 2 else ("daily", "zh")
        for agent, model in (("react", "fake/bench"), ("baseline", None)):
            for k in range(runs):
                run = store.create_run(f"bench-{t}", task_json=task(f"bench-{t}", subset, language), status="finished",
                                       agent=agent, agent_model=model, user="rules")
                store.append(run.id, MessageEvent(role="user", content="q"))
                if model:
                    store.append(run.id, UsageEvent(purpose="agent", model=model, input_tokens=900, output_tokens=90, cost_usd=0.002))
                store.append(run.id, MessageEvent(role="assistant", content="a", final=True))
                store.append(run.id, GraphEvent(triples=GT[: (t * 7 + k * 5) % 13]))
                store.append(run.id, EndEvent(termination="max_user_turns"))
                score_run(store, run.id)


CHROMIUM = "/usr/bin/chromium"
DRAWN = "(n) => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n"


def open_times(files: dict[str, Path], figures: int, repeat: int) -> dict[str, float]:
    """Median seconds from navigation to every figure drawn, per file (fresh page each time)."""
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {name: [] for name in files}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(repeat):
                for name, path in files.items():  # alternate, so neither always runs on a warm cache
                    page = browser.new_page()
                    t0 = time.perf_counter()
                    page.goto(path.as_uri())
                    page.wait_for_function(DRAWN, arg=figures, timeout=120_000)
                    out[name].append(time.perf_counter() - t0)
                    page.close()
        finally:
            browser.close()
    return {name: statistics.median(ts) for name, ts in out.items()}


def main() -> None:
    import plotly.io as pio

    from vibesearch.reports import build_report, render
    from vibesearch.reports.html import _figures, plotly_script
    from vibesearch.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--open", action=argparse.BooleanOptionalAction, default=Path(CHROMIUM).exists(),
                    help="also time opening both files in headless Chromium")
    ap.add_argument("--repeat", type=int, default=5, help="openings per file for the open time (median)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        fill(store, args.tasks, args.runs)
        report = build_report(store)
        t0 = time.perf_counter()
        new = render(report, "html").encode()
        t_new = time.perf_counter() - t0
        t0 = time.perf_counter()
        figures = _figures(report)
        lean = sum(len(pio.to_html(f, full_html=False, include_plotlyjs=False, div_id=d).encode()) for d, f in figures)
        whole = sum(len(pio.to_html(f, full_html=False, include_plotlyjs=True, div_id=d).encode()) for d, f in figures)
        t_old = time.perf_counter() - t0
        old = len(new) - len(plotly_script().encode()) - lean + whole
        times = None
        if args.open:
            # the old layout as a file: the one library copy out, each figure with its own copy
            text = new.decode()
            text = text.replace(plotly_script(), "", 1)
            for d, f in figures:
                text = text.replace(pio.to_html(f, full_html=False, include_plotlyjs=False, div_id=d),
                                    pio.to_html(f, full_html=False, include_plotlyjs=True, div_id=d), 1)
            files = {"old": Path(tmp) / "old.html", "new": Path(tmp) / "new.html"}
            files["old"].write_text(text)
            files["new"].write_bytes(new)
            times = open_times(files, len(figures), args.repeat)
    print(f"runs in the report: {report['n_runs']} ({args.tasks} tasks x {args.runs} runs x 2 configurations), figures: {len(figures)}")
    print(f"one plotly.js per figure (old): {old:,} bytes  (figures rendered in {t_old:.2f} s)")
    print(f"one plotly.js per report (new): {len(new):,} bytes  (report rendered in {t_new:.2f} s)")
    print(f"old / new: {old / len(new):.2f}x")
    if times:
        print(f"open in headless Chromium until every figure is drawn (median of {args.repeat}): "
              f"old {times['old']:.2f} s, new {times['new']:.2f} s, old / new {times['old'] / times['new']:.2f}x")


if __name__ == "__main__":
    main()
