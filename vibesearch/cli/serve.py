"""``vibesearch serve``: start the Gradio app."""

from __future__ import annotations

from typing import Optional

import typer

from ._common import DbOption, fail, one_line


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""

    @app.command("serve")
    def serve(
        host: Optional[str] = typer.Option(None, "--host", help="Address to listen on (default: VIBESEARCH_HOST or 127.0.0.1)"),
        port: Optional[int] = typer.Option(None, "--port", help="Port (default: VIBESEARCH_PORT or 7860)"),
        db: Optional[str] = DbOption,
    ) -> None:
        """Serve the app: play, replay, label and compare runs in the browser (offline by default)."""
        import os

        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        typer.echo("VibeSearch evaluator: starting… (the address follows when it is ready)")
        from .._gc import collector_paused

        # as ``vibesearch.app.launch`` does: no garbage collection from before gradio is imported
        # until the server answers
        with collector_paused(keep=True) as serving:
            from ..app.ui import auth_pairs, launch
            from ..config import get_settings

            settings = get_settings()
            try:
                auth_pairs(settings)
            except ValueError as exc:
                fail(str(exc))
            if port is not None and not (0 < port < 65536):
                fail(f"--port must be between 1 and 65535, got {port}")
            try:
                launch(settings, host=host, port=port, db=db, on_serving=serving)
            except OSError as exc:  # the port is taken (Gradio: "Cannot find empty port"), or the address is not this machine's
                fail(f"cannot listen on {host or settings.host}:{port or settings.port} (--host/--port, VIBESEARCH_HOST/VIBESEARCH_PORT): {one_line(exc).split('. ')[0]}")
