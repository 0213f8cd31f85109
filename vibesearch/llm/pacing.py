"""Pacing beyond one call: when a provider answers "429 too many requests", the callers that share
a pacer wait out the back-off before their next call to that provider, instead of each finding the
limit again on its own.

``complete()`` asks the pacer in ``PACER`` (a context variable; None, the default, paces nothing)
before every attempt (``wait``) and tells it of every rate-limit answer with the back-off it is
about to sleep (``backed_off``). A queue worker sets a pacer that keeps the back-off in the shared
database (``runner._pacing.SharedPacer``), so one worker's 429 backs the provider off for every
worker on every host. A provider is the first part of the litellm model string (``provider_of``).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol


class Pacer(Protocol):
    async def wait(self, provider: str) -> None:
        """Return once a call to ``provider`` may go out."""

    async def backed_off(self, provider: str, seconds: float) -> None:
        """``provider`` answered 429: no call to it for ``seconds`` from now."""


PACER: ContextVar[Pacer | None] = ContextVar("vibesearch_pacer", default=None)


def provider_of(model: str) -> str:
    """The provider a litellm model string names (``openai/gpt-4o`` → ``openai``; a bare name is its own)."""
    return model.split("/", 1)[0] if "/" in model else model
