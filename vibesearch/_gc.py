"""Pausing the cyclic garbage collector while a great many objects are made that it cannot free.

The collector searches for reference cycles every few hundred new objects, each search walking
what is young, and now and then everything. While a program loads (its modules, the app's
interface: well over a million objects, nearly all of them kept for the process's life) or reads a
large file into plain dicts and lists, those searches walk the same objects again and again and
free almost nothing: on ``python app.py`` they were about a fifth of the start-up's CPU time.
Inside ``collector_paused`` there is no automatic search; afterwards the collector runs as before.

``settle`` is for a process about to drive runs (``vibesearch run``, a worker): what it made while
starting (modules, tasks, corpora, agents) stays, so the full searches that come every few
thousand new objects need not walk it again. On the endpoint path one such search of a
harness-sized process took about 0.2 s, paid on whatever model call happened to trigger it.
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


def settle() -> None:
    """Everything the process holds now lives as long as it does: no later search for cycles
    walks it (``gc.freeze``). Objects made afterwards are collected as usual, and frozen ones are
    still freed when nothing refers to them any more (only cycles among them would stay)."""
    gc.freeze()
