"""The session: the one agent ↔ user loop, resuming interrupted runs, and the batch runner."""

from ..run.result import RunResult
from ._record import RunFields
from ._restore import RunAlreadyEnded
from .loop import run_session
from .resume import ResumeError, config_of_run, resume_run
from .stream import SessionStream, stream_session

__all__ = [
    "RunAlreadyEnded",
    "RunFields",
    "ResumeError",
    "RunResult",
    "SessionStream",
    "config_of_run",
    "resume_run",
    "run_session",
    "stream_session",
]
