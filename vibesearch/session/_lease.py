"""Holding a lease while driving a run or a batch (the table and its SQL: ``store.leases``).

``async with Driving(store, key, what, settings) as lease`` claims the lease (``LeaseHeld`` when
another live process holds it), renews it from a background task every third of
``settings.lease_ttl_s`` and releases it on the way out. When a renewal finds the lease taken
over (this process stalled past the expiry and another one claimed it), the task that entered
the block is cancelled and the block raises ``LeaseLost``: the driver stops without writing, and
the event writer refuses its writes anyway (it checks the lease in the same statement).
With ``cancel_on_loss=False`` (a batch) the holder only learns it through ``lost``/``still_held``.
``owner``: adopt a lease claimed earlier under that owner id (``lifecycle.open_run`` claims one for
the driver that takes the run over); a new owner id otherwise.

A renewal or the release that fails is not fatal: the lease is renewed at the next beat, or
expires ``lease_ttl_s`` later. When the database went away that is logged at DEBUG only (the
run's next write fails too, and whoever drives the run reports it in one line); any other
failure is one warning line. The traceback is logged at DEBUG either way.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..config import Settings
from ..store import Store
from ..store.leases import LeaseHeld, LeaseLost, claim, holder, new_owner, release, renew
from ._outage import database_unreachable

log = logging.getLogger(__name__)


class Driving:
    def __init__(
        self,
        store: Store,
        key: str,
        what: str,
        settings: Settings,
        *,
        cancel_on_loss: bool = True,
        doing: str = "driven",
        owner: str | None = None,
    ):
        self.store, self.key, self.what, self.doing = store, key, what, doing
        self.cancel_on_loss = cancel_on_loss
        self.ttl = float(settings.lease_ttl_s)
        self.owner = owner or new_owner()
        self.lost = False
        self._beat: asyncio.Task[None] | None = None
        self._driver: asyncio.Task[Any] | None = None
        self._cancelled = False

    def check(self) -> None:
        """Raise ``LeaseLost`` once the lease is known to be lost."""
        if self.lost:
            raise LeaseLost(self.what, holder(self.store, self.key))

    async def still_held(self) -> bool:
        """Renew now; False (and ``lost``) when another process took the lease."""
        if not self.lost and not await asyncio.to_thread(renew, self.store, self.key, self.owner, self.ttl):
            self.lost = True
        return not self.lost

    async def __aenter__(self) -> "Driving":
        taken = await asyncio.to_thread(claim, self.store, self.key, self.owner, self.ttl)
        if taken is not None:
            raise LeaseHeld(self.what, taken, self.doing)
        self._driver = asyncio.current_task()
        self._beat = asyncio.ensure_future(self._heartbeat())
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if self._beat is not None:
            self._beat.cancel()
            try:
                await self._beat
            except BaseException:  # noqa: BLE001 - the heartbeat's end is of no interest
                pass
        if not self.lost:
            try:
                await asyncio.to_thread(release, self.store, self.key, self.owner)
            except Exception as exc:  # noqa: BLE001 - an unreleased lease simply expires
                _trouble(f"could not release the lease {self.key} (it expires within {self.ttl:g} s)", exc)
        if self.lost:
            if self._cancelled and self._driver is not None:
                self._driver.uncancel()  # the cancellation was ours: it becomes LeaseLost
            if not self.cancel_on_loss:
                return  # the exception (if any) goes on
            if exc_type is None or issubclass(exc_type, (asyncio.CancelledError, LeaseLost)):
                raise LeaseLost(self.what, holder(self.store, self.key)) from None

    async def _heartbeat(self) -> None:
        interval = max(0.05, self.ttl / 3)
        while True:
            await asyncio.sleep(interval)
            try:
                ok = await asyncio.to_thread(renew, self.store, self.key, self.owner, self.ttl)
            except Exception as exc:  # noqa: BLE001 - try again next beat; the writer's check stays safe
                _trouble(f"could not renew the lease {self.key}", exc)
                continue
            if not ok:
                self.lost = True
                log.warning("%s: lease lost; stopping", self.what)
                if self.cancel_on_loss and self._driver is not None and not self._driver.done():
                    self._cancelled = True
                    self._driver.cancel()
                return


def _trouble(what: str, exc: BaseException) -> None:
    """Log a failed lease operation: the details at DEBUG, and a warning line unless the database
    is simply out of reach."""
    log.debug("%s", what, exc_info=exc)
    if database_unreachable(exc) is None:
        log.warning("%s: %s", what, f"{type(exc).__name__}: {exc}".splitlines()[0])
