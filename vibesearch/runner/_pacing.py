"""The queue workers' shared pacing (``llm.pacing``): a provider's back-off after a 429 is a row of
``provider_backoff`` in the shared database, so every worker on every host waits it out.

* ``backed_off``: the row's ``until`` moves to now + the back-off (never earlier than it was), and
  this process knows at once;
* ``wait``: before each call, a process reads the rows at most every ``READ_EVERY_S`` (one query
  for all its runs, not one per call) and sleeps while the provider's ``until`` lies ahead.

A worker whose database is away paces on what it last read (a read that fails is tried again at
the next call); the back-off is advice on top of each call's own retries, never a reason to fail.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..store import Store

READ_EVERY_S = 0.5
log = logging.getLogger(__name__)


class SharedPacer:
    """One process's view of the shared back-offs (``llm.pacing.Pacer``)."""

    def __init__(self, store: Store, *, read_every_s: float = READ_EVERY_S):
        self.store = store
        self.read_every_s = read_every_s
        self._until: dict[str, float] = {}
        self._read_at = float("-inf")
        self._lock = asyncio.Lock()

    async def _refresh(self) -> None:
        async with self._lock:
            if time.monotonic() - self._read_at < self.read_every_s:
                return
            try:
                rows = await asyncio.to_thread(self.store.backoffs)
            except Exception as exc:  # noqa: BLE001 - pacing is advice: keep what was last read
                log.warning("the providers' back-offs could not be read (%s); pacing on what was read before", type(exc).__name__)
            else:
                for provider, until in rows.items():
                    self._until[provider] = max(until, self._until.get(provider, 0.0))
            self._read_at = time.monotonic()

    async def wait(self, provider: str) -> None:
        await self._refresh()
        while (ahead := self._until.get(provider, 0.0) - time.time()) > 0:
            await asyncio.sleep(min(ahead, self.read_every_s))
            await self._refresh()

    async def backed_off(self, provider: str, seconds: float) -> None:
        now = time.time()
        until = now + max(0.0, seconds)
        self._until[provider] = max(until, self._until.get(provider, 0.0))
        try:
            await asyncio.to_thread(self.store.back_off, provider, until)
        except Exception as exc:  # noqa: BLE001 - the others will find the limit themselves
            log.warning("the back-off of %s could not be shared (%s)", provider, type(exc).__name__)
