"""The API's refusals and a database outage in the server's log: one line each, never a traceback.

gradio prints the whole traceback of every exception an endpoint raises, a ``gr.Error`` included
(unless it is made with ``print_exception=False``): during a PostgreSQL outage every poll of
``run_status`` printed one, and every refused call (a wrong id, a run that is not yours) did too.
``one_line`` wraps an endpoint: a refusal is logged as one line and handed to gradio without its
traceback; a database that cannot be used (``session.database_unreachable``) is logged once when
it goes away and once when it is back, and each call meanwhile is refused with a line saying so.
``quiet_refusals`` does the same for every handler of the page (the tabs' buttons, timers and
loads, ``app/ui.py`` applies it once): a ``gr.Error`` is one line, and so is each call a database
outage refuses (the outage's begin/end lines stay the API's, which alone knows it is back).
A page handler's refusal reaches a Chinese browser in Chinese where it is one of the page's fixed
refusals (``_words_drawn.REFUSALS``; the request is the one Gradio is answering).
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

import gradio as gr

from ..session import database_unreachable
from ._words import browser_lang, zh_text

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


def _worded(message: Any) -> Any:
    """A refusal in the language of the browser being answered (the log keeps the English)."""
    from gradio.context import LocalContext

    return zh_text(message, browser_lang(LocalContext.request.get(None))) if isinstance(message, str) else message


def _quiet(name: str, exc: Exception) -> gr.Error | None:
    """The refusal a page handler's ``exc`` becomes, logged in one line; None: not a refusal (a
    bug: gradio prints its traceback)."""
    if isinstance(exc, gr.Error):
        if exc.print_exception:  # (one already quiet was logged where it was made quiet)
            log.warning("%s refused: %s", name, " ".join(str(exc.message).split())[:300])
        return gr.Error(_worded(exc.message), duration=exc.duration, visible=exc.visible, title=exc.title, print_exception=False)
    reason = database_unreachable(exc)
    if reason is None:
        return None
    log.warning("%s refused: the database cannot be reached (%s)", name, reason)
    return gr.Error(_worded(UNREACHABLE), print_exception=False)


@contextmanager
def _refusals_of(name: str) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        refusal = _quiet(name, exc)
        if refusal is None:
            raise
        raise refusal from None


def quiet(fn: F) -> F:
    """``fn`` (a page handler: a function, a generator or a coroutine) with its refusals as one line."""
    name = getattr(fn, "__name__", "handler")
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen(*args: Any, **kwargs: Any) -> Any:
            with _refusals_of(name):
                return (yield from fn(*args, **kwargs))
        return gen  # type: ignore[return-value]  # (as ``one_line``)
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def coro(*args: Any, **kwargs: Any) -> Any:
            with _refusals_of(name):
                return await fn(*args, **kwargs)
        return coro  # type: ignore[return-value]  # (as ``one_line``)
    if inspect.isasyncgenfunction(fn):
        return fn  # (the app has none; one would keep its tracebacks)

    @functools.wraps(fn)
    def handler(*args: Any, **kwargs: Any) -> Any:
        with _refusals_of(name):
            return fn(*args, **kwargs)
    return handler  # type: ignore[return-value]  # (as ``one_line``)


def quiet_refusals(blocks: gr.Blocks) -> None:
    """Every handler of ``blocks`` with its refusals as one line each (``quiet``)."""
    for block_fn in blocks.fns.values():
        if block_fn.fn is not None:
            block_fn.fn = quiet(block_fn.fn)
