"""The Label tab: a person decides, triple by triple, the human side of the judge meta-evaluation
(SPEC 8), on both sides: per ground-truth triple whether the prediction covers it (coverage), and
per predicted triple whether it is valid, i.e. supported by the ground truth (validity).

Keys (anywhere on the tab but a text field, ``app/_assets.SHORTCUTS_JS``): ``1``–``9`` tick or
untick the evidence listed first, ``y`` covered / valid, ``n`` not covered / invalid, ``s`` skip,
``j`` next, ``k`` previous; each press (key or click) carries the card it was pressed on, with
the evidence ticked and the note, and one meant for a card no longer shown is refused on a line
of its own (``_label_keys``). "Covered" needs at least one supporting predicted triple ticked,
"valid" at least one supporting ground-truth triple. A campaign (``label_campaign``) hands out
items from a queue instead; the one-run row is hidden then. Nothing above the card grows as labels
come in (the who-labelled-what table and the adjudication are below it), so the card stays put. With a login on, labels
are stored under the login (the name box is filled and locked); without one the name is typed.
Each label is stored at once (``Store.put_label``) and the agreement with every judge
that scored the run is recomputed from the database. A judge's verdict on a triple stays hidden
until the person has labelled it, so it cannot sway them (a toggle shows it anyway, but not in a
blind campaign nor on a run of one: there the verdicts, the run's agent and its scores in the judge
comparison come only after the labels; ``LabelView.blind``). A campaign that is not blind is a
judge review: the judge's verdict is on the card, marked as such.
Under the card, the judge comparison (``_label_report``: intervals, kappa's caveats, splits) over
this run or every labelled run, and the label export (``_label_export``: readable runs only).
"""

from __future__ import annotations

import json
import shutil
from typing import Any, Callable

import gradio as gr
from gradio import processing_utils

from .._names import PersonNameError, annotator_name
from ..labels.campaigns import Item, blind_runs
from . import campaign_new
from ._access import AGENT_HIDDEN, Who, annotator_for  # noqa: F401  (annotator_for: the tab's rule, kept importable here)
from ._assets import scroll_when_shown_js
from ._label_export import EXPORT_FORMATS, SCOPES, ExportRefused, export_file
from ._label_keys import Press, PressLine, clears_refusal, press_js
from ._label_report import report_html
from ._label_view import LabelView, card_id, evidence_choices, evidence_value, judge_says, progress_text, ticked, triple_html, verdict_html
from ._words import KEYS_LINE, browser_lang, ui_choices, ui_text
from .context import AppContext
from .panels import judge_text, predicted_triples

NEEDS_SUPPORT = ("Not stored: a \"covered\" label needs at least one supporting prediction. Tick the predicted "
                 "triple(s) that cover it (search the list if needed), or label it \"not covered\".")
NEEDS_GT_SUPPORT = ("Not stored: a \"valid\" label needs at least one supporting ground-truth triple. Tick the "
                    "ground-truth triple(s) that support it (search the list if needed), or label it \"invalid\".")
OTHER_CARDS_EVIDENCE = ("Not stored: evidence still ticked was listed for another card (the list was being redrawn). "
                        "Check the ticks and press the key again.")
# once a card is shown, the page scrolls it (with its buttons and the evidence beside it) to the top
# of the window; labelling then never scrolls the page (the evidence list scrolls in its own box)
SHOW_CARD_JS = scroll_when_shown_js("vs-label-work", "#vs-label-card [data-card]", "start")
SIDE_NAMES = campaign_new.SIDE_NAMES


class LabelRefused(ValueError):
    """A label the tab will not store; the message is shown on the status line."""


def labelable_runs(ctx: AppContext, who: Any = None) -> list[tuple[str, str]]:
    """Finished persona runs that have a graph, newest first (with ``who``: those it may read). A
    blind study's play, and for anyone but an admin a run of a blind campaign, is listed without its agent."""
    out = []
    hidden = set() if getattr(who, "admin", False) else blind_runs(ctx.store)
    for r in ctx.store.list_runs():
        if r.kind == "table" or r.status == "running":
            continue
        if who is not None and not ctx.readable(who, r):
            continue
        if ctx.store.latest_graph(r.id) is None:
            continue
        blind = r.meta().get("blind") or r.id in hidden
        agent = AGENT_HIDDEN if blind else f"{r.agent}{' (' + r.agent_model + ')' if r.agent_model else ''}"
        out.append((f"{r.id} · {r.task_id} · {agent} · {r.status}", r.id))
    return out


def start_problem(run_id: Any, annotator: str) -> str | None:
    """Why "Start labelling" cannot start yet, or None."""
    if not run_id or not isinstance(run_id, str):
        return "Pick a run first (the list holds the finished runs you may read that have a graph)."
    if not annotator:
        return "Type your annotator name first (labels are stored under it)."
    try:
        annotator_name(annotator)
    except PersonNameError as exc:
        return f"That annotator name cannot be used: {exc}."
    return None


def record_label(ctx: AppContext, v: LabelView, covered: bool, evidence: Any, note: str) -> None:
    """Store the label of the shown triple (on the view's side) and move on; ``LabelRefused``
    (nothing stored) when the view has no run or "covered"/"valid" comes without support."""
    if not v.run_id or not v.items:
        raise LabelRefused("Load a run first: pick one and press \"Start labelling\".")
    evidence_ids = sorted({int(i) for i in (evidence or []) if 0 <= int(i) < len(v.support)}) if covered else []
    if covered and not evidence_ids:
        raise LabelRefused(NEEDS_SUPPORT if v.side == "coverage" else NEEDS_GT_SUPPORT)
    if v.side == "coverage":
        ctx.store.put_label(v.run_id, v.idx, v.annotator, covered, evidence=evidence_ids, note=note or "")
    else:
        ctx.store.put_pred_labels([{"run_id": v.run_id, "pred_index": v.idx, "annotator": v.annotator,
                                    "valid": covered, "evidence": evidence_ids, "note": note or ""}])
    v.mine[v.idx] = (covered, evidence_ids)
    judged = []
    for judge, verdicts in v.verdicts.items():
        jc = judge_says(v, verdicts, v.idx)[0]
        if jc is not None:
            judged.append(f"{judge_text(judge)} {'agrees' if jc == covered else 'disagrees'}")
    yes, no = v.words()
    kind = "Triple" if v.side == "coverage" else "Predicted triple"
    v.last = f"{kind} {v.idx + 1}: {yes if covered else no}" + (f" ({'; '.join(judged)})." if judged else ".")
    if v.campaign is None and v.idx + 1 < len(v.items):
        v.idx += 1


def load_view(ctx: AppContext, run_id: str, annotator: str, side: str = "coverage") -> LabelView:
    run = ctx.store.get_run(run_id)
    task = ctx.task_of_run(run)
    if task is None:
        raise ValueError(f"run {run_id} has no ground-truth graph in its task snapshot")
    side = "validity" if side == "validity" else "coverage"
    v = LabelView(run_id=run_id, annotator=annotator, side=side, gt=[t.model_dump() for t in task.graph],
                  pred=predicted_triples(ctx.store, run_id))
    if side == "coverage":
        for lab in ctx.store.labels(run_id=run_id, annotator=annotator):
            v.mine[lab.gt_index] = (lab.covered, [int(i) for i in json.loads(lab.evidence_json or "[]")])
    else:
        for plab in ctx.store.pred_labels(run_id=run_id, annotator=annotator):
            v.mine[plab.pred_index] = (plab.valid, [int(i) for i in json.loads(plab.evidence_json or "[]")])
    by_judge = {}
    for s in ctx.store.scores(run_id):
        by_judge[s.judge] = s  # latest per judge
    for judge, s in by_judge.items():
        v.verdicts[judge] = {
            vr.gt_index: (vr.covered, [int(i) for i in json.loads(vr.evidence_json or "[]")], vr.rule, vr.rationale)
            for vr in ctx.store.verdicts(s.id)
        }
    v.idx = next((i for i in range(len(v.items)) if i not in v.mine), 0)
    v.blind = True if run_id in blind_runs(ctx.store) else None  # a campaign's item: ``LabelTab.queue_view``
    return v


REPORT_SCOPES = [("This run", "run"), ("Every labelled run", "all")]


def agreement_html(ctx: AppContext, v: LabelView, *, scope: str = "run", who: Who | None = None) -> str:
    """The judge-comparison report (``_label_report``) of the loaded run, or with ``scope="all"``
    of every labelled run — only for a reader who may read every run (admins, or no ``own`` policy)."""
    from ..labels.agreement import agreement_report
    from .label_campaign import report_withheld

    if report_withheld(ctx, v, who):
        return ("<div class='vs-muted' id='vs-label-report'>Blind: the judge comparison (the judges' verdicts and this run's "
                "scores) appears once you have labelled every triple of this run on this side, or emptied your campaign queue.</div>")
    if scope == "all":
        if ctx.access.read_own and not (who is not None and who.admin):
            return ("<div class='vs-muted' id='vs-label-report'>The report over every labelled run is for those who may read "
                    "every run (runs here are private to their owners); pick \"This run\".</div>")
        return report_html(agreement_report(ctx.store, None), annotator=v.annotator, first=v.side, scope="every labelled run")
    if not v.run_id or not v.mine:
        return "<div class='vs-muted' id='vs-label-report'>Agreement with each judge appears after your first label.</div>"
    if not v.verdicts:
        return "<div class='vs-muted' id='vs-label-report'>No judge has scored this run yet, so there is nothing to agree with.</div>"
    return report_html(agreement_report(ctx.store, v.run_id), annotator=v.annotator, first=v.side, scope="this run")


# --------------------------------------------------------------------------- the tab
class LabelTab:
    """The tab's components (attributes) and its event handlers (methods); ``wire`` connects them.
    ``on_label``, ``on_move`` and ``on_resolve`` make the handler of one button."""

    def __init__(self, ctx: AppContext) -> None:
        from . import label_campaign as lc

        self.ctx, self.lc = ctx, lc
        self.view = gr.State(LabelView())
        self.new_camp: campaign_new.NewCampaignForm | None = None
        self.camp, _ = lc.build_panel(self._card, extra=self._new_campaign)
        # each key press carries the card it was pressed on; a page's presses are handled one at a time
        # in the order it made them, and one meant for a card no longer shown is refused (``_label_keys``)
        self.presses = PressLine()
        self.outs = [self.view, self.status, self.progress, self.triple, self.search, self.evidence, self.note, self.verdict, self.agreement,
                     self.scope, self.yes_btn, self.no_btn, self.camp.progress, self.camp.who, self.refused_line]

    def _new_campaign(self) -> None:
        """The admins' "New campaign" form, closed, under the campaign picker (``campaign_new``)."""
        self.new_camp = campaign_new.build_form()

    def _card(self) -> None:
        """The one-run row, the card and what is under it (inside the campaign panel: ``label_campaign.build_panel``)."""
        with gr.Row(equal_height=False):
            self.annotator = gr.Textbox(label=ui_text("Annotator name"), scale=1, min_width=200, elem_id="vs-label-annotator")
            # the one-run labelling (hidden while a campaign hands out the items)
            with gr.Column(scale=5, elem_id="vs-label-one-run") as self.one_run:
                with gr.Row():
                    # filled per person when the page loads and when the tab is shown (the read policy applies)
                    self.run_pick = gr.Dropdown([], label=ui_text("Run (finished, with a graph)"), scale=3, elem_id="vs-label-run")
                    self.side_pick = gr.Radio(ui_choices((n, k) for k, n in SIDE_NAMES.items()), value="coverage", label=ui_text("Side"), scale=2,
                                              elem_id="vs-label-side")
                    with gr.Column(scale=1, min_width=120):
                        self.load_btn = gr.Button(ui_text("Start labelling"), variant="primary", elem_id="vs-label-load")
                        self.reload_btn = gr.Button(ui_text("Refresh run list"), size="sm")
        # a laptop's screen (1366×768) holds the card, its buttons and the evidence list side by side;
        # the list scrolls inside its own box (``_assets.CSS``), so the page never scrolls the card away
        with gr.Row(equal_height=False, elem_id="vs-label-work"):
            with gr.Column(scale=1, min_width=420):
                self.triple = gr.HTML(elem_id="vs-label-card")
                with gr.Row():
                    self.prev_btn = gr.Button(ui_text("◀ Previous (k)"), elem_id="vs-label-prev", size="sm", scale=0, min_width=110)
                    self.yes_btn = gr.Button(ui_text("Covered (y)"), variant="primary", elem_id="vs-label-yes", scale=1, min_width=130)
                    self.no_btn = gr.Button(ui_text("Not covered (n)"), variant="stop", elem_id="vs-label-no", scale=1, min_width=130)
                    self.skip_btn = gr.Button(ui_text("Skip (s)"), elem_id="vs-label-skip", size="sm", scale=0, min_width=80)
                    self.next_btn = gr.Button(ui_text("Next (j) ▶"), elem_id="vs-label-next", size="sm", scale=0, min_width=100)
                gr.HTML(ui_text(KEYS_LINE), elem_id="vs-label-keys")
                # a key meant for a card no longer shown: refused on this line (``_label_keys``)
                self.refused_line = gr.Markdown(elem_id="vs-label-refused")
                # under the buttons: a refusal or a longer line never moves the card
                self.progress = gr.Markdown(elem_id="vs-label-progress")
                self.status = gr.Markdown(elem_id="vs-label-status")
                # read by the page when a key is pressed (``_label_keys``), so no event takes it in: interactive said here
                self.note = gr.Textbox(label=ui_text("Note (optional)"), lines=1, elem_id="vs-label-note", interactive=True)
                self.show_anyway = gr.Checkbox(False, label=ui_text("Show the judges' verdicts before I label"), elem_id="vs-label-show")
                self.verdict = gr.HTML(elem_id="vs-label-verdict")
            with gr.Column(scale=1, min_width=420, elem_id="vs-label-evidence-col"):
                self.search = gr.Textbox(label=ui_text("Search the supporting triples"), placeholder=ui_text("words that must all appear"),
                                         elem_id="vs-label-search")
                # read by the page when a key is pressed (``_label_keys``), so no event takes it in: interactive said here
                self.evidence = gr.CheckboxGroup([], label=ui_text("Evidence: predicted triples that cover it"), elem_id="vs-label-evidence",
                                                 interactive=True)
        with gr.Column(elem_id="vs-label-compare"):
            with gr.Row():
                gr.Markdown(ui_text("**Judge comparison** — each judge (per protocol profile) against the people's labels, "
                                    "95% bootstrap intervals in brackets."))
                self.scope = gr.Radio(ui_choices(REPORT_SCOPES), value="run", label=ui_text("Report over"), elem_id="vs-label-scope", scale=0, min_width=260)
            self.agreement = gr.HTML(elem_id="vs-label-agreement")
        with gr.Accordion(ui_text("Export labels"), open=False, elem_id="vs-label-export"):
            with gr.Row():
                self.ex_fmt = gr.Radio(ui_choices(EXPORT_FORMATS), value="jsonl", label=ui_text("Format"), elem_id="vs-label-export-format", scale=2)
                self.ex_scope = gr.Radio(ui_choices(SCOPES), value="run", label=ui_text("Runs"), elem_id="vs-label-export-scope", scale=1)
                self.ex_btn = gr.Button(ui_text("Export"), elem_id="vs-label-export-btn", scale=0, min_width=120)
            self.ex_status = gr.Markdown(elem_id="vs-label-export-status")
            self.ex_file = gr.File(label=ui_text("Download"), interactive=False, elem_id="vs-label-export-file")

    # ------------------------------------------------------------------ what the card shows
    def render(self, v: LabelView, show: bool, who: Who, *, agree: bool = True) -> dict:
        own = v.mine.get(v.idx)
        sel = own[1] if own else []
        yes, no = v.words()
        what = "predicted triples that cover it" if v.side == "coverage" else "ground-truth triples that support it"
        out = {
            self.view: v, self.status: "", self.progress: progress_text(v), self.triple: triple_html(v), self.search: "",
            self.evidence: gr.CheckboxGroup(choices=evidence_choices(v, "", sel), value=[evidence_value(v, i) for i in sel], label=f"Evidence: {what}"),
            self.note: "",
            self.verdict: verdict_html(v, show), self.yes_btn: gr.Button(f"{yes.capitalize()} (y)"), self.no_btn: gr.Button(f"{no.capitalize()} (n)"),
        }
        if agree:
            out[self.agreement] = agreement_html(self.ctx, v, scope=v.scope, who=who)
            out[self.scope] = gr.Radio(value=v.scope)
        if v.campaign:
            out.update(self.camp.labelled(self.ctx, v.campaign, v.annotator, who, v.lang))
        return out

    def refused(self, message: str) -> dict:
        """One clear line on the status line; every other component is left as it is."""
        return {self.status: f"⚠ {message}"}

    def queue_view(self, name: str, person: str, who: Who, skipped: list[str] | None = None) -> LabelView | str:
        lc = self.lc
        skip = [lc.parse_key(k) for k in skipped or []]
        got = lc.queue_next(self.ctx, name, person, lc.reader(self.ctx, who), skip)
        if isinstance(got, str):
            return got
        v = load_view(self.ctx, got.run_id, person, got.side)
        v.campaign, v.idx, v.skipped = name, got.index, [k for k in skipped or [] if k != got.key()]
        camp = self.ctx.store.campaign(name)
        # a judge review shows the verdicts on the card, unless the run is in a blind campaign too
        v.blind = True if camp is None or camp.blind or v.blind else False
        return v

    def pressed(self, request: gr.Request, raw: Any, v: LabelView, key: str, act: Callable[[Press], dict]) -> dict:
        """``act(press)`` for a press made on the card the view holds; any other press refused on its line."""
        v.lang = browser_lang(request)
        with self.presses.turn(request, v, raw, key) as (why_not, press):
            if why_not:
                v.refusal_of = press.seq or 0
                return {self.refused_line: f"⚠ {why_not}"}
            out = act(press)
            return {**out, self.refused_line: ""} if clears_refusal(v, press.seq) else out

    # ------------------------------------------------------------------ handlers
    def on_load(self, v: LabelView, run_id: str, side: str, typed: str, show: bool, request: gr.Request):
        ctx = self.ctx
        who, v.lang = ctx.who(request), browser_lang(request)
        name = annotator_for(who, typed)
        problem = start_problem(run_id, name)
        if problem:
            return self.refused(problem)
        try:
            if not ctx.readable(who, ctx.store.get_run(run_id)):
                raise KeyError(f"no run with id {run_id!r} in this database")
            loaded = load_view(ctx, run_id, name, side)
        except (KeyError, ValueError) as exc:
            return self.refused(str(exc).strip("'\""))
        with self.presses.hold(request):
            v.refusal_of = None
            return {**self.render(v.take(loaded), show, who), self.refused_line: ""}

    def on_next_item(self, v: LabelView, name: str, typed: str, show: bool, request: gr.Request):
        who, v.lang = self.ctx.who(request), browser_lang(request)
        with self.presses.hold(request):
            got = self.queue_view(name, annotator_for(who, typed), who)
            if isinstance(got, str):
                return {**self.refused(got), **(self.camp.labelled(self.ctx, name, annotator_for(who, typed), who, v.lang) if name else {})}
            v.refusal_of = None
            return {**self.render(v.take(got), show, who), self.refused_line: ""}

    def on_label(self, covered: bool):
        def handler(v: LabelView, press: Any, show: bool, request: gr.Request):
            return self.pressed(request, press, v, "y" if covered else "n", lambda p: labelled(v, p, show, request))

        def labelled(v: LabelView, p: Press, show: bool, request: gr.Request):
            who = self.ctx.who(request)
            ev = ticked(p.evidence, p.card or "")
            if covered and ev is None:
                return self.refused(OTHER_CARDS_EVIDENCE)
            try:
                record_label(self.ctx, v, covered, ev, p.note)
            except LabelRefused as exc:
                return self.refused(str(exc))
            if v.campaign:  # on to the next item of the queue
                last, name = v.last, v.campaign
                got = self.queue_view(name, v.annotator, who, v.skipped)
                if isinstance(got, str):
                    out = self.render(v, show, who)
                    out[self.status] = f"{last} {got}"
                    return out
                got.last, got.scope = last, v.scope
                return self.render(v.take(got), show, who)
            return self.render(v, show, who)
        return handler

    def on_move(self, step: int):
        def handler(v: LabelView, press: Any, show: bool, request: gr.Request):
            return self.pressed(request, press, v, "j" if step > 0 else "k", lambda _p: self.moved(v, step, show, request))
        return handler

    def moved(self, v: LabelView, step: int, show: bool, request: gr.Request) -> dict:
        if not v.items:
            return {self.view: v}
        v.idx = max(0, min(len(v.items) - 1, v.idx + step))
        return self.render(v, show, self.ctx.who(request), agree=False)

    def on_skip(self, v: LabelView, press: Any, show: bool, request: gr.Request):
        """``s``: leave this item unlabelled. One run: the next triple; a campaign: the next item of
        the queue, the skipped ones coming back only when nothing else is left."""
        return self.pressed(request, press, v, "s", lambda _p: self.skipped(v, show, request))

    def skipped(self, v: LabelView, show: bool, request: gr.Request):
        if not v.items:
            return {self.view: v}
        if not v.campaign:
            v.idx = min(len(v.items) - 1, v.idx + 1)
            return self.render(v, show, self.ctx.who(request), agree=False)
        who = self.ctx.who(request)
        key = Item(v.run_id or "", "validity" if v.side == "validity" else "coverage", v.idx).key()
        skipped = [*[k for k in v.skipped if k != key], key]
        got = self.queue_view(v.campaign, v.annotator, who, skipped)
        if isinstance(got, str):
            return {**self.refused(got), self.view: v}
        if (got.run_id, got.side, got.idx) == (v.run_id, v.side, v.idx):
            return {self.view: v, self.status: "Nothing else is left in your queue: this is the last item without your label."}
        got.last, got.scope = f"Skipped {v.side} #{v.idx + 1} of run {v.run_id}.", v.scope
        return self.render(v.take(got), show, who, agree=False)

    def on_search(self, v: LabelView, q: str, sel: list[str] | None):
        ids = [i for value in sel or [] for i in ticked([value], card_id(v)) or []]
        return gr.CheckboxGroup(choices=evidence_choices(v, q, ids), value=[evidence_value(v, i) for i in ids])

    def on_pick_campaign(self, name: str, typed: str, show_all: bool, request: gr.Request):
        """Campaign mode on (a campaign picked) or off: the one-run row hides, the panel refreshes
        itself while it is shown."""
        camp = self.camp
        who = self.ctx.who(request)
        on = bool(name)
        return {**camp.refreshed(self.ctx, name or "", annotator_for(who, typed), who, show_all=show_all, lang=browser_lang(request)), camp.status: "",
                camp.timer: gr.Timer(active=on), self.one_run: gr.Column(visible=not on), camp.tools: gr.Row(visible=on),
                camp.tail: gr.Column(visible=on), camp.confirm: None,
                # a campaign says whether verdicts come before a label (blind or a judge review): no toggle
                self.show_anyway: gr.Checkbox(visible=not on)}

    def on_refresh(self, name: str, typed: str, show_all: bool, picked: Any, shown: Any, request: gr.Request):
        if not name:
            return {self.camp.progress: gr.skip()}
        who = self.ctx.who(request)
        return self.camp.refreshed(self.ctx, name, annotator_for(who, typed), who, show_all=show_all, picked=picked, shown=shown,
                                  lang=browser_lang(request))

    def on_resolve(self, label: bool):
        ctx, camp, lc = self.ctx, self.camp, self.lc

        def handler(name: str, key: Any, typed: str, comment: str, show_all: bool, waiting: Any, request: gr.Request):
            reader = ctx.who(request)
            who = annotator_for(reader, typed)
            warning = lc.replace_warning(ctx, key) if name and who else None
            if warning and waiting != [key, label]:  # a resolution is replaced only once confirmed
                return {camp.status: warning, camp.confirm: [key, label]}
            line = lc.resolve(ctx, name or "", key, who, label, comment, lc.reader(ctx, reader))
            if line.startswith("⚠"):
                return {camp.status: line, camp.confirm: None}
            return {**camp.refreshed(ctx, name, who, reader, show_all=show_all, picked=key, lang=browser_lang(request)), camp.status: line,
                    camp.comment: "", camp.confirm: None}
        return handler

    def on_scope(self, v: LabelView, sc: str, request: gr.Request):
        v.scope = "all" if sc == "all" else "run"
        return v, agreement_html(self.ctx, v, scope=v.scope, who=self.ctx.who(request))

    def on_export(self, fmt: str, where: str, run_id: Any, v: LabelView, typed: str, request: gr.Request):
        ctx = self.ctx
        who = ctx.who(request)
        picked = run_id if isinstance(run_id, str) and run_id else v.run_id
        if where == "run" and not picked:
            return "⚠ Pick a run above first (or export every run you may read).", None
        try:
            path, line = export_file(ctx, who, fmt, run_id=picked if where == "run" else None)
        except ExportRefused as exc:
            return f"⚠ {exc}", None
        # the copy Gradio serves, made here so that only this login is served it; the folder the
        # export was written in goes at once
        served = processing_utils.save_file_to_cache(path, self.ex_file.GRADIO_CACHE)
        shutil.rmtree(path.parent, ignore_errors=True)
        ctx.serve_privately(served, who.login)
        return line, served

    def on_reload(self, request: gr.Request):
        return gr.Dropdown(choices=labelable_runs(self.ctx, self.ctx.who(request)))

    def on_show(self, request: gr.Request):
        who = self.ctx.who(request)
        if who.player:  # a study's player labels nothing
            return gr.skip(), gr.skip(), gr.skip()
        # with a login the labels are stored under it (``annotator_for``): no name band to fill or read
        name = gr.Textbox(value=who.login, interactive=False, visible=False) if who.login else gr.skip()
        return gr.Dropdown(choices=labelable_runs(self.ctx, who)), name, gr.Dropdown(choices=self.lc.campaign_choices(self.ctx))

    # ------------------------------------------------------------------ events
    def wire(self) -> dict[str, Any]:
        """Connect the components to the handlers (in the page's fixed order); ``on_show`` and its
        ``outputs``, for the page's load event and the tab's select event (app/ui.py)."""
        camp, lc, view, outs, annotator = self.camp, self.lc, self.view, self.outs, self.annotator
        camp_outs = [*camp.outputs(), camp.status, camp.comment, camp.confirm]
        mode_outs = [*camp.outputs(), camp.status, camp.timer, self.one_run, camp.tools, camp.tail, camp.confirm, self.show_anyway]
        refresh_in = [camp.pick, annotator, camp.show_all, camp.dispute, camp.shown]
        self.load_btn.click(self.on_load, [view, self.run_pick, self.side_pick, annotator, self.show_anyway], outs, api_visibility="private").then(
            None, None, None, js=SHOW_CARD_JS, api_visibility="private")
        camp.next_btn.click(self.on_next_item, [view, camp.pick, annotator, self.show_anyway], outs, api_visibility="private").then(
            None, None, None, js=SHOW_CARD_JS, api_visibility="private")
        camp.pick.change(self.on_pick_campaign, [camp.pick, annotator, camp.show_all], mode_outs, api_visibility="private", show_progress="hidden")
        camp.leave_btn.click(lambda: None, None, camp.pick, api_visibility="private", show_progress="hidden")
        camp.refresh_btn.click(self.on_refresh, refresh_in, camp.outputs(), api_visibility="private", show_progress="hidden")
        camp.show_all.input(self.on_refresh, refresh_in, camp.outputs(), api_visibility="private", show_progress="hidden")
        camp.timer.tick(None, None, None, js=lc.REFRESH_JS, api_visibility="private")
        camp.dispute.input(lambda: None, None, camp.confirm, api_visibility="private", show_progress="hidden")
        resolve_in = [camp.pick, camp.dispute, annotator, camp.comment, camp.show_all, camp.confirm]
        camp.resolve_yes.click(self.on_resolve(True), resolve_in, camp_outs, api_visibility="private")
        camp.resolve_no.click(self.on_resolve(False), resolve_in, camp_outs, api_visibility="private")
        self.scope.input(self.on_scope, [view, self.scope], [view, self.agreement], api_visibility="private")
        self.ex_btn.click(self.on_export, [self.ex_fmt, self.ex_scope, self.run_pick, view, annotator], [self.ex_status, self.ex_file], api_visibility="private")
        self.reload_btn.click(self.on_reload, None, self.run_pick, api_visibility="private")
        # each press goes with the card it was pressed on (``_label_keys``; the stamp rides in ``press``),
        # and every press is one event ("multiple": Gradio would drop a press made while one is pending)
        press = gr.Textbox(visible=False, elem_id="vs-label-press")
        for btn, fn, key in ((self.yes_btn, self.on_label(True), "y"), (self.no_btn, self.on_label(False), "n"), (self.next_btn, self.on_move(1), "j"),
                             (self.skip_btn, self.on_skip, "s"), (self.prev_btn, self.on_move(-1), "k")):
            btn.click(fn, [view, press, self.show_anyway], outs, js=press_js(key, 1), api_visibility="private", trigger_mode="multiple")
        self.search.input(self.on_search, [view, self.search, self.evidence], self.evidence, api_visibility="private", show_progress="hidden")
        self.show_anyway.change(lambda v, s: verdict_html(v, s), [view, self.show_anyway], self.verdict, api_visibility="private")
        if self.new_camp is not None:
            campaign_new.wire(self.new_camp, self.ctx, self.ctx.who, camp.pick, lambda: lc.campaign_choices(self.ctx))
        return {"on_show": self.on_show, "outputs": [self.run_pick, annotator, camp.pick]}


def build(ctx: AppContext) -> dict[str, Any]:
    """The tab, in two: the triples (labelling) and the votes (``app.vote``); returns ``on_show``
    (fills the run, campaign and vote-campaign lists and, with a login, the annotator name) and its
    ``outputs``, for the page's load event and the tab's select event (app/ui.py)."""
    from .vote import VoteTab

    with gr.Tabs(elem_id="vs-label-modes"):
        with gr.Tab(ui_text("Triples"), id="label-triples", elem_id="vs-label-triples"):
            triples = LabelTab(ctx).wire()
        with gr.Tab(ui_text("Vote"), id="label-vote", elem_id="vs-vote-panel"):
            votes = VoteTab(ctx).wire()

    def on_show(request: gr.Request):
        return (*triples["on_show"](request), *votes["on_show"](request))

    return {"on_show": on_show, "outputs": [*triples["outputs"], *votes["outputs"]]}
