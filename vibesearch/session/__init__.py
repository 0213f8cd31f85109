"""The session: the one agent ↔ user loop, resuming interrupted runs, and the batch runner."""

from ..run.result import RunResult
from ._record import RunFields
from ._restore import RunAlreadyEnded
from .loop import run_session
from .orphans import close_orphaned, is_orphaned, stop_idle_run
from .resume import ResumeError, config_of_run, resume_run
from .stream import SessionStream, stream_session

__all__ = [
    "RunAlreadyEnded",
    "RunFields",
    "ResumeError",
    "RunResult",
    "SessionStream",
    "close_orphaned",
    "config_of_run",
    "is_orphaned",
    "resume_run",
    "run_session",
    "stop_idle_run",
    "stream_session",
]
