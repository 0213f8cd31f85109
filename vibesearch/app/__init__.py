"""The Gradio app: one module per tab (play, runs, label, leaderboard), ``render`` (events → chat
messages, shared by Play and Runs), ``graph_view`` (the graph picture), ``live`` (the run
manager) and ``api`` (endpoints for gradio_client). ``build_app`` / ``launch`` are in ``ui``."""

from __future__ import annotations


def build_app(*args, **kwargs):
    from .ui import build_app as _build

    return _build(*args, **kwargs)


def launch(*args, **kwargs):
    from .ui import launch as _launch

    return _launch(*args, **kwargs)


__all__ = ["build_app", "launch"]
