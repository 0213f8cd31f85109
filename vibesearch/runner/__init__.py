"""The runner: what drives sessions — a batch here, queued batches on workers, resuming a run,
closing runs whose driver is gone (see README.md in this folder)."""

from ._pacing import SharedPacer
from .batch import BatchSpec, run_batch
from .orphans import close_orphaned, is_orphaned, stop_idle_run
from .resume import ResumeError, config_of_run, resume_run, run_task

__all__ = [
    "BatchSpec",
    "ResumeError",
    "close_orphaned",
    "config_of_run",
    "is_orphaned",
    "resume_run",
    "run_batch",
    "run_task",
    "stop_idle_run",
    "SharedPacer",
]
