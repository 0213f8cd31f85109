"""A 429 backs its provider off for everyone sharing the database: two workers' pacers
(``runner._pacing.SharedPacer``, each on a Store of its own, as two hosts have) around real
``complete()`` calls to a fake model that answers the first call with 429. The second worker's
call waits until the back-off the first one stored; without pacers it goes out at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from vibesearch.config import Settings
from vibesearch.llm import fake
from vibesearch.llm.client import complete
from vibesearch.llm.pacing import PACER, provider_of
from vibesearch.runner import SharedPacer
from vibesearch.store import Store, upgrade_database


class Storm:
    """Answers 429 to the first call, then "ok"; notes when each call arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.limited = asyncio.Event()

    def __call__(self, req: fake.Request) -> fake.Reply:
        self.arrivals.append(time.time())
        if len(self.arrivals) == 1:
            self.limited.set()
            return fake.Reply(error="429")
        return fake.Reply(content="ok")


async def _call(settings: Settings, pacer: SharedPacer | None) -> None:
    token = PACER.set(pacer)
    try:
        await complete([{"role": "user", "content": "hi"}], model="fake/storm", purpose="agent", settings=settings)
    finally:
        PACER.reset(token)


@pytest.fixture
def stores(db_url):
    if not db_url.startswith("postgresql"):
        upgrade_database(db_url)
    first, second = Store(db_url), Store(db_url)  # two workers' connections
    yield first, second
    for s in (first, second):
        s.engine.dispose()


@pytest.mark.parametrize("paced", [True, False])
async def test_one_workers_429_holds_back_the_other_worker(stores, tmp_path, paced):
    storm = Storm()
    fake.register("storm", storm)
    settings = Settings(db=tmp_path / "unused.db", llm_backoff_s=1.6, llm_backoff_max_s=1.6, llm_retries=3)  # a back-off of 0.8–1.6 s
    first, second = stores
    pacers = (SharedPacer(first), SharedPacer(second)) if paced else (None, None)
    a = asyncio.ensure_future(_call(settings, pacers[0]))
    await asyncio.wait_for(storm.limited.wait(), 30)
    if paced:  # the first worker shares its back-off before it sleeps
        deadline = time.monotonic() + 30
        while provider_of("fake/storm") not in second.backoffs():
            assert time.monotonic() < deadline, "the back-off never reached the database"
            await asyncio.sleep(0.01)
    asked = time.time()
    await _call(settings, pacers[1])
    await a
    until = first.backoffs().get("fake") if paced else None
    arrivals = sorted(storm.arrivals)
    assert len(arrivals) == 3
    if paced:
        assert until is not None and until - asked > 0.5  # the back-off lay ahead when the second worker asked
        assert min(arrivals[1:]) >= until - 0.01  # neither worker called the provider before it ended
    else:
        assert min(arrivals[1:]) - asked < 0.6  # unpaced, the second worker's call went out at once
