"""The Label tab's "New campaign" form: an admin makes a labelling campaign where it is labelled,
beside the campaign picker (issue 39, item 8), with what ``vibesearch campaign create`` takes:
a name, the runs (picked from the list, or a filter such as ``task=…, agent=…``), the annotators,
the sides, the overlap k and whether it is blind (ticked by default: no judge's verdict, agent or
score before a label; unticked, a judge review with the verdict on the card). (Admins read every
run, so the list and a filter see the same runs.)

The checks and the storing are ``labels.campaigns.create_campaign`` (nothing is stored when it
refuses, and its one-line reason is shown under the form). The status lines are in the browser's
language (``_words.zh_text``; a reason ``labels.campaigns`` gives stays as it words it). Only an admin (a login named in
``VIBESEARCH_ADMINS``) may make one: the form answers anyone else with a refusal, whatever the
page sends, and lists no run to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import gradio as gr

from ..labels.campaigns import FILTER_KEYS, SIDES, CampaignError, blind_words, create_campaign, parse_filters
from ._words import Lang, browser_lang, say_in, ui_choices, ui_text, zh_text
from .context import AppContext
from .render import md_line

NOT_ADMIN = ("Only an admin (a login named in VIBESEARCH_ADMINS) makes campaigns here; "
             "without one, use `vibesearch campaign create`.")
FILTER_INFO = "key=value, comma-separated; keys: " + ", ".join(FILTER_KEYS)
SIDE_NAMES = {"coverage": "Coverage (ground-truth triples)", "validity": "Validity (predicted triples)"}  # the sides' labels here and in the Label tab
MAX_ANNOTATORS = 50
MAX_FIELD = 2000


@dataclass
class NewCampaignForm:
    box: gr.Accordion
    name: gr.Textbox
    runs: gr.Dropdown
    filters: gr.Textbox
    annotators: gr.Textbox
    sides: gr.CheckboxGroup
    overlap: gr.Number
    blind: gr.Checkbox
    create: gr.Button
    status: gr.Markdown

    def inputs(self) -> list[Any]:
        return [self.name, self.runs, self.filters, self.annotators, self.sides, self.overlap, self.blind]


def build_form() -> NewCampaignForm:
    """The form, closed, under the campaign picker."""
    with gr.Accordion(ui_text("New campaign (admins)"), open=False, elem_id="vs-camp-new") as box:
        name = gr.Textbox(label=ui_text("Campaign name"), max_lines=1, elem_id="vs-camp-new-name")
        with gr.Row():
            runs = gr.Dropdown([], multiselect=True, label=ui_text("Runs (pick them…)"), scale=3, elem_id="vs-camp-new-runs")
            filters = gr.Textbox(label=ui_text("…or a filter"), max_lines=1, scale=2, elem_id="vs-camp-new-filter",
                                 placeholder="task=pro-en-analysis-history, agent=react",
                                 info=ui_text(FILTER_INFO))
        annotators = gr.Textbox(label=ui_text("Annotators (comma-separated)"), max_lines=1, elem_id="vs-camp-new-annotators")
        with gr.Row():
            sides = gr.CheckboxGroup(ui_choices((SIDE_NAMES[side], side) for side in SIDES), value=list(SIDES), label=ui_text("Sides"), elem_id="vs-camp-new-sides")
            overlap = gr.Number(2, precision=0, minimum=1, label=ui_text("Labels per item (overlap k)"), elem_id="vs-camp-new-overlap")
            blind = gr.Checkbox(True, label=ui_text("Blind"), elem_id="vs-camp-new-blind",
                                info=ui_text("Ticked: no judge's verdict, agent or score before a label. "
                                             "Unticked: a judge review, the judge's verdict on the card."))
        create = gr.Button(ui_text("Create the campaign"), variant="primary", size="sm", elem_id="vs-camp-new-create")
        status = gr.Markdown(elem_id="vs-camp-new-status")
    return NewCampaignForm(box, name, runs, filters, annotators, sides, overlap, blind, create, status)


def run_choices(ctx: AppContext, who: Any) -> list[tuple[str, str]]:
    """The runs a campaign can hold that ``who`` may read: finished persona runs with a graph."""
    out = []
    for r in ctx.store.list_runs():
        if r.kind == "table" or r.status == "running" or not ctx.readable(who, r):
            continue
        if ctx.store.latest_graph(r.id) is None:
            continue
        out.append((f"{r.id} · {r.task_id} · {r.agent} · {r.status}", r.id))
    return out


def _people(text: Any, lang: Lang = "en") -> list[str]:
    if not isinstance(text, str) or len(text) > MAX_FIELD:
        raise CampaignError(zh_text("annotators: give the names comma-separated", lang))
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) > MAX_ANNOTATORS:
        raise CampaignError(zh_text("at most {n} annotators", lang).format(n=MAX_ANNOTATORS))
    return names


def make_campaign(ctx: AppContext, who: Any, name: Any, runs: Any, filters: Any, annotators: Any, sides: Any, overlap: Any,
                  blind: Any = True, lang: Lang = "en") -> str:
    """Store the campaign the form describes; the line to show, in ``lang`` (a refusal starts with
    "Not created"). ``blind`` must be a boolean (a page sends the checkbox's); anything else is refused."""
    say = say_in(lang)
    if not getattr(who, "admin", False):
        return say("Not created: {why}").format(why=say(NOT_ADMIN))
    try:
        if not isinstance(name, str) or not isinstance(filters, str) or len(filters) > MAX_FIELD:
            raise CampaignError(say("the form's fields must be text"))
        picked = [r for r in runs if isinstance(r, str)] if isinstance(runs, list) else []
        readable = {rid for _label, rid in run_choices(ctx, who)}
        if any(r not in readable for r in picked):
            raise CampaignError(say("a picked run is not one this form offers (finished, with a graph, readable by you)"))
        wanted = parse_filters([p for p in filters.split(",") if p.strip()]) if filters.strip() else None
        try:
            k = int(overlap)
        except (TypeError, ValueError):
            raise CampaignError(say("the overlap k must be a whole number")) from None
        if not isinstance(blind, bool):
            raise CampaignError(say("blind must be ticked or not (true or false)"))
        row = create_campaign(
            ctx.store, name, annotators=_people(annotators, lang), sides=[s for s in (sides or []) if isinstance(s, str)],
            overlap=k, runs=picked or None, filters=wanted, created_by=str(getattr(who, "login", "") or ""), blind=blind,
        )
    except CampaignError as exc:
        return say("Not created: {why}").format(why=md_line(str(exc)))
    return say("Campaign **{name}** made: {runs} runs, sides {sides}, annotators {people}, k = {k}, {blind}. Pick it above to start labelling.").format(
        name=md_line(row.name), runs=len(row.run_ids()), sides=", ".join(say(side) for side in row.sides()),
        people=md_line(", ".join(row.annotators())), k=row.overlap, blind=say(blind_words(row)))


def wire(form: NewCampaignForm, ctx: AppContext, who_of: Callable[..., Any], pick: gr.Dropdown,
         choices: Callable[[], list[tuple[str, str]]]) -> None:
    """Connect the form: opening it lists the runs; Create stores the campaign and refreshes the picker."""

    def on_open(request: gr.Request):
        who = who_of(request)
        if not getattr(who, "admin", False):
            return gr.Dropdown(choices=[], value=[]), zh_text(NOT_ADMIN, browser_lang(request))
        return gr.Dropdown(choices=run_choices(ctx, who)), ""

    def on_create(name: Any, runs: Any, filters: Any, annotators: Any, sides: Any, overlap: Any, blind: Any, request: gr.Request):
        line = make_campaign(ctx, who_of(request), name, runs, filters, annotators, sides, overlap, blind, browser_lang(request))
        return line, gr.Dropdown(choices=choices())

    form.box.expand(on_open, None, [form.runs, form.status], api_visibility="private", show_progress="hidden")
    form.create.click(on_create, form.inputs(), [form.status, pick], api_visibility="private")
