"""The session: the one agent ↔ user loop, its recorder, restoring a run from its events, the run
lifecycle and the run's lease. What drives sessions (batches, queue workers, resuming, orphans)
lives above it, in ``vibesearch.runner``."""

from ..run.result import RunResult
from ._event_writer import WRITERS as EVENT_WRITERS
from ._lease import Driving
from ._outage import database_unreachable
from ._record import Listener, Recorder, RunFields, only
from ._restore import RunAlreadyEnded
from .loop import run_session
from .stream import SessionStream, stream_session

__all__ = [
    "EVENT_WRITERS",
    "Driving",
    "Listener",
    "only",
    "RunAlreadyEnded",
    "RunFields",
    "RunResult",
    "SessionStream",
    "database_unreachable",
    "run_session",
    "stream_session",
    "Recorder",
]
