"""Pausing the cyclic garbage collector while a great many objects are made that it cannot free.

The collector searches for reference cycles every few hundred new objects, each search walking
what is young, and now and then everything. While a program loads (its modules, the app's
interface: well over a million objects, nearly all of them kept for the process's life) or reads a
large file into plain dicts and lists, those searches walk the same objects again and again and
free almost nothing: on ``python app.py`` they were about a fifth of the start-up's CPU time.
Inside ``collector_paused`` there is no automatic search; afterwards the collector runs as before.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def collector_paused(*, keep: bool = False) -> Iterator[Callable[[], None]]:
    """No automatic search for reference cycles inside the block; yields ``resume``, which ends
    the pause early (a server that serves from inside the block), at most once.

    ``keep``: what was made meanwhile lives as long as the process (modules, an interface), so
    when the pause ends it is moved out of the collector's sight (``gc.freeze``): no later search
    walks it again. Without ``keep`` (objects that are dropped later) the collector finds them as
    usual once it runs again."""
    was_on = gc.isenabled()
    gc.disable()
    ended = False

    def resume() -> None:
        nonlocal ended
        if ended:
            return
        ended = True
        if keep:
            gc.freeze()
        if was_on:
            gc.enable()

    try:
        yield resume
    finally:
        resume()
