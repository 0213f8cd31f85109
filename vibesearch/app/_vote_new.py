"""The Vote tab's "New vote campaign" form (admins): what ``vibesearch votes campaign create``
takes — a name, the configurations (picked from the list; none picked: all), a filter
(``key=value``), tasks, pairs per configuration pair, overlap k and the voters. The checks, the
sampling and the storing are ``labels.vote_campaigns.create_vote_campaign``. Only an admin (a
login named in ``VIBESEARCH_ADMINS``) may make one: the form answers anyone else with a refusal,
whatever the page sends, and lists no configuration to them (the list names agents).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import gradio as gr

from ..labels.vote_campaigns import FILTER_KEYS, VoteCampaignError, candidate_runs, create_vote_campaign, parse_filter
from ._words import Lang, browser_lang, say_in, ui_text, zh_text
from .context import AppContext
from .render import md_line

NOT_ADMIN = ("Only an admin (a login named in VIBESEARCH_ADMINS) makes vote campaigns here; "
             "without one, use `vibesearch votes campaign create`.")
MAX_FIELD = 2000
MAX_ANNOTATORS = 50


@dataclass
class NewVoteCampaignForm:
    box: gr.Accordion
    name: gr.Textbox
    configs: gr.Dropdown
    where: gr.Textbox
    tasks: gr.Textbox
    pairs: gr.Number
    overlap: gr.Number
    annotators: gr.Textbox
    create: gr.Button
    status: gr.Markdown

    def inputs(self) -> list[Any]:
        return [self.name, self.configs, self.where, self.tasks, self.pairs, self.overlap, self.annotators]


def build_form() -> NewVoteCampaignForm:
    with gr.Accordion(ui_text("New vote campaign (admins)"), open=False, elem_id="vs-vote-new") as box:
        name = gr.Textbox(label=ui_text("Vote campaign name"), max_lines=1, elem_id="vs-vote-new-name")
        with gr.Row():
            configs = gr.Dropdown([], multiselect=True, label=ui_text("Configurations (none picked: all)"), scale=3,
                                  elem_id="vs-vote-new-configs")
            where = gr.Textbox(label=ui_text("Filter"), max_lines=1, scale=2, elem_id="vs-vote-new-where",
                               placeholder="language=en, user=rules", info="key=value, comma-separated; keys: " + ", ".join(FILTER_KEYS))
        with gr.Row():
            tasks = gr.Textbox(label=ui_text("Tasks (comma-separated; empty: all)"), max_lines=1, scale=2, elem_id="vs-vote-new-tasks")
            pairs = gr.Number(5, precision=0, minimum=1, label=ui_text("Pairs per configuration pair"), elem_id="vs-vote-new-pairs")
            overlap = gr.Number(1, precision=0, minimum=1, label=ui_text("Votes per pair (overlap k)"), elem_id="vs-vote-new-overlap")
        annotators = gr.Textbox(label=ui_text("Voters (comma-separated)"), max_lines=1, elem_id="vs-vote-new-annotators")
        create = gr.Button(ui_text("Create the vote campaign"), variant="primary", size="sm", elem_id="vs-vote-new-create")
        status = gr.Markdown(elem_id="vs-vote-new-status")
    return NewVoteCampaignForm(box, name, configs, where, tasks, pairs, overlap, annotators, create, status)


def _listed(text: Any, what: str, limit: int = MAX_ANNOTATORS) -> list[str]:
    if not isinstance(text, str) or len(text) > MAX_FIELD:
        raise VoteCampaignError(f"{what}: give them comma-separated")
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) > limit:
        raise VoteCampaignError(f"{what}: at most {limit}")
    return names


def _whole(value: Any, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise VoteCampaignError(f"{what} must be a whole number") from None


def make_vote_campaign(ctx: AppContext, who: Any, name: Any, configs: Any, where: Any, tasks: Any, pairs: Any, overlap: Any,
                       annotators: Any, lang: Lang = "en") -> str:
    """Store the vote campaign the form describes; the line to show (a refusal starts with "Not created"),
    its fixed words in ``lang`` (the reasons ``labels.vote_campaigns`` gives stay English)."""
    say = say_in(lang)
    if not getattr(who, "admin", False):
        return say("Not created: {why}").format(why=say(NOT_ADMIN))
    try:
        if not isinstance(name, str):
            raise VoteCampaignError("the name must be text")
        picked = [c for c in configs if isinstance(c, str)] if isinstance(configs, list) else []
        row = create_vote_campaign(
            ctx.store, name, annotators=_listed(annotators, "voters"), overlap=_whole(overlap, "the overlap k"),
            pairs_per_config_pair=_whole(pairs, "pairs per configuration pair"), configs=picked or None,
            where=parse_filter(_listed(where, "the filter", 20)), tasks=_listed(tasks, "tasks", 500),
            created_by=str(getattr(who, "login", "") or ""),
        )
    except VoteCampaignError as exc:
        return say("Not created: {why}").format(why=md_line(str(exc)))
    attention = sum(1 for it in row.items() if it.get("expect"))
    return say("Vote campaign **{name}** made: {pairs} pairs ({attention} attention checks), voters {voters}, k = {k}. "
               "Pick it above to start voting.").format(name=md_line(row.name), pairs=len(row.items()), attention=attention,
                                                        voters=md_line(", ".join(row.annotators())), k=row.overlap)


def wire(form: NewVoteCampaignForm, ctx: AppContext, pick: gr.Dropdown, choices: Callable[[], list[tuple[str, str]]]) -> None:
    """Opening the form lists the configurations (to an admin); Create stores the campaign and refreshes the picker."""

    def on_open(request: gr.Request):
        if not ctx.who(request).admin:
            return gr.Dropdown(choices=[], value=[]), zh_text(NOT_ADMIN, browser_lang(request))
        return gr.Dropdown(choices=sorted({f["config"] for _, f in candidate_runs(ctx.store)})), ""

    def on_create(name: Any, configs: Any, where: Any, tasks: Any, pairs: Any, overlap: Any, annotators: Any, request: gr.Request):
        line = make_vote_campaign(ctx, ctx.who(request), name, configs, where, tasks, pairs, overlap, annotators, browser_lang(request))
        return line, gr.Dropdown(choices=choices())

    form.box.expand(on_open, None, [form.configs, form.status], api_visibility="private", show_progress="hidden")
    form.create.click(on_create, form.inputs(), [form.status, pick], api_visibility="private")
