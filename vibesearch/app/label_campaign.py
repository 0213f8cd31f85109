"""The Label tab's campaign panel (issue 13): pick a campaign, take the next item of your queue
(either side), see the progress and who labelled what, and resolve disagreements. The picker and
the progress line say whether the campaign is blind or a judge review (what the card then shows:
``app.label``).

The panel is in two parts so that the card never moves while someone labels: above the card only
the campaign picker and one progress line; below it the who-labelled-what table (the newest
``WHO_ROWS`` items and a count) and the adjudication (pending disagreements unless "show
resolved" is ticked). While a campaign is picked a timer asks the page to refresh the panel; the
page only does so while the Label tab is on screen (``REFRESH_JS``).

The queue, progress and the adjudication rules are ``labels.campaigns``; this module only shows
them. The annotator is the login when there is one, else the name typed in the tab. A
disagreement is resolved by someone who did not label that item (the refusal is one line on the
panel's status).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable, Collection

import gradio as gr

from ..labels.campaigns import (
    CampaignError,
    Item,
    ItemLabels,
    Side,
    adjudicate,
    blind_words,
    disagreements,
    get_campaign,
    item_texts,
    next_item,
    progress,
    replaced_note,
    who_labelled,
)
from ..store import AdjudicationRow
from ._access import Who
from ._label_view import LabelView
from ._words import Lang, say_in, ui_text
from .context import AppContext

MayRead = Callable[[str], bool]  # run id → may the person read it (``reader``)

SIDE_WORDS = {"coverage": ("covered", "not covered"), "validity": ("valid", "invalid")}
WHO_ROWS = 10  # rows of the who-labelled-what table (the newest labelled items)
SHOW_RESOLVED = "Show resolved ones too"
REFRESH_S = 5.0  # the campaign panel's refresh interval while it is on screen
# the timer's tick runs only this in the page: it presses the panel's refresh button when the
# Label tab is shown and the browser tab is in front, so an idle or hidden page costs nothing
REFRESH_JS = """
() => {
  const tab = document.getElementById('vs-label-panel');
  const btn = document.getElementById('vs-camp-refresh');
  if (document.hidden || !tab || tab.offsetParent === null || !btn || btn.offsetParent === null) return;
  btn.click();
}
"""


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def campaign_choices(ctx: AppContext) -> list[tuple[str, str]]:
    out = []
    for c in ctx.store.campaigns():
        out.append((f"{c.name} · {len(c.run_ids())} runs · {', '.join(c.sides())} · k={c.overlap} · {blind_words(c)}", c.name))
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


def queue_next(ctx: AppContext, name: str, annotator: str, may_read: MayRead | None = None,
               skip: Collection[Item] = ()) -> Item | str:
    """The annotator's next item (of a run they may read; the skipped ones last), or why there is
    none (one line)."""
    if not name:
        return "Pick a campaign first."
    if not annotator:
        return "Type your annotator name first (labels are stored under it)."
    try:
        camp = get_campaign(ctx.store, name)
        item = next_item(ctx.store, camp, annotator, may_read, skip)
    except CampaignError as exc:
        return str(exc)
    if item is None:
        return f"Your queue in campaign {name} is empty: every item has your label or enough labels."
    return item


def report_withheld(ctx: AppContext, v: LabelView, who: Who | None) -> bool:
    """A blind view (``LabelView.blind``) keeps the judge comparison, which holds the judges'
    verdicts and the run's scores, back until the person has labelled every item of the view (this
    run, this side) or, in a campaign, has no item left in their queue."""
    if v.blind is not True or not v.run_id or all(i in v.mine for i in range(len(v.items))):
        return False
    if v.campaign:
        return not isinstance(queue_next(ctx, v.campaign, v.annotator, reader(ctx, who)), str)
    return True


def progress_md(ctx: AppContext, name: str, annotator: str, lang: Lang = "en") -> str:
    """The campaign's progress line, its fixed words (and whether it is blind) in ``lang``."""
    say = say_in(lang)
    if not name:
        return ""
    try:
        camp = get_campaign(ctx.store, name)
        p = progress(ctx.store, camp)
    except CampaignError as exc:
        return f"⚠ {exc}"
    mine = p["annotators"].get(annotator)
    you = say("**{name}**: {labelled} labelled, {left} left in your queue · ").format(
        name=_esc(annotator), labelled=mine["labelled"], left=mine["queue"]) if mine else ""
    return say("Campaign **{name}** ({blind}): {you}items done {done} / {items} (k={k}) · labels {labels} / {needed} · "
               "disagreements waiting: {pending}").format(
        name=_esc(name), blind=say(blind_words(camp)), you=you, done=p["items_done"], items=p["items"], k=p["overlap"],
        labels=p["labels"], needed=p["labels_needed"], pending=p["disagreements_pending"])


def _item_cell(texts: dict[Side, list[dict[str, Any]]], item: Item) -> str:
    pool = texts.get(item.side, [])
    t = pool[item.index] if item.index < len(pool) else {}
    return f"{_esc(t.get('head', ''))} | {_esc(t.get('relation', ''))} | {_esc(t.get('tail', ''))}"


def _label_times(ctx: AppContext, run_ids: list[str]) -> dict[Item, tuple[Any, int]]:
    """When each item of these runs was last labelled (by anyone): the time and the row id (which
    orders labels given within the same clock tick)."""
    out: dict[Item, tuple[Any, int]] = {}
    for rid in run_ids:
        rows: list[tuple[Item, Any, int]] = [(Item(rid, "coverage", r.gt_index), r.created_at, r.id or 0) for r in ctx.store.labels(run_id=rid)]
        rows += [(Item(rid, "validity", r.pred_index), r.created_at, r.id or 0) for r in ctx.store.pred_labels(run_id=rid)]
        for it, at, row_id in rows:
            if it not in out or (at, row_id) > out[it]:
                out[it] = (at, row_id)
    return out


def who_html(ctx: AppContext, name: str, may_read: MayRead | None = None, *, rows: int = WHO_ROWS) -> str:
    """Who labelled what: one row per labelled item (of the runs ``may_read`` accepts), the
    ``rows`` most recently labelled ones, newest first, under a count of them all."""
    if not name:
        return ""
    try:
        camp = get_campaign(ctx.store, name)
    except CampaignError:
        return ""
    entries = [e for e in who_labelled(ctx.store, camp) if may_read is None or may_read(e.item.run_id)]
    if not entries:
        return "<div class='vs-muted' id='vs-camp-who-count'>Nobody has labelled an item of this campaign yet.</div>"
    when = _label_times(ctx, sorted({e.item.run_id for e in entries}))
    entries.sort(key=lambda e: (e.item in when, when[e.item] if e.item in when else (0, 0)), reverse=True)  # newest first
    shown = entries[:max(1, rows)]
    texts: dict[str, dict[Side, list[dict[str, Any]]]] = {}
    out: list[str] = []
    for e in shown:
        it = e.item
        if it.run_id not in texts:
            texts[it.run_id] = item_texts(ctx.store, it.run_id)
        yes, no = SIDE_WORDS[it.side]
        said = ", ".join(f"{_esc(who)}: {yes if v else no}" for who, v in sorted(e.labels.items()))
        final = "—" if e.final is None else (yes if e.final else no)
        out.append(f"<tr><td>{_esc(it.run_id)}</td><td>{it.side}</td><td class='vs-num'>{it.index + 1}</td>"
                   f"<td>{_item_cell(texts[it.run_id], it)}</td><td>{said}</td><td>{final}</td></tr>")
    count = (f"{len(entries)} labelled item(s); the {len(shown)} most recent shown, newest first."
             if len(entries) > len(shown) else f"{len(entries)} labelled item(s), newest first.")
    head = "<tr><th>run</th><th>side</th><th>#</th><th>triple</th><th>labels</th><th>final</th></tr>"
    return (f"<div class='vs-muted' id='vs-camp-who-count'>{count}</div>"
            f"<div class='vs-card'><table>{head}{''.join(out)}</table></div>")


def _disputes(ctx: AppContext, name: str, may_read: MayRead | None) -> list[ItemLabels]:
    if not name:
        return []
    try:
        camp = get_campaign(ctx.store, name)
    except CampaignError:
        return []
    return [e for e in disagreements(ctx.store, camp) if may_read is None or may_read(e.item.run_id)]


def _dispute_label(e: ItemLabels) -> str:
    yes, no = SIDE_WORDS[e.item.side]
    said = ", ".join(f"{who}={yes if v else no}" for who, v in sorted(e.labels.items()))
    state = f" · resolved by {e.adjudication.adjudicator}: {yes if e.adjudication.label else no}" if e.adjudication else ""
    if e.adjudication and e.replaced:
        state += f" · {replaced_note(e)}"  # plain text: ``disputes_html`` escapes it
    return f"{e.item.run_id} · {e.item.side} #{e.item.index + 1} · {said}{state}"


def dispute_choices(ctx: AppContext, name: str, may_read: MayRead | None = None, *,
                    pending_only: bool = False) -> list[tuple[str, str]]:
    """The disagreements (only those nobody resolved yet with ``pending_only``) as dropdown choices."""
    return [(_dispute_label(e), e.item.key()) for e in _disputes(ctx, name, may_read)
            if not (pending_only and e.adjudication is not None)]


def disputes_html(ctx: AppContext, name: str, may_read: MayRead | None = None, *, pending_only: bool = False) -> str:
    """The disagreement list; with ``pending_only`` the resolved ones are not listed but counted,
    with the most recently resolved one named (the feedback after a resolution)."""
    if not name:
        return ""
    every = _disputes(ctx, name, may_read)
    if not every:
        return "<div class='vs-muted'>No disagreements in this campaign.</div>"
    listed = [e for e in every if not (pending_only and e.adjudication is not None)]
    parts = []
    if listed:
        parts.append("<div class='vs-card'><ul>" + "".join(f"<li>{_esc(_dispute_label(e))}</li>" for e in listed) + "</ul></div>")
    else:
        parts.append("<div class='vs-muted'>No disagreement is waiting for a resolution.</div>")
    hidden = [e for e in every if e not in listed]
    if hidden:
        last = max(hidden, key=lambda e: e.adjudication.created_at if e.adjudication else 0)
        parts.append(f"<div class='vs-muted' id='vs-camp-resolved-count'>{len(hidden)} resolved, not listed (tick "
                     f"\"{SHOW_RESOLVED}\"); the latest: {_esc(_dispute_label(last))}.</div>")
    return "".join(parts)


def resolution_of(ctx: AppContext, key: Any) -> AdjudicationRow | None:
    """The stored resolution of the item behind a dispute key, if any."""
    if not key or not isinstance(key, str):
        return None
    try:
        item = parse_key(key)
    except ValueError:
        return None
    return next((a for a in ctx.store.adjudications([item.run_id]) if a.side == item.side and a.item_index == item.index), None)


def replace_warning(ctx: AppContext, key: Any) -> str | None:
    """What the status says before an existing resolution is replaced (None: nothing to replace)."""
    row = resolution_of(ctx, key)
    if row is None:
        return None
    yes, no = SIDE_WORDS["validity" if row.side == "validity" else "coverage"]
    return (f"⚠ This replaces {_esc(row.adjudicator)}'s resolution ({yes if row.label else no}). "
            "Press the same button again to confirm.")


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
    leave_btn: gr.Button
    refresh_btn: gr.Button
    tools: gr.Row  # the two buttons above, shown in campaign mode
    tail: gr.Column  # who labelled what and the adjudication, shown in campaign mode
    timer: gr.Timer
    progress: gr.Markdown
    who: gr.HTML
    show_all: gr.Checkbox
    disputes: gr.HTML
    dispute: gr.Dropdown
    shown: gr.State  # the disagreement choices the dropdown holds (a refresh leaves it alone when unchanged)
    confirm: gr.State  # the dispute key and label a replacing resolution waits to be confirmed for
    comment: gr.Textbox
    resolve_yes: gr.Button
    resolve_no: gr.Button
    status: gr.Markdown

    def outputs(self) -> list[Any]:
        """What ``refreshed`` fills."""
        return [self.progress, self.who, self.disputes, self.dispute, self.shown]

    def labelled(self, ctx: AppContext, name: str, annotator: str, who: Who | None = None, lang: Lang = "en") -> dict[Any, Any]:
        """After a label: the progress line and the who-labelled-what table (the disagreements
        follow on the next refresh, so a pick in that list is not lost)."""
        return {self.progress: progress_md(ctx, name, annotator, lang), self.who: who_html(ctx, name, reader(ctx, who))}

    def refreshed(self, ctx: AppContext, name: str, annotator: str, who: Who | None = None, *, show_all: bool = False,
                  picked: Any = None, shown: Any = None, lang: Lang = "en") -> dict[Any, Any]:
        """The panel's views of this campaign, fresh from the database; the who-labelled-what
        table and the disagreements show only the runs ``who`` may read. The disagreement picked
        stays picked while it is still listed; the dropdown is not redrawn when its choices are
        those it holds (``shown``), so a refresh does not close it under the mouse."""
        may_read = reader(ctx, who)
        choices = dispute_choices(ctx, name, may_read, pending_only=not show_all)
        keys = [key for _, key in choices]
        same = isinstance(shown, list) and [list(c) for c in choices] == [list(c) for c in shown]
        drop: Any = gr.skip() if same and (picked in keys or picked is None) else \
            gr.Dropdown(choices=choices, value=picked if picked in keys else None)
        return {
            self.progress: progress_md(ctx, name, annotator, lang), self.who: who_html(ctx, name, may_read),
            self.disputes: disputes_html(ctx, name, may_read, pending_only=not show_all),
            self.dispute: drop, self.shown: [list(c) for c in choices],
        }


def build_panel(card: Callable[[], Any], extra: Callable[[], Any] | None = None) -> tuple[CampaignPanel, Any]:
    """The components (the Label tab wires them: they share its view and its annotator) around
    the tab's card, which ``card`` builds: above it only the campaign picker, its progress line
    and what ``extra`` builds under them (the admins' closed "New campaign" form), so the card
    stays where it is as labels come in; below it who labelled what and the adjudication.
    Returns the panel and what ``card`` returned."""
    with gr.Column(elem_id="vs-camp-box"):
        with gr.Row(equal_height=False):
            pick = gr.Dropdown([], label=ui_text("Campaign"), scale=3, elem_id="vs-camp-pick")
            with gr.Column(scale=1, min_width=200):
                next_btn = gr.Button(ui_text("Next item from my queue"), variant="primary", elem_id="vs-camp-next")
                with gr.Row(visible=False) as tools:  # shown while a campaign is picked
                    leave_btn = gr.Button(ui_text("Label one run instead"), size="sm", elem_id="vs-camp-leave")
                    refresh_btn = gr.Button(ui_text("Refresh"), size="sm", elem_id="vs-camp-refresh")
        progress_box = gr.Markdown(elem_id="vs-camp-progress")
        if extra is not None:
            extra()
    timer = gr.Timer(REFRESH_S, active=False)
    inner = card()
    with gr.Column(visible=False, elem_id="vs-camp-tail") as tail:  # shown while a campaign is picked
        with gr.Accordion(ui_text("Who labelled what"), open=True, elem_id="vs-camp-who-box"):
            who = gr.HTML(elem_id="vs-camp-who")
        with gr.Group(elem_id="vs-camp-adjudicate"):
            gr.Markdown(ui_text("**Adjudication** — items the annotators disagree on; resolved by someone who did not label them."))
            show_all = gr.Checkbox(False, label=SHOW_RESOLVED, elem_id="vs-camp-show-all")
            disputes = gr.HTML(elem_id="vs-camp-disputes")
            with gr.Row():
                dispute = gr.Dropdown([], label=ui_text("Disagreement"), scale=3, elem_id="vs-camp-dispute")
                comment = gr.Textbox(label=ui_text("Comment"), scale=2, elem_id="vs-camp-comment")
            with gr.Row():
                resolve_yes = gr.Button(ui_text("Resolve: covered / valid"), elem_id="vs-camp-resolve-yes", size="sm")
                resolve_no = gr.Button(ui_text("Resolve: not covered / invalid"), elem_id="vs-camp-resolve-no", size="sm")
            status = gr.Markdown(elem_id="vs-camp-status")
    panel = CampaignPanel(pick, next_btn, leave_btn, refresh_btn, tools, tail, timer, progress_box, who, show_all, disputes,
                          dispute, gr.State([]), gr.State(None), comment, resolve_yes, resolve_no, status)
    return panel, inner
