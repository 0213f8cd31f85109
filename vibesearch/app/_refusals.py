"""The API's refusals and a database outage in the server's log: one line each, never a traceback.

gradio prints the whole traceback of every exception an endpoint raises, a ``gr.Error`` included
(unless it is made with ``print_exception=False``): during a PostgreSQL outage every poll of
``run_status`` printed one, and every refused call (a wrong id, a run that is not yours) did too.
``one_line`` wraps an endpoint: a refusal is logged as one line and handed to gradio without its
traceback; a database that cannot be used (``session.database_unreachable``) is logged once when
it goes away and once when it is back, and each call meanwhile is refused with a line saying so.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import Any, Callable, TypeVar

import gradio as gr

from ..session import database_unreachable

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
UNREACHABLE = "the database cannot be reached now; try again shortly"


class _Outage:
    """Whether the database was last seen away (shared by every endpoint of the process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.down = False

    def went(self, reason: str) -> None:
        with self._lock:
            first, self.down = not self.down, True
        if first:
            log.warning("the database cannot be reached (%s); API calls are refused until it is back", reason)

    def back(self) -> None:
        with self._lock:
            was, self.down = self.down, False
        if was:
            log.warning("the database can be reached again")


OUTAGE = _Outage()


def one_line(fn: F) -> F:
    """``fn`` (an API endpoint) with its refusals and database errors as one line each."""

    @functools.wraps(fn)  # gradio reads the wrapped signature (``__wrapped__``) to describe the API
    def endpoint(*args: Any, **kwargs: Any) -> Any:
        try:
            out = fn(*args, **kwargs)
        except gr.Error as exc:
            log.warning("%s refused: %s", fn.__name__, " ".join(str(exc.message).split())[:300])
            raise gr.Error(exc.message, print_exception=False) from None
        except Exception as exc:
            reason = database_unreachable(exc)
            if reason is None:
                raise
            OUTAGE.went(reason)
            raise gr.Error(UNREACHABLE, print_exception=False) from None
        OUTAGE.back()
        return out

    return endpoint  # type: ignore[return-value]  # functools.wraps keeps the signature mypy cannot see
