"""The Label tab's campaign panel (issue 13): pick a campaign, take the next item of your queue
(either side), see the progress and who labelled what, and resolve disagreements.

The queue, progress and the adjudication rules are ``scoring.campaigns``; this module only shows
them. The annotator is the login when there is one, else the name typed in the tab. A
disagreement is resolved by someone who did not label that item (the refusal is one line on the
panel's status).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable

import gradio as gr

from ..scoring.campaigns import (
    CampaignError,
    Item,
    Side,
    adjudicate,
    disagreements,
    get_campaign,
    item_texts,
    next_item,
    progress,
    replaced_note,
    who_labelled,
)
from ._access import Who
from .context import AppContext

MayRead = Callable[[str], bool]  # run id → may the person read it (``reader``)

SIDE_WORDS = {"coverage": ("covered", "not covered"), "validity": ("valid", "invalid")}


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def campaign_choices(ctx: AppContext) -> list[tuple[str, str]]:
    out = []
    for c in ctx.store.campaigns():
        out.append((f"{c.name} · {len(c.run_ids())} runs · {', '.join(c.sides())} · k={c.overlap}", c.name))
    return out


def reader(ctx: AppContext, who: Who | None) -> MayRead:
    """The read policy as a test on run ids: under ``VIBESEARCH_READ_RUNS=own`` only the runs
    ``who`` may read pass (without ``who``, everything passes only when the policy is open)."""
    if not ctx.access.read_own:
        return lambda _run_id: True
    if who is None:
        return lambda _run_id: False
    owners = {r.id: r.owner for r in ctx.store.list_runs()}
    return lambda run_id: run_id in owners and ctx.access.may_read(who, owners[run_id])


def queue_next(ctx: AppContext, name: str, annotator: str, may_read: MayRead | None = None) -> Item | str:
    """The annotator's next item (of a run they may read), or why there is none (one line)."""
    if not name:
        return "Pick a campaign first."
    if not annotator:
        return "Type your annotator name first (labels are stored under it)."
    try:
        camp = get_campaign(ctx.store, name)
        item = next_item(ctx.store, camp, annotator, may_read)
    except CampaignError as exc:
        return str(exc)
    if item is None:
        return f"Your queue in campaign {name} is empty: every item has your label or enough labels."
    return item


def progress_md(ctx: AppContext, name: str, annotator: str) -> str:
    if not name:
        return ""
    try:
        p = progress(ctx.store, get_campaign(ctx.store, name))
    except CampaignError as exc:
        return f"⚠ {exc}"
    mine = p["annotators"].get(annotator)
    you = f"**{_esc(annotator)}**: {mine['labelled']} labelled, {mine['queue']} left in your queue · " if mine else ""
    return (f"Campaign **{_esc(name)}**: {you}items done {p['items_done']} / {p['items']} (k={p['overlap']}) · "
            f"labels {p['labels']} / {p['labels_needed']} · disagreements waiting: {p['disagreements_pending']}")


def _item_cell(texts: dict[Side, list[dict[str, Any]]], item: Item) -> str:
    pool = texts.get(item.side, [])
    t = pool[item.index] if item.index < len(pool) else {}
    return f"{_esc(t.get('head', ''))} | {_esc(t.get('relation', ''))} | {_esc(t.get('tail', ''))}"


def who_html(ctx: AppContext, name: str, may_read: MayRead | None = None) -> str:
    """Who labelled what: one row per labelled item (of the runs ``may_read`` accepts)."""
    if not name:
        return ""
    try:
        camp = get_campaign(ctx.store, name)
    except CampaignError:
        return ""
    rows: list[str] = []
    texts: dict[str, dict[Side, list[dict[str, Any]]]] = {}
    for e in who_labelled(ctx.store, camp):
        it = e.item
        if may_read is not None and not may_read(it.run_id):
            continue
        if it.run_id not in texts:
            texts[it.run_id] = item_texts(ctx.store, it.run_id)
        yes, no = SIDE_WORDS[it.side]
        said = ", ".join(f"{_esc(who)}: {yes if v else no}" for who, v in sorted(e.labels.items()))
        final = "—" if e.final is None else (yes if e.final else no)
        rows.append(f"<tr><td>{_esc(it.run_id)}</td><td>{it.side}</td><td class='vs-num'>{it.index + 1}</td>"
                    f"<td>{_item_cell(texts[it.run_id], it)}</td><td>{said}</td><td>{final}</td></tr>")
    if not rows:
        return "<div class='vs-muted'>Nobody has labelled an item of this campaign yet.</div>"
    head = "<tr><th>run</th><th>side</th><th>#</th><th>triple</th><th>labels</th><th>final</th></tr>"
    return f"<div class='vs-card'><table>{head}{''.join(rows)}</table></div>"


def dispute_choices(ctx: AppContext, name: str, may_read: MayRead | None = None) -> list[tuple[str, str]]:
    if not name:
        return []
    try:
        camp = get_campaign(ctx.store, name)
    except CampaignError:
        return []
    out = []
    for e in disagreements(ctx.store, camp):
        if may_read is not None and not may_read(e.item.run_id):
            continue
        yes, no = SIDE_WORDS[e.item.side]
        said = ", ".join(f"{who}={yes if v else no}" for who, v in sorted(e.labels.items()))
        state = f" · resolved by {e.adjudication.adjudicator}: {yes if e.adjudication.label else no}" if e.adjudication else ""
        if e.adjudication and e.replaced:
            state += f" · {replaced_note(e)}"  # plain text: ``disputes_html`` escapes it
        out.append((f"{e.item.run_id} · {e.item.side} #{e.item.index + 1} · {said}{state}", e.item.key()))
    return out


def disputes_html(ctx: AppContext, name: str, may_read: MayRead | None = None) -> str:
    choices = dispute_choices(ctx, name, may_read)
    if not name:
        return ""
    if not choices:
        return "<div class='vs-muted'>No disagreements in this campaign.</div>"
    return "<div class='vs-card'><ul>" + "".join(f"<li>{_esc(label)}</li>" for label, _ in choices) + "</ul></div>"


def parse_key(key: str) -> Item:
    run_id, side, index = key.split("/")
    return Item(run_id, "validity" if side == "validity" else "coverage", int(index))


def resolve(ctx: AppContext, name: str, key: Any, adjudicator: str, label: bool, comment: str, may_read: MayRead | None = None) -> str:
    """Resolve a disagreement (of a run ``may_read`` accepts); the status line (a refusal starts with ⚠)."""
    if not name:
        return "⚠ Pick a campaign first."
    if not key or not isinstance(key, str):
        return "⚠ Pick a disagreement to resolve."
    if not adjudicator:
        return "⚠ Type your name first (the resolution is stored under it)."
    try:
        item = parse_key(key)
        if may_read is not None and not may_read(item.run_id):
            return f"⚠ no run with id {item.run_id[:80]!r} that you may read"
        row = adjudicate(ctx.store, get_campaign(ctx.store, name), item, adjudicator, label, comment or "")
    except (CampaignError, ValueError) as exc:
        return f"⚠ {exc}"
    yes, no = SIDE_WORDS[item.side]
    return f"Resolved {item.side} #{item.index + 1} of run {item.run_id}: {yes if row.label else no}, by {row.adjudicator}."


@dataclass
class CampaignPanel:
    pick: gr.Dropdown
    next_btn: gr.Button
    progress: gr.Markdown
    who: gr.HTML
    disputes: gr.HTML
    dispute: gr.Dropdown
    comment: gr.Textbox
    resolve_yes: gr.Button
    resolve_no: gr.Button
    status: gr.Markdown

    def refreshed(self, ctx: AppContext, name: str, annotator: str, who: Who | None = None) -> dict[Any, Any]:
        """The panel's views of this campaign, fresh from the database; the who-labelled-what
        table and the disagreements show only the runs ``who`` may read."""
        may_read = reader(ctx, who)
        return {
            self.progress: progress_md(ctx, name, annotator), self.who: who_html(ctx, name, may_read),
            self.disputes: disputes_html(ctx, name, may_read), self.dispute: gr.Dropdown(choices=dispute_choices(ctx, name, may_read), value=None),
        }


def build_panel() -> CampaignPanel:
    """The components (the Label tab wires them: they share its view and its annotator)."""
    with gr.Accordion("Campaign", open=True, elem_id="vs-camp-box"):
        with gr.Row():
            pick = gr.Dropdown([], label="Campaign", scale=3, elem_id="vs-camp-pick")
            next_btn = gr.Button("Next item from my queue", variant="primary", scale=1, elem_id="vs-camp-next")
        progress_box = gr.Markdown(elem_id="vs-camp-progress")
        with gr.Accordion("Who labelled what", open=True):
            who = gr.HTML(elem_id="vs-camp-who")
        with gr.Group(elem_id="vs-camp-adjudicate"):
            gr.Markdown("**Adjudication** — items the annotators disagree on; resolved by someone who did not label them.")
            disputes = gr.HTML(elem_id="vs-camp-disputes")
            with gr.Row():
                dispute = gr.Dropdown([], label="Disagreement", scale=3, elem_id="vs-camp-dispute")
                comment = gr.Textbox(label="Comment", scale=2, elem_id="vs-camp-comment")
            with gr.Row():
                resolve_yes = gr.Button("Resolve: covered / valid", elem_id="vs-camp-resolve-yes", size="sm")
                resolve_no = gr.Button("Resolve: not covered / invalid", elem_id="vs-camp-resolve-no", size="sm")
            status = gr.Markdown(elem_id="vs-camp-status")
    return CampaignPanel(pick, next_btn, progress_box, who, disputes, dispute, comment, resolve_yes, resolve_no, status)
