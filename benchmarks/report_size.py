"""Size of the HTML report and how long it takes to open: this checkout against a baseline's.

    python benchmarks/report_size.py [--runs 11] [--repeat 5] [--baseline DIR]

A throwaway SQLite database gets ``--runs`` runs of one bundled task made with the offline
defaults (baseline agent, rule-based user) and scored by the offline judge, through the CLI the
way a person makes them. ``vibesearch report --format html`` then writes the report from that one
database twice, each in its own process: with this checkout's code and, with ``--baseline DIR``
(another checkout, e.g. ``git worktree add /tmp/base REV``), with that checkout's code. Printed:
each file's size, the part of it that is ``<script>``, and old / new.

Open time (on by default when Debian's Chromium is at /usr/bin/chromium): both files are opened
from ``file://`` in headless Chromium (Playwright, ``--headless=new``), each ``--repeat`` times in a
fresh page, alternating, timing from navigation until every figure has been drawn (an inline SVG
figure, or a plotly figure's drawing). The medians are printed, and old / new. Nothing is fetched
from the network: the browser is cut off from it (every request not to ``file://`` is aborted and
counted).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASK = "daily-en-japan-heritage-trip"
CHROMIUM = "/usr/bin/chromium"
FIGURES = 4
DRAWN = "(n) => document.querySelectorAll('figure.chart svg, .js-plotly-plot .main-svg').length >= n"


def cli(code: Path, *args: object) -> float:
    """``vibesearch`` with ``code`` on the path, in its own process; seconds it took."""
    env = {**os.environ, "PYTHONPATH": str(code), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *map(str, args)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=code)
    return time.perf_counter() - t0


def open_times(files: dict[str, Path], repeat: int) -> tuple[dict[str, float], int]:
    """Median seconds from navigation to every figure drawn, per file; requests off file://."""
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {name: [] for name in files}
    fetched = 0

    def refuse(route) -> None:
        nonlocal fetched
        if not route.request.url.startswith("file://"):
            fetched += 1
            route.abort()
        else:
            route.continue_()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(repeat):
                for name, path in files.items():  # alternate, so neither always runs on a warm cache
                    page = browser.new_page()
                    page.route("**/*", refuse)
                    t0 = time.perf_counter()
                    page.goto(path.as_uri())
                    page.wait_for_function(DRAWN, arg=FIGURES, timeout=120_000)
                    out[name].append(time.perf_counter() - t0)
                    page.close()
        finally:
            browser.close()
    return {name: statistics.median(ts) for name, ts in out.items()}, fetched


def script_bytes(text: str) -> int:
    return sum(len(m.group(0).encode()) for m in re.finditer(r"<script\b.*?</script>", text, re.S | re.I))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--baseline", type=Path, default=None, help="another vibesearch checkout to compare with")
    ap.add_argument("--open", action=argparse.BooleanOptionalAction, default=Path(CHROMIUM).exists(),
                    help="also time opening the files in headless Chromium")
    ap.add_argument("--repeat", type=int, default=5, help="openings per file for the open time (median)")
    args = ap.parse_args()
    if args.baseline and not (args.baseline / "vibesearch" / "__init__.py").is_file():
        ap.error(f"--baseline {args.baseline}: not a vibesearch checkout (no vibesearch/__init__.py there)")
    codes = {"new": REPO, **({"old": args.baseline.resolve()} if args.baseline else {})}
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        cli(REPO, "run", TASK, "--runs", args.runs, "--json", "--db", db)
        cli(REPO, "score", "--all", "--db", db)
        files = {name: Path(tmp) / f"{name}.html" for name in codes}
        took = {name: cli(code, "report", "--format", "html", "--out", files[name], "--db", db) for name, code in codes.items()}
        texts = {name: f.read_text(encoding="utf-8") for name, f in files.items()}
        times, fetched = open_times(files, args.repeat) if args.open else ({}, 0)
    print(f"{args.runs} offline runs of {TASK}, scored by the offline judge; load average {load:.1f} on {os.cpu_count()} cores")
    for name, text in texts.items():
        size = len(text.encode())
        print(f"{name}: {size:,} bytes ({script_bytes(text) / size:.1%} of it <script>), `report --format html` took {took[name]:.2f} s"
              + (f", opens in {times[name]:.3f} s (median of {args.repeat})" if times else ""))
    if "old" in texts:
        ratio = len(texts["old"].encode()) / len(texts["new"].encode())
        print(f"old / new: size {ratio:.1f}x" + (f", open time {times['old'] / times['new']:.1f}x" if times else ""))
    if times:
        print(f"requests to the network while opening: {fetched}")


if __name__ == "__main__":
    main()
