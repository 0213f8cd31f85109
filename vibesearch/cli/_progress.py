"""What ``vibesearch run`` shows while a batch runs, at a cost that does not grow with its events.

* Every finished run prints one line (``<task>#<i>  <status> (<termination>)  <n>/<m> stages``),
  on a terminal or not, and nothing is printed per event (``--events`` prints the events).
* On a terminal, a live display sits below those lines: one summary bar over all runs, and one
  row per run in flight (a run's row goes when its line is printed). It is redrawn at most
  ``REFRESH_PER_SECOND`` times a second, so any number of updates between two redraws cost one
  redraw.
* Not on a terminal (piped, redirected, a CI log) there is no live display at all.
* ``--json`` (``off``): nothing of this.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn

REFRESH_PER_SECOND = 4


class BatchProgress:
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
        self.rows: dict[str, TaskID] = {}

    def __enter__(self) -> BatchProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    @property
    def wants_events(self) -> bool:
        """Are stage events shown (only the live rows show them)?"""
        return self.live

    def started(self, job: Any) -> None:
        if self.live:
            self.rows[job.key] = self.progress.add_task(
                job.key, total=job.task.stage_count(), completed=0, unit="stages", status="resuming" if job.run_id else "running"
            )

    def stage(self, job: Any, stage_index: int) -> None:
        row = self.rows.get(job.key)
        if row is not None:
            self.progress.update(row, completed=stage_index + 1)

    def finished(self, job: Any, result: Any) -> None:
        if self.off:
            return
        row = self.rows.pop(job.key, None)
        if row is not None:
            self.progress.remove_task(row)
        self.progress.advance(self.summary)
        if job.cut_off:  # what it did until then is stored; --resume continues it
            line = f"{job.key}  interrupted (database unreachable)"
        else:
            line = f"{job.key}  {result.status} ({result.termination})  {result.stages_reached}/{job.task.stage_count()} stages"
        self.console.print(line, highlight=False, soft_wrap=True, markup=False)
