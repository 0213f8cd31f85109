"""Text put into a plotly figure (hover text, tick labels, legend names, annotations).

Plotly reads a few HTML-like tags in these strings (``<br>``, ``<b>``, ``<a href=…>`` among them)
and turns entities back into characters. Text from tasks, agents and model names is passed
through ``plot_text`` so that a ``<a href=…>`` in a task's relation is shown as written, never
drawn as a link; the figure's own ``<br>`` is added after."""

from __future__ import annotations


def plot_text(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
