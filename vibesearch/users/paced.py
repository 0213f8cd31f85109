"""A simulated user that waits before each turn, so a person can watch the run (``RunConfig.pace_s``).

The wait falls between the agent's reply and the user's answer; it counts in the run's wall time.
Everything else is the wrapped user's.
"""

from __future__ import annotations

import asyncio

from ..run import Conversation, User, UserState, UserTurn


class PacedUser:
    def __init__(self, user: User, pace_s: float):
        self.inner = user
        self.pace_s = pace_s

    @property
    def kind(self) -> str:
        return self.inner.kind

    @property
    def model(self) -> str | None:
        return self.inner.model

    async def opening(self, state: UserState) -> UserTurn:
        return await self.inner.opening(state)

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        await asyncio.sleep(self.pace_s)
        return await self.inner.next_turn(convo, state)
