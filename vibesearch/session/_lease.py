"""Holding a lease while driving a run or a batch (the table and its SQL: ``store.leases``).

``async with Driving(store, key, what, settings) as lease`` claims the lease (``LeaseHeld`` when
another live process holds it), renews it from a background task every third of
``settings.lease_ttl_s`` and releases it on the way out. When a renewal finds the lease taken
over (this process stalled past the expiry and another one claimed it), the task that entered
the block is cancelled and the block raises ``LeaseLost``: the driver stops without writing, and
the event writer refuses its writes anyway (it checks the lease in the same statement).
With ``cancel_on_loss=False`` (a batch) the holder only learns it through ``lost``/``still_held``.
``owner``: adopt a lease claimed earlier under that owner id (``lifecycle.open_run`` claims one for
the driver that takes the run over); a new owner id otherwise. ``claimed_at`` (``time.time()`` of
that claim): a lease claimed less than a heartbeat's interval ago is adopted without claiming it
again, as a renewal that recent is not repeated by ``still_held`` (at 200 runs starting at once
those were two statements of every run's start, one of them on the batch's single row).

A renewal or the release that fails is not fatal: the lease is renewed at the next beat, or
expires ``lease_ttl_s`` later. When the database went away that is logged at DEBUG only (the
run's next write fails too, and whoever drives the run reports it in one line); any other
failure is one warning line. The traceback is logged at DEBUG either way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, TypeVar

from ..config import Settings
from ..store import Store
from ..store.leases import LeaseHeld, LeaseLost, claim, holder, new_owner, release, renew
from ._outage import database_unreachable

log = logging.getLogger(__name__)
T = TypeVar("T")


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
        claimed_at: float | None = None,
    ):
        self.store, self.key, self.what, self.doing = store, key, what, doing
        self.cancel_on_loss = cancel_on_loss
        self.ttl = float(settings.lease_ttl_s)
        self.owner = owner or new_owner()
        self.lost = False
        self._beat: asyncio.Task[None] | None = None
        self._driver: asyncio.Task[Any] | None = None
        self._cancelled = False
        self.adopted_fresh = False
        self._held_at = claimed_at if owner is not None else None  # time.time() of the last claim or renewal known to hold
        self._let_go = False  # released by the driver's own last write (``let_go_with_last_write``)

    def _fresh(self) -> bool:
        """Held for sure: claimed or renewed less than a heartbeat's interval ago (another process
        can take it only once it has expired, a whole ``ttl`` after that)."""
        return self._held_at is not None and time.time() - self._held_at < self._interval()

    def _interval(self) -> float:
        return max(0.05, self.ttl / 3)

    def check(self) -> None:
        """Raise ``LeaseLost`` once the lease is known to be lost."""
        if self.lost:
            raise LeaseLost(self.what, holder(self.store, self.key))

    async def still_held(self) -> bool:
        """Renew now (unless renewed within a heartbeat's interval); False (and ``lost``) when
        another process took the lease."""
        if self.lost or self._fresh():
            return not self.lost
        at = time.time()
        if await asyncio.to_thread(renew, self.store, self.key, self.owner, self.ttl):
            self._held_at = at
        else:
            self.lost = True
        return not self.lost

    async def __aenter__(self) -> "Driving":
        self.adopted_fresh = self._fresh()  # nobody else can have touched what it guards since that claim
        if not self.adopted_fresh:
            at = time.time()
            taken = await asyncio.to_thread(claim, self.store, self.key, self.owner, self.ttl)
            if taken is not None:
                raise LeaseHeld(self.what, taken, self.doing)
            self._held_at = at
        self._driver = asyncio.current_task()
        self._beat = asyncio.ensure_future(self._heartbeat())
        return self

    async def _stop_beat(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            try:
                await self._beat
            except BaseException:  # noqa: BLE001 - the heartbeat's end is of no interest
                pass

    async def let_go_with_last_write(self, write: Callable[[bool], T]) -> T:
        """Run the driver's last write in a worker thread, letting the lease go in the same
        transaction: ``write(release)`` with ``release`` True unless the lease was lost. The
        heartbeat stops first (a renewal after the release would find the lease gone and take
        it for lost); when the write raises, the lease is released on the way out as usual."""
        await self._stop_beat()
        release = not self.lost
        done = await asyncio.to_thread(write, release)
        self._let_go = release
        return done

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        await self._stop_beat()
        if not self.lost and not self._let_go:
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
        interval = self._interval()
        while True:
            await asyncio.sleep(interval)
            at = time.time()
            try:
                ok = await asyncio.to_thread(renew, self.store, self.key, self.owner, self.ttl)
            except Exception as exc:  # noqa: BLE001 - try again next beat; the writer's check stays safe
                _trouble(f"could not renew the lease {self.key}", exc)
                continue
            if ok:
                self._held_at = at
                continue
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
