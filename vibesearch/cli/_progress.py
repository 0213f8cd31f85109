"""What ``vibesearch run`` shows while a batch runs, at a cost that does not grow with its events.

* Every finished run prints one line (``<task>#<i>  <status> (<termination>)  <n>/<m> stages``),
  on a terminal or not, and nothing is printed per event (``--events`` prints the events).
* On a terminal, a live display sits below those lines: one summary bar over all runs (how many
  are running), and one row per run in flight, at most ``MAX_ROWS`` (a run's row goes when it
  finishes). It is redrawn at most ``REFRESH_PER_SECOND`` times a second, so any number of updates
  between two redraws cost one redraw; the lines of runs finished in between are printed together
  (each print above a live display redraws it).
* Not on a terminal (piped, redirected, a CI log) there is no live display at all.
* ``--json`` (``off``): nothing of this.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn

REFRESH_PER_SECOND = 4
MAX_ROWS = 20  # runs in flight shown as rows (fewer on a short terminal); the summary bar counts the rest


@dataclass
class _Run:
    stages: int
    status: str
    done: int = 0  # stages reached
    row: TaskID | None = None  # None: not shown (no free row)


class BatchProgress:
    """``async with BatchProgress(console, runs=n, off=json) as shown:`` around a batch; its
    ``started``, ``stage`` and ``finished`` are the batch runner's hooks."""

    def __init__(self, console: Console, *, runs: int, off: bool):
        self.console, self.off = console, off
        self.live = not off and console.is_terminal and not console.is_dumb_terminal
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} {task.fields[unit]}"),
            TextColumn("{task.fields[status]}"),
            console=console,
            disable=not self.live,
            refresh_per_second=REFRESH_PER_SECOND,
        )
        self.summary = self.progress.add_task("runs", total=runs, completed=0, unit="finished", status="")
        # the rows, made before the display starts (adding a row redraws at once, updating one does not)
        rows = min(MAX_ROWS, max(1, console.height - 4), runs) if self.live else 0
        self.free = [self.progress.add_task("", total=1, unit="stages", status="", visible=False) for _ in range(rows)]
        self.runs: dict[str, _Run] = {}  # the runs in flight, oldest first
        self.pending: list[str] = []  # lines of finished runs not printed yet (on a terminal)
        self._flusher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> BatchProgress:
        self.progress.__enter__()
        if self.live:
            self._flusher = asyncio.get_running_loop().create_task(self._flush_now_and_then())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
        self._flush()
        self.progress.__exit__(*exc)

    @property
    def wants_events(self) -> bool:
        """Are stage events shown (only the live rows show them)?"""
        return self.live

    def started(self, job: Any) -> None:
        if self.live:
            self.runs[job.key] = _Run(stages=job.task.stage_count(), status="resuming" if job.run_id else "running")
            self._show(job.key)
            self._count()

    def stage(self, job: Any, stage_index: int) -> None:
        run = self.runs.get(job.key)
        if run is not None:
            run.done = stage_index + 1
            if run.row is not None:
                self.progress.update(run.row, completed=run.done)

    def _show(self, key: str) -> None:
        """Give the run a free row, if there is one."""
        if self.free:
            run = self.runs[key]
            run.row = self.free.pop(0)
            self.progress.update(run.row, total=run.stages, completed=run.done, description=key, status=run.status, visible=True)

    def finished(self, job: Any, result: Any) -> None:
        if self.off:
            return
        if job.cut_off:  # what it did until then is stored; --resume continues it
            line = f"{job.key}  interrupted (database unreachable)"
        else:
            line = f"{job.key}  {result.status} ({result.termination})  {result.stages_reached}/{job.task.stage_count()} stages"
        if not self.live:
            self.console.print(line, highlight=False, soft_wrap=True, markup=False)
            return
        self.pending.append(line)  # printed with others at the next tick: each print redraws the display
        run = self.runs.pop(job.key, None)
        if run is not None and run.row is not None:  # its row goes to the oldest run not shown
            self.progress.update(run.row, visible=False)
            self.free.append(run.row)
            waiting = next((key for key, other in self.runs.items() if other.row is None), None)
            if waiting is not None:
                self._show(waiting)
        self.progress.advance(self.summary)
        self._count()

    def _count(self) -> None:
        more = sum(1 for run in self.runs.values() if run.row is None)
        self.progress.update(self.summary, status=f"{len(self.runs)} running" + (f", {more} not shown" if more else ""))

    def _flush(self) -> None:
        if self.pending:
            lines, self.pending = self.pending, []
            self.console.print("\n".join(lines), highlight=False, soft_wrap=True, markup=False)

    async def _flush_now_and_then(self) -> None:
        while True:
            await asyncio.sleep(1 / REFRESH_PER_SECOND)
            self._flush()
