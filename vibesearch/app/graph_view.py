"""The graph picture on a page: the figure (see ``_graph_figure``) with its controls.

``graph_panel`` adds the plot, a "Show" filter (all triples, missed ground truth only, invalid
predictions only, one entity's neighbourhood) and an entity picker for the neighbourhood. The data
the picture is drawn from stays in the page's state, so changing the filter or the entity redraws
without reading the store again. Gradio's ``gr.Plot`` reports no clicks on the figure, so a small
``gr.HTML`` bridge listens for plotly's click on an entity and sends its node key to the server:
clicking a node focuses on its neighbourhood, as picking it from the list does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..results.graph import (
    COLOURS,
    FILTERS,
    LABELS,
    Edge,
    Verdicts,
    category_counts,
    classify,
    entity_choices,
    norm_entity,
    select,
)
from ._graph_figure import graph_figure
from ._words import Lang, ui_text

if TYPE_CHECKING:
    # for the annotations only: Gradio reads the type hints of every handler it is given
    # (``redraw`` below): ``go.Figure`` named at run time loaded plotly's figure classes (some 70
    # modules, with narwhals) while the app was built, long before any graph is drawn
    import plotly.graph_objects as go

__all__ = [
    "COLOURS", "FILTERS", "LABELS", "Edge", "GraphData", "GraphPanel", "category_counts", "classify",
    "entity_choices", "graph_figure", "graph_panel", "norm_entity", "redraw", "select",
]


@dataclass
class GraphData:
    """What the picture is drawn from: both graphs, the judge's verdicts and a title."""

    gt: list[dict] = field(default_factory=list)
    pred: list[dict] = field(default_factory=list)
    verdicts: Verdicts = field(default_factory=dict)
    title: str = ""
    lang: Lang = "en"  # the language of the legend, heading and notes (the run's: its task's language)

    def figure(self, show: str = "all", focus: str | None = None) -> go.Figure:
        return graph_figure(self.gt, self.pred, self.verdicts, title=self.title, show=show, focus=focus, lang=self.lang)


@dataclass
class GraphPanel:
    plot: gr.Plot
    show: gr.Radio
    focus: gr.Dropdown
    data: gr.State

    @property
    def outputs(self) -> list[Any]:
        """Every component ``fill`` sets: list them among an event's outputs."""
        return [self.plot, self.show, self.focus, self.data]

    def fill(self, data: GraphData | None) -> dict[Any, Any]:
        """Draw a new graph (``None``: nothing), every triple shown and no entity picked."""
        if data is None:
            return {self.plot: None, self.show: "all", self.focus: gr.Dropdown(choices=[], value=None), self.data: None}
        return {
            self.plot: data.figure(),
            self.show: "all",
            self.focus: gr.Dropdown(choices=entity_choices(data.gt, data.pred), value=None),
            self.data: data,
        }


def redraw(data: GraphData | None, show: str, focus: str | None) -> go.Figure | None:
    if data is None:
        return None
    return data.figure(show if show in FILTERS else "all", focus or None)


# plotly's click on an entity node (the only points whose customdata is a node key) → the server.
# The plot can be drawn anew on every update, so the handler is re-attached whenever the pointer enters it.
_CLICK_JS = """
const sel = '#%s .js-plotly-plot';
const onClick = (d) => {
  const p = d && d.points && d.points.find(q => typeof q.customdata === 'string');
  if (p) trigger('click', {entity: p.customdata});
};
document.addEventListener('mouseover', (ev) => {
  const gd = ev.target && ev.target.closest ? ev.target.closest(sel) : null;
  if (!gd || typeof gd.on !== 'function') return;
  gd.removeListener('plotly_click', onClick);
  gd.on('plotly_click', onClick);
}, true);
"""


def graph_panel(elem_id: str, label: str) -> GraphPanel:
    """The plot (``elem_id``), its filter (``<elem_id>-show``) and entity picker (``<elem_id>-focus``)."""
    with gr.Row():
        show = gr.Radio([(ui_text(text), value) for value, text in FILTERS.items()], value="all", label=ui_text("Show"),
                        scale=3, elem_id=f"{elem_id}-show")
        focus = gr.Dropdown([], value=None, label=ui_text("Entity (its neighbourhood)"), filterable=True, scale=2,
                            elem_id=f"{elem_id}-focus")
    plot = gr.Plot(label=ui_text(label), elem_id=elem_id)
    bridge = gr.HTML(ui_text("<span class='vs-muted'>Click an entity to see its neighbourhood.</span>"),
                     js_on_load=_CLICK_JS % elem_id, elem_id=f"{elem_id}-click")
    data = gr.State(None)

    def on_focus(d: GraphData | None, entity: str | None):
        return ("focus" if entity else "all"), redraw(d, "focus" if entity else "all", entity)

    def on_click(d: GraphData | None, evt: gr.EventData):
        sent = evt._data if isinstance(evt._data, dict) else {}
        entity = str(sent.get("entity") or "")[:500]
        if d is None or not entity:
            return gr.skip(), gr.skip(), gr.skip()
        return "focus", gr.Dropdown(value=entity), redraw(d, "focus", entity)

    bridge.click(on_click, [data], [show, focus, plot], api_visibility="private", show_progress="hidden")
    show.input(redraw, [data, show, focus], plot, api_visibility="private", show_progress="hidden")
    focus.input(on_focus, [data, focus], [show, plot], api_visibility="private", show_progress="hidden")
    return GraphPanel(plot, show, focus, data)
