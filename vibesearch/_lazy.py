"""Names a package exports without importing them when the package is imported (PEP 562).

For a package whose ``__init__`` stays light on purpose (``app`` never loads gradio, ``cli`` never
loads its commands, until a caller asks): ``from vibesearch.app import Access`` imports
``vibesearch.app._access`` then, and only then.
"""

from __future__ import annotations

from typing import Any, Callable


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``where`` maps each exported name to the module
    (relative to ``package``, e.g. ``"._access"``) that defines it."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib  # here: importing the package itself stays as light as before

        return getattr(importlib.import_module(module, package), name)

    return __getattr__
