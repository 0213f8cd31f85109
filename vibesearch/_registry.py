"""A registry of kinds: one description object per name, registered once (the agents' and the
users' registries are two of them)."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class _Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=_Named)


class KindRegistry(Generic[T]):
    """Descriptions by name; ``order`` (a vocabulary) sorts the listing."""

    def __init__(self, what: str, order: tuple[str, ...]):
        self.what = what
        self.order = order
        self._kinds: dict[str, T] = {}

    def register(self, info: T) -> T:
        """Register ``info`` (once: a second description of the same name is refused)."""
        if info.name in self._kinds and self._kinds[info.name] is not info:
            raise ValueError(f"{self.what} {info.name!r} is registered twice")
        self._kinds[info.name] = info
        return info

    def unregister(self, name: str) -> None:
        """Remove a kind (for tests that register a toy one)."""
        self._kinds.pop(name, None)

    def all(self) -> tuple[T, ...]:
        """Every registered kind: the vocabulary's in its order, then any other in registration order."""
        end = len(self.order)
        return tuple(sorted(self._kinds.values(), key=lambda k: self.order.index(k.name) if k.name in self.order else end))

    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.all())

    def find(self, name: str | None) -> T | None:
        """The description of ``name``, or None (a stored run of a kind no longer registered)."""
        return self._kinds.get(name or "")

    def get(self, name: str | None) -> T:
        """The description of ``name`` (``ValueError`` naming the known kinds for any other)."""
        info = self.find(name)
        if info is None:
            raise ValueError(f"unknown {self.what} {name!r}: expected one of {', '.join(self.names())}")
        return info
