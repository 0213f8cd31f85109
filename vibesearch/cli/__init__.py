"""The command line (``vibesearch ...``): ``main`` builds the Typer app from one module per command.

The helpers of its ``_x`` modules that are worth naming outside them are exported here
(``_EXPORTS``) and imported only when asked for, so importing ``vibesearch.cli`` loads no command."""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "printable": "._common",  # text made safe to print on a terminal
    "counts_line": "._counts",  # a run's counts on one line
    "stage_panel": "._play",  # the stage card `vibesearch play` shows
    "resolve_tasks": "._resolve",  # tasks named by paths or ids
    "wrap_lines": "._task_view",  # a task's text wrapped for a narrow terminal
    # an option's help read from the RunConfig field it sets
    **dict.fromkeys(["field_help", "field_path", "shown_help"], "._help"),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [*_EXPORTS]
