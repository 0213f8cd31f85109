"""What a study's player sees: the consent, then the persona card and the conversation with
their turn's controls — nothing else of the app (``ui`` hides the tabs for a player login, and
the front door lets a player call only this view's handlers and the page's loads).

The agent is never named here: the chat shows its messages, the status line the run and its
state; the counters and the score (which name models) are kept on the server (``gr.State``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ..labels.study_votes import study_pairs
from ..labels.votes import VoteError, cast_vote
from ..run import DECISIONS
from ..run.events import GraphEvent, StageEvent
from ..store.tables import StudyCodeRow, StudyRow
from ._policy import form_request
from ._studies import StudyConfig, is_player
from ._words import browser_lang, lang_of, zh_text
from .context import AppContext, RunView
from .live import NotYourRun
from .play import DECISION_CHOICES, SEND_HINT, TICK_S, decision_radio, human_card_html_waiting, refresh
from ._vote_view import WINNER_WORDS, answer_md, final_answer
from .render import inert, md_line, persona_html

VOTE_BUTTONS = (("a", "A is better"), ("b", "B is better"), ("tie", "Tie"), ("both_bad", "Both bad"))


@dataclass
class PlayerHandles:
    column: gr.Column
    on_load: Any
    outputs: list[Any]
    fns: list[Any]  # the event listeners of this view (the front door lets players call only these)


def player_events(events: list) -> list:
    """What the player's chat draws: not the shadow's decisions (it runs silently), not the graph."""
    return [ev for ev in events if not (isinstance(ev.data, StageEvent) and ev.data.shadow) and not isinstance(ev.data, GraphEvent)]


def ended_text(status: str, run_id: str) -> str:
    """The player's last status line: thanks, that they may close the page, and a reference."""
    head = "Time is up — thank you for playing" if status == "abandoned" else "Thank you — your play is over"
    return (f"**{head}** ({status}). You may close this page now.\n\n"
            f"<span class='vs-muted'>If you write to the study's organiser, quote this reference: `{run_id}`</span>")


def _play_of(ctx: AppContext, login: str | None) -> tuple[StudyCodeRow, StudyRow, StudyConfig] | None:
    if not is_player(login):
        return None
    play = ctx.store.study_play_of(str(login))
    study = ctx.store.study(play.study_id) if play is not None else None
    if play is None or study is None:
        return None
    return play, study, StudyConfig.of(study)


def build(ctx: AppContext) -> PlayerHandles:
    view = gr.State(RunView())
    hidden = {name: gr.State() for name in ("counters", "score", "table_answer", "pred_table")}
    with gr.Column(visible=False, elem_id="vs-player") as column:
        title = gr.Markdown(elem_id="vs-player-title")
        with gr.Group(visible=False, elem_id="vs-player-consent") as consent_box:
            consent = gr.Markdown(elem_id="vs-player-consent-text")
            agree = gr.Button("I agree — start", variant="primary", elem_id="vs-player-agree")
        # Play's turn layout: the conversation on the left, the turn's controls at the top of the
        # column beside it (the decision, the message and Send in the first screen of a laptop),
        # the stage card and the persona under them
        with gr.Column(visible=False, elem_id="vs-player-play") as play_box:
            status = gr.Markdown(elem_id="vs-player-status")
            with gr.Row(equal_height=False):
                with gr.Column(scale=3, min_width=380):
                    chat = gr.Chatbot(label="Conversation", height=480, elem_id="vs-player-chat", feedback_options=None,
                                      show_label=False, layout="bubble", buttons=[])
                    stepper = gr.HTML(elem_id="vs-player-stepper")
                with gr.Column(scale=2, min_width=300):
                    with gr.Group(visible=False, elem_id="vs-player-turn") as human_box:
                        decision = gr.Radio(DECISION_CHOICES, value=None, label="What do you do this turn?", elem_id="vs-player-decision")
                        message = gr.Textbox(label="Your message (as the persona)", lines=3, elem_id="vs-player-msg", info=SEND_HINT)
                        send = gr.Button("Send", variant="primary", elem_id="vs-player-send", interactive=False)
                        human_card = gr.HTML(elem_id="vs-player-card")
                    persona = gr.HTML(elem_id="vs-player-persona")
        # after the play (optional): other finished runs of the persona, two at a time, agents hidden
        with gr.Group(visible=False, elem_id="vs-player-vote") as vote_box:
            vote_head = gr.Markdown(elem_id="vs-player-vote-head")
            with gr.Row(equal_height=False):
                with gr.Column(min_width=300):
                    gr.Markdown("**A** — final answer")
                    vote_a = gr.Markdown(elem_id="vs-player-vote-a")
                with gr.Column(min_width=300):
                    gr.Markdown("**B** — final answer")
                    vote_b = gr.Markdown(elem_id="vs-player-vote-b")
            with gr.Row():
                vote_btns = {w: gr.Button(text, variant="stop" if w == "both_bad" else "primary" if w in ("a", "b") else "secondary",
                                          elem_id=f"vs-player-vote-pick-{w}", min_width=110) for w, text in VOTE_BUTTONS}
                no_thanks = gr.Button("No thanks", size="sm", elem_id="vs-player-vote-done", min_width=90)
            vote_reason = gr.Textbox(label="Reason (optional)", lines=1, elem_id="vs-player-vote-reason")
        vote_status = gr.Markdown(elem_id="vs-player-vote-status")
        pair = gr.State(None)  # the pair shown (run ids stay on the server)
        timer = gr.Timer(TICK_S, active=False)

    comps = dict(view=view, chat=chat, stepper=stepper, status=status, human_box=human_box, human_card=human_card,
                 send=send, timer=timer, persona=persona, **hidden)
    vote_outputs = [vote_box, vote_head, vote_a, vote_b, vote_reason, vote_status, pair]
    live_outputs = list(comps.values()) + vote_outputs

    def _vote_card(login: str, run_id: str, last: str = "") -> dict:
        """The next pair open to the player (``labels.study_votes``), or the box hidden when none is left."""
        pairs = study_pairs(ctx.store, run_id, login)
        if not pairs:
            return {vote_box: gr.Group(visible=False), pair: None, vote_status: f"{last} Thank you." if last else ""}
        shown = [ctx.store.get_run(rid) for rid in pairs[0]]
        ans = [answer_md(final_answer(ctx.store.events(r.id), r)) for r in shown]
        head = (f"{last} " if last else "") + ("**One more thing, if you like:** other assistants answered the same "
                                               "persona. As that person, which final answer would you prefer? "
                                               f"({len(pairs)} left)")
        return {vote_box: gr.Group(visible=True), vote_head: head, vote_a: ans[0], vote_b: ans[1], vote_reason: "",
                vote_status: "", pair: pairs[0]}

    def _refreshed(who: Any, v: RunView) -> dict:
        """``play.refresh`` for the player; once the play is over, the status line thanks them
        and says they may close the page (with a reference to quote to the organiser)."""
        out = refresh(ctx, who, v, comps, player_events)
        if status in out and v.run_id:
            run = ctx.store.get_run(v.run_id)
            if run.status != "running":
                out[status] = ended_text(run.status, run.id)
                if v.changed("vote", run.id):  # once per page: the vote card after the thanks
                    out.update(_vote_card(str(who.login), run.id))
        return out

    def _shown_run(play: StudyCodeRow, out: dict, who: Any) -> dict:
        nv = RunView(run_id=play.run_id)
        out.update(_refreshed(who, nv))
        out.update({view: nv, timer: gr.Timer(active=True), consent_box: gr.Group(visible=False), play_box: gr.Column(visible=True),
                    decision: decision_radio(ctx.catalog.tasks.get(play.task_id))})
        return out

    def on_load(request: gr.Request):
        who = ctx.who(request)
        found = _play_of(ctx, who.login)
        if found is None:
            return {column: gr.skip()}
        play, study, config = found
        out: dict = {column: gr.Column(visible=True), title: f"## {md_line(study.name)}"}
        if play.run_id:
            return _shown_run(play, out, who)
        task = ctx.catalog.tasks.get(play.task_id)
        text = inert(config.consent) if config.consent else "This study records what you type and what the assistant answers."
        limit = f"You have {config.time_limit_min:g} minutes for the play."
        out.update({consent_box: gr.Group(visible=True), consent: f"{text}\n\n{limit}",
                    play_box: gr.Column(visible=False), persona: persona_html(task) if task else ""})
        return out

    def on_agree(v: RunView, request: gr.Request):
        who = ctx.who(request)
        found = _play_of(ctx, who.login)
        if found is None:
            raise gr.Error("This page is for a study's player.")
        play, study, config = found
        if play.run_id:  # started already (another tab): show it
            return _shown_run(play, {}, who)
        task = ctx.catalog.tasks.get(play.task_id)
        if task is None:
            raise gr.Error("This play's persona is not on this server; tell the study's organiser.")
        try:
            req = form_request(ctx.settings, task_id=task.id, agent=config.agent, user="human",
                               agent_model=config.agent_model or None, simulator_model=config.simulator_model or None,
                               search_backend=ctx.settings.search_backend, shadow=config.shadow)
        except (ValueError, KeyError, TypeError) as exc:
            raise gr.Error(f"The study cannot start: {exc}") from None
        req.time_limit_s = config.time_limit_min * 60.0
        req.meta = {"study": study.id, "study_slot": play.slot, "blind": config.blind}
        live = ctx.manager.start(req, task, who.owner or "")
        if not ctx.store.set_study_run(str(who.login), live.run_id):  # a second tab won the race: keep the first
            ctx.manager.stop(live.run_id, who.owner, admin=False)
            play = ctx.store.study_play_of(str(who.login)) or play
        else:
            play = ctx.store.study_play_of(str(who.login)) or play
        return _shown_run(play, {}, who)

    def on_tick(v: RunView, request: gr.Request):
        who = ctx.who(request)
        if _play_of(ctx, who.login) is None:
            return {timer: gr.Timer(active=False)}
        out = _refreshed(who, v)
        live = ctx.manager.get(v.run_id) if v.run_id else None
        human = live.human if live is not None else None
        if human is not None and human.deadline is not None and live is not None and not live.finished:
            left = max(0, int(human.deadline - time.time()))
            run = ctx.store.get_run(v.run_id) if v.run_id else None
            if run is not None and run.status == "running":
                waiting = bool(live.pending())
                out[status] = (f"**Your turn** — {left // 60}:{left % 60:02d} left" if waiting
                               else f"The assistant is working… {left // 60}:{left % 60:02d} left")
        return out

    def on_send(v: RunView, choice: str, text: str, request: gr.Request):
        who = ctx.who(request)
        if _play_of(ctx, who.login) is None or not v.run_id:
            raise gr.Error("No play is going.")
        if choice not in DECISIONS:  # a warning (an error would cover the controls)
            gr.Warning(zh_text("Choose what you do this turn first, then Send.", browser_lang(request)))
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        try:
            ctx.manager.submit(v.run_id, who.owner, text if isinstance(text, str) else "", choice, admin=False)
        except (NotYourRun, ValueError, KeyError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        lang = lang_of(ctx.task_of_run(ctx.store.get_run(v.run_id)))
        return "", gr.Radio(value=None), gr.Button(interactive=False), human_card_html_waiting(lang)

    def on_vote(winner: str):
        def handler(v: RunView, shown: Any, reason: Any, request: gr.Request):
            who = ctx.who(request)
            found = _play_of(ctx, who.login)
            if found is None or not found[0].run_id or ctx.store.get_run(found[0].run_id).status == "running":
                raise gr.Error("Votes come after your play.")
            login, run_id = str(who.login), str(found[0].run_id)
            if not isinstance(shown, (tuple, list)) or tuple(shown) not in study_pairs(ctx.store, run_id, login):
                return _vote_card(login, run_id, "That pair is no longer open; nothing was stored.")
            try:
                cast_vote(ctx.store, shown[0], shown[1], winner, login, reason=reason.strip() if isinstance(reason, str) else "")
            except VoteError as exc:
                return {vote_status: f"⚠ {md_line(str(exc))}"}
            return _vote_card(login, run_id, f"Stored: {WINNER_WORDS[winner]}.")
        return handler

    def on_no_thanks():
        return {vote_box: gr.Group(visible=False), pair: None, vote_status: ""}

    outs = [column, title, consent_box, consent, play_box, decision, *live_outputs]
    fns = [
        agree.click(on_agree, [view], outs, api_visibility="private"),
        timer.tick(on_tick, [view], live_outputs, api_visibility="private", concurrency_limit=None, show_progress="hidden",
                   trigger_mode="always_last"),
        send.click(on_send, [view, decision, message], [message, decision, send, human_card], api_visibility="private"),
        message.submit(on_send, [view, decision, message], [message, decision, send, human_card], api_visibility="private"),
        *[btn.click(on_vote(w), [view, pair, vote_reason], vote_outputs, api_visibility="private") for w, btn in vote_btns.items()],
        no_thanks.click(on_no_thanks, None, vote_outputs, api_visibility="private"),
    ]
    return PlayerHandles(column=column, on_load=on_load, outputs=outs, fns=fns)
