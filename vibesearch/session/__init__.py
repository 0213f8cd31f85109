"""The session: the one agent ↔ user loop, resuming interrupted runs, and the batch runner."""

from ._record import RunResult
from ._restore import RunAlreadyEnded
from .loop import SessionStream, run_session, stream_session
from .resume import ResumeError, resume_run

__all__ = ["RunAlreadyEnded", "ResumeError", "RunResult", "SessionStream", "resume_run", "run_session", "stream_session"]
