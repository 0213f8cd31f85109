"""Loading gradio without the two parts of its import that the app never uses.

Measured with ``python -X importtime`` and cProfile on gradio 6 (``benchmarks/app_startup.py`` has
the figures), about half of ``import gradio`` went to two things:

* **Stub files rewritten on every import.** Each component class gradio defines goes through its
  metaclass, which reads the class's source file, parses it and its ``.pyi`` beside it with ``ast``,
  and writes the ``.pyi`` back when it differs (``gradio.component_meta.create_or_modify_pyi``).
  That keeps type stubs in step while gradio's own developers edit components; in an installed copy
  the stubs ship with the wheel, and the parsing changes nothing the program can see.
* **The MCP server's classes.** When the ``mcp`` package is installed (we need it: the openclaw
  agent's bridge), ``gradio.mcp`` imports its server and types at import time, for an MCP server
  the app never turns on.

``install()`` (called when ``vibesearch.app`` is imported, before any module of it imports gradio)
puts a finder in front of ``sys.meta_path`` that acts on those two modules only, as they load:

* after ``gradio.component_meta`` runs, its stub writer is replaced by a function doing nothing;
* while ``gradio.mcp`` runs, ``import mcp`` fails, which gradio expects (it guards the import and
  raises only when an MCP server is asked for). ``mcp`` is importable again right after, so our own
  bridge loads it as before. With ``GRADIO_MCP_SERVER`` set, the finder leaves ``gradio.mcp`` alone.

Nothing else about gradio changes, and when gradio is already imported this does nothing.

``one_server_app(demo)`` is for building the interface: gradio makes a whole server app (FastAPI
routes, each with its parameters' validators) for a Blocks when it is created, on every ``queue()``
and when its ``with`` block ends, and again in ``launch()``, which replaces all the earlier ones.
Inside it, the two made while ``build_app`` runs (its ``queue()`` and the block's end) are skipped:
the Blocks keeps the app it was created with until ``launch()`` makes the one that serves.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any, Iterator, Sequence

_STUBS = "gradio.component_meta"
_MCP_MODULE = "gradio.mcp"
_TRUE = {"1", "true", "yes", "on"}


def no_stub_files(*_args: Any, **_kwargs: Any) -> None:
    """Stands in for gradio's ``create_or_modify_pyi``: the installed stubs are left as they are."""
    return None


def _wants_mcp_server() -> bool:
    return os.environ.get("GRADIO_MCP_SERVER", "").strip().lower() in _TRUE


class _GradioTrim:
    """A meta-path finder for ``gradio.component_meta`` and ``gradio.mcp``; every other name goes to
    the finders after it."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name == _STUBS:
            after = _without_stub_writer
        elif name == _MCP_MODULE and not _wants_mcp_server():
            after = None
        else:
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if after is None:
                _run_without_mcp(run, module)
            else:
                run(module)
                after(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # this one spec's loader, made for this import
        return spec


def _without_stub_writer(module: ModuleType) -> None:
    if hasattr(module, "create_or_modify_pyi"):
        module.create_or_modify_pyi = no_stub_files  # type: ignore[attr-defined]  # checked just above


def _run_without_mcp(run: Any, module: ModuleType) -> None:
    if "mcp" in sys.modules:  # already loaded (the openclaw bridge first): nothing left to save
        run(module)
        return
    sys.modules["mcp"] = None  # type: ignore[assignment]  # None here makes ``import mcp`` raise ImportError
    try:
        run(module)
    finally:
        if sys.modules.get("mcp", False) is None:
            del sys.modules["mcp"]


_FINDER = _GradioTrim()


def install() -> None:
    """Put the finder in place unless gradio is loaded already (then there is nothing to trim)."""
    if "gradio" in sys.modules or any(f is _FINDER for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _FINDER)


@contextmanager
def one_server_app(demo: Any) -> Iterator[None]:
    """While inside, gradio's ``App.create_app`` called for ``demo`` alone with no settings (what
    ``queue()`` and a ``with`` block's end do) leaves ``demo.app`` as it is; any other call, and
    every call for another Blocks, goes to gradio as before."""
    from gradio import blocks as gradio_blocks

    app_class: Any = gradio_blocks.App  # a class of gradio's whose static method is swapped for the build
    real = app_class.__dict__["create_app"]  # the staticmethod object itself, put back as found

    def create_app(blocks: Any, *args: Any, **kwargs: Any) -> Any:
        if blocks is demo and not args and set(kwargs) <= {"mcp_server"} and getattr(demo, "app", None) is not None:
            return demo.app
        return real.__func__(blocks, *args, **kwargs)

    app_class.create_app = staticmethod(create_app)  # for the build only; put back below
    try:
        yield
    finally:
        app_class.create_app = real
