"""The Label tab's Vote tab (issue 42): a voter of a vote campaign reads a persona and two
conversations of it, and picks the answer that person would prefer.

The card: the persona card, then the two final answers side by side (each scrolls in its own box,
so the buttons stay in a laptop's window), the vote buttons, an optional reason, and under them
each full conversation, folded. The agents are hidden: no agent, model, configuration or score is
on the card or in any answer of these handlers (``_vote_view``). Which run is on side A is drawn
per voter and pair (``labels.vote_campaigns.sides``) and the vote is stored in that order.

Keys (outside a text field, ``_assets.VOTE_KEYS_JS``): ``a`` / ``b`` the side, ``t`` a tie, ``x``
both bad, ``s`` skip. Each press carries the card it was pressed on, and one meant for a pair no
longer shown is refused on a line of its own (``_label_keys.PressLine``, the Label tab's rule).

The voter is the login when there is one, else the name typed; they must be one of the campaign's
voters. A vote campaign's voters read its pairs whatever the read policy (the admin who made it
named them). Admins make vote campaigns here (``_vote_new``) or with ``vibesearch votes campaign create``.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from ..labels.vote_campaigns import (
    VoteCampaignError,
    VoteItem,
    get_vote_campaign,
    next_item,
    progress,
    sides,
    vote_on,
    voter_of,
)
from . import _vote_new
from ._access import Who, annotator_for
from ._assets import scroll_when_shown_js
from ._label_keys import Press, PressLine, clears_refusal, press_js
from ._vote_view import KEYS, WINNER_OF_KEY, WINNER_WORDS, VoteView, answer_md, card_html, conversation, final_answer, refusal
from ._words import Lang, browser_lang, say_in, ui_text, zh_text
from .context import AppContext
from .render import md_line

# once a pair is shown, the page scrolls the card (persona, answers, buttons) to the window's top
SHOW_CARD_JS = scroll_when_shown_js("vs-vote-work", "#vs-vote-card [data-card]", "start")
VOTE_KEYS_LINE = ("Keys: <kbd>a</kbd> A is better · <kbd>b</kbd> B is better · <kbd>t</kbd> tie · <kbd>x</kbd> both bad · "
                  "<kbd>s</kbd> skip (outside a text field)")


PLAYER_HERE = "A study's player votes at the end of their play, not here."


def campaign_choices(ctx: AppContext) -> list[tuple[str, str]]:
    return [(f"{c.name} · {len(c.items())} pairs · k={c.overlap}", c.name) for c in ctx.store.vote_campaigns()]


def progress_md(ctx: AppContext, name: str, voter: str, lang: Lang = "en") -> str:
    """The vote campaign's progress line, its fixed words in ``lang``."""
    say = say_in(lang)
    if not name:
        return ""
    try:
        p = progress(ctx.store, get_vote_campaign(ctx.store, name))
    except VoteCampaignError as exc:
        return f"⚠ {md_line(str(exc))}"
    mine = p["annotators"].get(voter)
    you = say("**{name}**: {voted} voted, {left} left in your queue · ").format(
        name=md_line(voter), voted=mine["voted"], left=mine["queue"]) if mine else ""
    return say("Vote campaign **{name}**: {you}pairs done {done} / {items} (k={k}) · votes {votes} / {needed}").format(
        name=md_line(name), you=you, done=p["items_done"], items=p["items"], k=p["overlap"], votes=p["votes"], needed=p["votes_needed"])


def load_item(ctx: AppContext, name: str, voter: str, item: VoteItem) -> VoteView:
    """The view of one pair, the runs in the order this voter is shown them."""
    camp = get_vote_campaign(ctx.store, name)
    run_a, run_b = (ctx.store.get_run(rid) for rid in sides(camp, voter, item))
    ev_a, ev_b = ctx.store.events(run_a.id), ctx.store.events(run_b.id)
    task = ctx.task_of_run(run_a)
    mine = progress(ctx.store, camp)["annotators"].get(voter, {}).get("voted", 0)
    return VoteView(campaign=name, voter=voter, index=item.index, number=mine + 1, task=task,
                    answers=(final_answer(ev_a, run_a), final_answer(ev_b, run_b)),
                    chats=(conversation(run_a, ev_a, task), conversation(run_b, ev_b, task)))


def next_view(ctx: AppContext, name: Any, voter: str, skipped: list[int] | None = None, lang: Lang = "en") -> VoteView | str:
    """The voter's next pair, or why there is none (one line; its fixed words in ``lang``)."""
    say = say_in(lang)
    if not name or not isinstance(name, str):
        return say("Pick a vote campaign first.")
    if not voter:
        return say("Type your name first (votes are stored under it).")
    try:
        camp = get_vote_campaign(ctx.store, name)
        who = voter_of(camp, voter)
        item = next_item(ctx.store, camp, who, skipped or [])
        if item is None:
            return say("Your queue in vote campaign {name} is empty: every pair has your vote or enough votes.").format(name=name)
        got = load_item(ctx, name, who, item)
    except VoteCampaignError as exc:
        return str(exc)
    got.skipped = [i for i in skipped or [] if i != item.index]
    return got


class VoteTab:
    """The Vote tab's components and handlers; ``wire`` connects them."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.view = gr.State(VoteView())
        self.presses = PressLine(refuse=refusal)
        with gr.Row(equal_height=False):
            self.pick = gr.Dropdown([], label=ui_text("Vote campaign"), scale=3, elem_id="vs-vote-pick")
            self.voter = gr.Textbox(label=ui_text("Your name"), scale=1, min_width=160, elem_id="vs-vote-voter")
            self.next_btn = gr.Button(ui_text("Next pair"), variant="primary", scale=1, min_width=140, elem_id="vs-vote-next")
        self.progress = gr.Markdown(elem_id="vs-vote-progress")
        self.form = _vote_new.build_form()
        with gr.Column(elem_id="vs-vote-work"):
            self.card = gr.HTML(card_html(VoteView()), elem_id="vs-vote-card")
            with gr.Row(equal_height=False):
                with gr.Column(min_width=300):
                    gr.Markdown(ui_text("**A** — final answer"))
                    self.answer_a = gr.Markdown(elem_id="vs-vote-answer-a")
                with gr.Column(min_width=300):
                    gr.Markdown(ui_text("**B** — final answer"))
                    self.answer_b = gr.Markdown(elem_id="vs-vote-answer-b")
            with gr.Row():
                self.a_btn = gr.Button(ui_text("A is better (a)"), variant="primary", elem_id=KEYS["a"], min_width=120)
                self.b_btn = gr.Button(ui_text("B is better (b)"), variant="primary", elem_id=KEYS["b"], min_width=120)
                self.tie_btn = gr.Button(ui_text("Tie (t)"), elem_id=KEYS["t"], min_width=90)
                self.bad_btn = gr.Button(ui_text("Both bad (x)"), variant="stop", elem_id=KEYS["x"], min_width=110)
                self.skip_btn = gr.Button(ui_text("Skip (s)"), size="sm", elem_id=KEYS["s"], min_width=80)
            with gr.Row(equal_height=False):
                # read by the page at the press (``_assets.VOTE_KEYS_JS``), so no event takes it in
                self.reason = gr.Textbox(label=ui_text("Reason (optional)"), lines=1, scale=3, elem_id="vs-vote-reason", interactive=True)
                gr.HTML(ui_text(VOTE_KEYS_LINE), elem_classes="vs-keys", elem_id="vs-vote-keys")
            self.refused_line = gr.Markdown(elem_id="vs-vote-refused")
            self.status = gr.Markdown(elem_id="vs-vote-status")
            with gr.Row(equal_height=False):
                with gr.Accordion(ui_text("Full conversation A"), open=False, elem_id="vs-vote-chat-a-box"):
                    self.chat_a = gr.Chatbot(show_label=False, height=480, elem_id="vs-vote-chat-a", feedback_options=None, buttons=[])
                with gr.Accordion(ui_text("Full conversation B"), open=False, elem_id="vs-vote-chat-b-box"):
                    self.chat_b = gr.Chatbot(show_label=False, height=480, elem_id="vs-vote-chat-b", feedback_options=None, buttons=[])
        self.outs = [self.view, self.card, self.answer_a, self.answer_b, self.chat_a, self.chat_b, self.reason, self.progress,
                     self.status, self.refused_line]

    # ------------------------------------------------------------------ drawing
    def render(self, v: VoteView) -> dict[Any, Any]:
        return {self.view: v, self.card: card_html(v), self.answer_a: answer_md(v.answers[0], v.lang) if v.index is not None else "",
                self.answer_b: answer_md(v.answers[1], v.lang) if v.index is not None else "", self.chat_a: list(v.chats[0]),
                self.chat_b: list(v.chats[1]), self.reason: "", self.status: v.last,
                self.progress: progress_md(self.ctx, v.campaign or "", v.voter, v.lang)}

    def refused(self, message: str, lang: Lang = "en") -> dict[Any, Any]:
        return {self.status: f"⚠ {md_line(zh_text(message, lang))}"}

    def voter_name(self, who: Who, typed: Any) -> str:
        return annotator_for(who, typed)

    # ------------------------------------------------------------------ handlers
    def on_show(self, request: gr.Request):
        who = self.ctx.who(request)
        if who.player:  # a study's player votes on nothing here
            return gr.skip(), gr.skip()
        name = gr.Textbox(value=who.login, interactive=False, visible=False) if who.login else gr.skip()
        return gr.Dropdown(choices=campaign_choices(self.ctx)), name

    def on_pick(self, name: Any, typed: Any, request: gr.Request):
        who = self.ctx.who(request)
        return progress_md(self.ctx, name if isinstance(name, str) else "", self.voter_name(who, typed), browser_lang(request))

    def on_next(self, v: VoteView, name: Any, typed: Any, request: gr.Request):
        who, v.lang = self.ctx.who(request), browser_lang(request)
        if who.player:
            return self.refused(PLAYER_HERE, v.lang)
        with self.presses.hold(request):
            got = next_view(self.ctx, name, self.voter_name(who, typed), lang=v.lang)
            if isinstance(got, str):
                return self.refused(got)
            v.refusal_of = None
            return {**self.render(v.take(got)), self.refused_line: ""}

    def pressed(self, request: gr.Request, raw: Any, v: VoteView, key: str, act: Any) -> dict[Any, Any]:
        """``act(press)`` for a press made on the card the view holds; any other press refused on its line."""
        v.lang = browser_lang(request)
        with self.presses.turn(request, v, raw, key) as (why_not, press):
            if why_not:
                v.refusal_of = press.seq or 0
                return {self.refused_line: f"⚠ {md_line(why_not)}"}
            out = act(press)
            return {**out, self.refused_line: ""} if clears_refusal(v, press.seq) else out

    def on_vote(self, key: str):
        def handler(v: VoteView, press: Any, request: gr.Request):
            return self.pressed(request, press, v, key, lambda p: self.voted(v, key, p, request))
        return handler

    def voted(self, v: VoteView, key: str, p: Press, request: gr.Request) -> dict[Any, Any]:
        if self.ctx.who(request).player:
            return self.refused(PLAYER_HERE, v.lang)
        if v.campaign is None or v.index is None:
            return self.refused("Press “Next pair” first.", v.lang)
        winner = WINNER_OF_KEY[key]
        try:
            camp = get_vote_campaign(self.ctx.store, v.campaign)
            vote_on(self.ctx.store, camp, v.voter, v.index, winner, (p.note or "").strip())
        except VoteCampaignError as exc:
            return self.refused(str(exc))
        say = say_in(v.lang)
        last = say("Pair {n}: {winner}.").format(n=v.number, winner=say(WINNER_WORDS[winner]))
        got = next_view(self.ctx, v.campaign, v.voter, v.skipped, v.lang)
        if isinstance(got, str):
            v.index, v.task, v.last = None, None, f"{last} {got}"
            return self.render(v)
        got.last = last
        return self.render(v.take(got))

    def on_skip(self, v: VoteView, press: Any, request: gr.Request):
        return self.pressed(request, press, v, "s", lambda _p: self.skipped(v))

    def skipped(self, v: VoteView) -> dict[Any, Any]:
        if v.campaign is None or v.index is None:
            return {self.view: v}
        skipped = [*[i for i in v.skipped if i != v.index], v.index]
        say = say_in(v.lang)
        got = next_view(self.ctx, v.campaign, v.voter, skipped, v.lang)
        if isinstance(got, str):
            return self.refused(got)
        if got.index == v.index:
            return {self.status: say("Nothing else is left in your queue: this is the last pair without your vote.")}
        got.last = say("Skipped pair {n}.").format(n=v.number)
        return self.render(v.take(got))

    # ------------------------------------------------------------------ events
    def wire(self) -> dict[str, Any]:
        """Connect the components; ``on_show`` and its ``outputs`` for the page's load and the tab's select."""
        view, outs = self.view, self.outs
        self.next_btn.click(self.on_next, [view, self.pick, self.voter], outs, api_visibility="private").then(
            None, None, None, js=SHOW_CARD_JS, api_visibility="private")
        self.pick.change(self.on_pick, [self.pick, self.voter], self.progress, api_visibility="private", show_progress="hidden")
        press = gr.Textbox(visible=False, elem_id="vs-vote-press")
        for btn, key in ((self.a_btn, "a"), (self.b_btn, "b"), (self.tie_btn, "t"), (self.bad_btn, "x")):
            btn.click(self.on_vote(key), [view, press], outs, js=press_js(key, 1, KEYS), api_visibility="private", trigger_mode="multiple")
        self.skip_btn.click(self.on_skip, [view, press], outs, js=press_js("s", 1, KEYS), api_visibility="private", trigger_mode="multiple")
        _vote_new.wire(self.form, self.ctx, self.pick, lambda: campaign_choices(self.ctx))
        return {"on_show": self.on_show, "outputs": [self.pick, self.voter]}
