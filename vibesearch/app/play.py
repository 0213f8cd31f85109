"""The Play tab: start a run and watch it live, or play the persona yourself.

The page never holds the run: Start hands it to the run manager, and a timer reads the run's
new stored events and redraws the chat, the stage stepper and the counters. That is why a page
refresh reattaches (the owner token in the browser's storage names this browser's live runs)
and why what you see is exactly what was recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from .._fields import for_surface
from ..config import SEARCH_BACKENDS
from ..run import DECISIONS, PROTOCOLS, Decision, ProtocolProfile
from ..run.web import WebMode
from ..store import RunNotFound
from ..users.registry import is_person
from . import replay as replay_ui
from ._access import Who
from ._assets import scroll_when_shown_js
from ._failure import failure_html, failure_reason, status_reason
from ._loading import UPLOAD_SUFFIXES, LoadRefused, load_uploads
from ._policy import MAX_TURNS, agent_choices, form_request, user_choices
from ._words import Lang, browser_lang, decision_choices, lang_of, status_word, ui_choices, ui_text, words, zh_text
from .catalog import TaskCatalog
from .context import AppContext, RunView
from .live import NotYourRun
from .panels import (
    PRED_HEADERS,
    compute_stats,
    ground_truth,
    latest_scores,
    live_stats,
    missed_html,
    no_model,
    predicted_rows,
    predicted_triples,
    score_html,
    stats_html,
    table_answer_html,
    verdict_map,
    verdict_rows,
)
from .render import chat_messages, human_card_html, next_line, persona_html, plain_md, stage_pointer, stepper_html

_PROTOCOL_LABELS: dict[ProtocolProfile, str] = {"vibesearch": "vibesearch (ours)", "official": "official (the paper's harness)"}
BACKENDS = list(SEARCH_BACKENDS)
PROTOCOL_CHOICES = [(_PROTOCOL_LABELS[p], p) for p in PROTOCOLS]
_DECISION_LABELS: dict[Decision, str] = {
    "disclose": "disclose the next stage",
    "push": "push (trigger not met)",
    "perfunctory": "perfunctory answer",
    "redirect": "redirect",
    "done": "done",
}
DECISION_CHOICES = [(_DECISION_LABELS[d], d) for d in DECISIONS]
# the web a run sees (docs/web.md): the values are the only ones the server takes (``_policy.check_web``);
# a replay from here replays everything recorded for the chosen task
WEB_CHOICES: list[tuple[str, WebMode]] = [
    ("record the web it sees (web backends)", "record"),
    ("live, nothing recorded", "live"),
    ("replay the web recorded for this task", "replay"),
]
TICK_S = 0.6
# the chat's toolbar: a copy button on each message only. Gradio's share button posts to a
# Hugging Face discussion (nothing to share to here) and its clear button, which has no flag,
# wipes the view with no undo: PLAY_CSS hides it (``_play_assets``).
CHAT_BUTTONS: list = ["copy"]
SEND_HINT = "Shift+Enter sends, Enter starts a new line."
DEFAULT_PACE_S = 1.0  # the offline run takes well under a second; slow it down enough to watch


@dataclass
class PlayHandles:
    view: gr.State
    timer: gr.Timer
    catalog: gr.State
    outputs: list
    reattach: Any
    replay: Any = None  # replay.ReplayHandles: the replay controls in this tab
    task: Any = None  # the form's task, user and agent (Runs' "Continue in Play" sets them)
    user: Any = None
    agent: Any = None


def _catalog(ctx: AppContext, mine: TaskCatalog | None) -> TaskCatalog:
    return mine if mine is not None else ctx.catalog


SHOW_STOP_CONFIRM_JS = scroll_when_shown_js("vs-stop-confirm", "#vs-stop-confirm")


class PlayTab:
    """The tab's components (attributes) and its event handlers (methods); ``wire`` connects them."""

    def __init__(self, ctx: AppContext, owner: gr.BrowserState) -> None:
        self.ctx, self.owner = ctx, owner
        s = ctx.settings
        default_task = ctx.catalog.default_id()
        self.view = gr.State(RunView())
        self.my_catalog = gr.State(None)  # this browser session's catalog once it loads a folder

        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=290):
                self.form_show = gr.Button(ui_text("Show the run form"), size="sm", visible=False, elem_id="vs-form-show")
                with gr.Column(elem_id="vs-play-form") as self.form:  # folded while a replay plays (Start still reads it)
                    self.task = gr.Dropdown(ctx.catalog.choices(), value=default_task, label=ui_text("Task"), elem_id="vs-task")
                    with gr.Accordion(ui_text("Load tasks from a folder"), open=False):
                        self.folder = gr.Textbox(label=ui_text("Folder or file on the server"), placeholder="/path/to/personas")
                        self.load_btn = gr.Button(ui_text("Load"), size="sm")
                        self.uploads = gr.File(label=ui_text("…or upload task files (JSON / YAML, with their gold CSVs)"), file_count="multiple",
                                               file_types=sorted(UPLOAD_SUFFIXES), type="filepath", elem_id="vs-upload")
                        self.upload_btn = gr.Button(ui_text("Load uploaded files"), size="sm")
                        self.load_msg = gr.Markdown()
                    users = user_choices()
                    self.user = gr.Radio(ui_choices(users), value=s.user if s.user in dict(users).values() else "rules", label=ui_text("User"), elem_id="vs-user")
                    self.agent = gr.Radio(ui_choices(agent_choices()), value=s.agent, label=ui_text("Agent"), elem_id="vs-agent")
                    with gr.Accordion(ui_text("Models and options"), open=False):
                        self.agent_model = gr.Textbox(value=s.agent_model or "", label=ui_text("Agent model (litellm string)"), placeholder="openai/gpt-4o-mini", elem_id="vs-agent-model")
                        self.sim_model = gr.Textbox(value=s.simulator_model or "", label=ui_text("Simulator model"), placeholder=ui_text("for the LLM / paper simulator and the shadow"), elem_id="vs-sim-model")
                        self.backend = gr.Dropdown(BACKENDS, value=s.search_backend, label=ui_text("Search backend"))
                        self.web = gr.Dropdown(ui_choices(WEB_CHOICES), value="record", label=ui_text("Web"), elem_id="vs-web",
                                               info=ui_text("replay: a person and a model meet the same recorded pages, offline (docs/web.md)"))
                        self.judge = gr.Textbox(value=s.judge_model or "", label=ui_text("Judge model (empty: offline judge)"), elem_id="vs-judge")
                        self.shadow = gr.Checkbox(True, label=ui_text("Shadow simulator beside me (me mode)"), elem_id="vs-shadow",
                                                  info=ui_text("On by default: its decisions, taken beside yours, are what the fidelity study compares"))
                        self.endpoint_url = gr.Textbox(value=s.endpoint_url or "", label=ui_text("Endpoint URL (endpoint agent)"))
                        self.endpoint_model = gr.Textbox(value=s.endpoint_model, label=ui_text("Endpoint model name"))
                        self.endpoint_key = gr.Textbox(value="", type="password", label=ui_text("Endpoint key (kept in memory only)"))
                        self.max_turns = gr.Number(value=s.max_user_turns or 0, precision=0, minimum=0, maximum=MAX_TURNS,
                                                   label=ui_text("Max user turns (0: the profile's own, 30 ours, 50 official)"))
                        self.pace = gr.Number(value=DEFAULT_PACE_S, minimum=0, maximum=30, label=ui_text("Watch pace: seconds before each simulated user turn (0 = full speed)"))
                        self.protocol = gr.Dropdown(
                            ui_choices(PROTOCOL_CHOICES), value="vibesearch", label=ui_text("Protocol profile"), elem_id="opt-protocol",
                            info=ui_text("official: the paper's harness rule by rule, with the server's configured prompts (docs/protocol.md)"),
                        )
                with gr.Row():
                    self.start = gr.Button(ui_text("Start"), variant="primary", elem_id="vs-start")
                    self.stop = gr.Button(ui_text("Stop"), variant="stop", elem_id="vs-stop")
                with gr.Column(visible=False, elem_id="vs-stop-confirm", variant="panel") as self.stop_box:  # a person's run: Stop asks first
                    gr.Markdown(ui_text("Stop for good? The run is **cancelled**: it is never scored and is left out of every score."),
                                elem_id="vs-stop-question")
                    with gr.Row():
                        self.stop_yes = gr.Button(ui_text("Yes, cancel the run"), variant="stop", size="sm", elem_id="vs-stop-yes")
                        self.stop_no = gr.Button(ui_text("Keep playing"), size="sm", elem_id="vs-stop-no")
                self.status = gr.Markdown(ui_text("Choose a task and press **Start**."), elem_id="vs-play-status")
            with gr.Column(scale=3, min_width=420):
                self.persona = gr.HTML(persona_html(ctx.catalog.get(default_task)) if default_task else "", elem_id="vs-persona")
                self.chat = gr.Chatbot(label=ui_text("Conversation"), height=600, elem_id="vs-play-chat", feedback_options=None, show_label=False,
                                       layout="bubble", buttons=CHAT_BUTTONS)
            with gr.Column(scale=1, min_width=280):
                # a person's turn: the decision, the message and Send sit beside the chat, at the top of
                # this column (in the first screen of a laptop), the stage card with its help under them
                with gr.Group(visible=False, elem_id="vs-human-box") as self.human_box:
                    self.human_turn = gr.HTML(elem_id="vs-human-turn")
                    self.decision = gr.Radio(DECISION_CHOICES, value=None, label=ui_text("What do you do this turn?"), elem_id="vs-decision",
                                             info=ui_text("Nothing is chosen for you: pick one each turn."))
                    self.message = gr.Textbox(label=ui_text("Your message (as the persona)"), lines=3, elem_id="vs-human-msg", info=ui_text(SEND_HINT),
                                              placeholder=ui_text("'disclose' prefills the stage line; left empty, the message the card shows for your choice is sent."))
                    self.send = gr.Button(ui_text("Send"), variant="primary", elem_id="vs-send", interactive=False)
                    self.human_card = gr.HTML(elem_id="vs-human-card")
                self.replay_controls = replay_ui.controls()  # beside the chat, so a demo's controls are where its eyes are
                self.stepper = gr.HTML(elem_id="vs-stepper")
                self.counters = gr.HTML(elem_id="vs-counters")
        with gr.Column(elem_id="vs-play-result"):
            self.score = gr.HTML(elem_id="vs-play-score")
            self.table_answer = gr.HTML(elem_id="vs-play-table")
            self.pred_table = gr.Dataframe(headers=PRED_HEADERS, column_widths=["6%", "30%", "24%", "28%", "12%"], value=[], label=ui_text("The agent's extracted graph"), wrap=True, max_height=360, interactive=False, visible=False)
        self.timer = gr.Timer(TICK_S, active=False)

        self.live_outputs = [self.view, self.chat, self.stepper, self.counters, self.status, self.human_box, self.human_card, self.send,
                             self.score, self.table_answer, self.pred_table, self.timer, self.persona, self.start, self.human_turn, self.stop_box]
        # what ``refresh`` and the replay draw into, by name
        self.comps = {name: getattr(self, name) for name in (
            "view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score", "table_answer", "pred_table",
            "timer", "persona", "start", "human_turn", "stop_box", "form", "form_show")}

    # ------------------------------------------------------------------ handlers
    def on_task(self, task_id: str, mine: TaskCatalog | None):
        try:
            chosen = _catalog(self.ctx, mine).get(task_id)
        except KeyError:
            return "", gr.skip()
        return persona_html(chosen), decision_radio(chosen)  # the choices speak the task's language

    def on_load_folder(self, tok, path: str, mine: TaskCatalog | None, request: gr.Request):
        ctx = self.ctx
        cat = (mine or ctx.catalog).copy()
        msg = cat.add_folder(path if isinstance(path, str) else "", ctx.settings, ctx.who(request, tok).owner)
        return cat, gr.Dropdown(choices=cat.choices()), msg

    def on_upload(self, tok, files, mine: TaskCatalog | None, request: gr.Request):
        ctx = self.ctx
        cat = (mine or ctx.catalog).copy()
        try:
            files = files if isinstance(files, list) else [files] if files else []
            msg = cat.add_loaded(load_uploads(files, ctx.settings, ctx.who(request, tok).owner), "the uploaded files")
        except LoadRefused as exc:
            msg = str(exc)
        return cat, gr.Dropdown(choices=cat.choices()), msg, None

    def on_start(self, tok, v: RunView, mine, task_id, user_kind, agent_kind, a_model, s_model, be, j_model, shad, e_url, e_model, e_key, turns, pace_s, proto, web, request: gr.Request):
        ctx = self.ctx
        tok = ctx.access.fresh(tok)
        who = ctx.who(request, tok)
        if v.run_id and ctx.manager.is_live(v.run_id):
            raise gr.Error(f"Run {v.run_id} is still going in this tab — press Stop first.")
        if not task_id:
            raise gr.Error("Choose a task first.")
        try:
            task_obj = _catalog(ctx, mine).get(task_id)
            req = form_request(
                ctx.settings, task_id=task_id, agent=agent_kind, user=user_kind, agent_model=a_model, simulator_model=s_model,
                search_backend=be, judge=j_model, shadow=bool(shad), endpoint_url=e_url, endpoint_model=e_model,
                endpoint_key=e_key, max_user_turns=turns, pace_s=float(pace_s or 0), protocol=proto, web=web,
            )
            queue = ctx.manager.queued
            if queue is not None and queue.available(req):  # VIBESEARCH_APP_QUEUE: a worker drives it
                run_id, how = queue.queue(req, task_obj, who.owner or "", ctx.settings).run_id, "queued for the workers"
            else:
                run_id, how = ctx.manager.start(req, task_obj, who.owner or "").run_id, "started"
        except (ValueError, KeyError, TypeError) as exc:
            raise gr.Error(for_surface(exc, "app")) from None  # names the form's fields, not the CLI's flags
        nv = RunView(run_id=run_id)
        return {
            self.owner: tok,
            self.view: nv,
            self.chat: [],
            self.stepper: stepper_html(task_obj, []),
            self.counters: "",
            self.status: f"Run `{run_id}` {how} — {plain_md(task_obj.id)}, agent **{plain_md(agent_kind)}**, user **{plain_md(user_kind)}**.",
            self.human_box: gr.Group(visible=is_person(user_kind)),
            self.human_card: "",
            self.human_turn: "",
            self.stop_box: gr.Column(visible=False),
            self.score: "",
            self.table_answer: "",
            self.pred_table: gr.Dataframe(value=[], visible=False),
            self.timer: gr.Timer(active=True),
            self.persona: persona_html(task_obj),
            self.start: gr.Button(interactive=False),  # greyed while the run goes, whoever plays the user
        }

    def on_tick(self, tok, v: RunView, request: gr.Request):
        return refresh(self.ctx, self.ctx.who(request, tok), v, self.comps)

    def on_stop(self, tok, v: RunView, request: gr.Request):
        """Stop: a simulated run at once; a run the person plays asks first (a cancelled run is
        never scored, and a playthrough is long to redo)."""
        live = self.ctx.manager.get(v.run_id) if v.run_id else None
        if live is not None and live.human is not None and not live.finished:
            return gr.Column(visible=True)
        self.really_stop(tok, v, request)
        return gr.Column(visible=False)

    def on_stop_yes(self, tok, v: RunView, request: gr.Request):
        self.really_stop(tok, v, request)
        return gr.Column(visible=False)

    def really_stop(self, tok, v: RunView, request: gr.Request) -> None:
        # The status line is the timer's alone: a reply written here could land after the tick
        # that showed "cancelled" and hide it for good, so Stop answers with a notice.
        ctx = self.ctx
        if not v.run_id:
            gr.Info(zh_text("No run to stop.", browser_lang(request)))
            return
        who = ctx.who(request, tok)
        queue = ctx.manager.queued
        queued = queue.get(v.run_id) if queue is not None else None
        if queue is not None and queued is not None and not ctx.manager.is_live(v.run_id):  # a worker's run: cancel its batch
            if not who.admin and queued.owner != who.owner:
                raise gr.Error(f"run {v.run_id} belongs to another browser session or login")
            queue.cancel(queued, who.owner or "?")
            gr.Info(words("stopping_cancelled", self.lang_of_run(v.run_id), id=v.run_id))
            return
        try:
            ctx.manager.stop(v.run_id, who.owner, admin=who.admin)
        except NotYourRun as exc:
            raise gr.Error(str(exc)) from None
        except KeyError:
            gr.Info(f"Run {v.run_id} is not running.")
            return
        gr.Info(words("stopping_cancelled", self.lang_of_run(v.run_id), id=v.run_id))

    def lang_of_run(self, run_id: str) -> Lang:
        """The language of a run's task (its notices follow it, as its card does)."""
        try:
            return lang_of(self.ctx.task_of_run(self.ctx.store.get_run(run_id)))
        except RunNotFound:
            return "en"

    def on_decision(self, choice: str, v: RunView, text: str):
        if choice != "disclose" or not v.run_id:
            return gr.skip()
        try:
            run = self.ctx.store.get_run(v.run_id)
        except RunNotFound:
            return gr.skip()
        task_obj = self.ctx.task_of_run(run)
        line = next_line(task_obj, stage_pointer(v.events)) if task_obj else ""
        return line or gr.skip()

    def on_send(self, tok, v: RunView, choice: str, text: str, request: gr.Request):
        ctx = self.ctx
        if not v.run_id:
            raise gr.Error("No run is going.")
        if choice not in DECISIONS:  # a warning, not an error: an error would cover the controls until the next event
            gr.Warning(zh_text("Choose what you do this turn first (disclose, push, perfunctory, redirect or done), then Send.", browser_lang(request)))
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        who = ctx.who(request, tok)
        try:
            ctx.manager.submit(v.run_id, who.owner, text if isinstance(text, str) else "", choice, admin=who.admin)
        except (NotYourRun, ValueError, KeyError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        lang = lang_of(ctx.task_of_run(ctx.store.get_run(v.run_id)))
        return "", gr.Radio(value=None), gr.Button(interactive=False), human_card_html_waiting(lang), turn_html(False, lang)

    def reattach(self, tok, v: RunView, request: gr.Request):
        """After a page load: follow this browser's (or this login's) newest live run, if any, and show it at once."""
        ctx = self.ctx
        who = ctx.who(request, tok)
        if v.run_id or not who.owner or who.player:  # a study's player follows their play in the player view
            return {self.view: gr.skip()}  # not ``v``: a Start pressed meanwhile has put its own view there
        active = ctx.manager.active_for(who.owner)
        if not active:
            return {self.view: gr.skip()}
        live = active[0]
        nv = RunView(run_id=live.run_id)
        out = refresh(ctx, who, nv, self.comps)
        out.update({
            self.view: nv,
            self.timer: gr.Timer(active=True),
            self.status: f"Reattached to your run `{live.run_id}` ({plain_md(live.task.id)}).",
            self.task: gr.Dropdown(value=live.task.id) if live.task.id in ctx.catalog.tasks else gr.skip(),
            self.user: live.config.user.kind,
            self.agent: live.config.agent.kind,
        })
        return out

    # ------------------------------------------------------------------ events
    def wire(self) -> PlayHandles:
        """Connect the components to the handlers (in the page's fixed order); the handles other tabs use."""
        owner, view = self.owner, self.view
        self.task.change(self.on_task, [self.task, self.my_catalog], [self.persona, self.decision], api_visibility="private")
        self.load_btn.click(self.on_load_folder, [owner, self.folder, self.my_catalog], [self.my_catalog, self.task, self.load_msg],
                            api_visibility="private", concurrency_limit=2, concurrency_id="vs-load")
        self.upload_btn.click(self.on_upload, [owner, self.uploads, self.my_catalog], [self.my_catalog, self.task, self.load_msg, self.uploads],
                              api_visibility="private", concurrency_limit=2, concurrency_id="vs-load")
        form = [self.task, self.user, self.agent, self.agent_model, self.sim_model, self.backend, self.judge, self.shadow, self.endpoint_url,
                self.endpoint_model, self.endpoint_key, self.max_turns, self.pace, self.protocol, self.web]
        self.start.click(self.on_start, [owner, view, self.my_catalog, *form], [owner, *self.live_outputs], api_visibility="private")
        self.timer.tick(self.on_tick, [owner, view], self.live_outputs, api_visibility="private", concurrency_limit=None, show_progress="hidden",
                        trigger_mode="always_last")
        # the confirmation opens under the button; the page scrolls it into the window at once (a laptop's
        # window ends above it when the form is long)
        self.stop.click(self.on_stop, [owner, view], self.stop_box, api_visibility="private").then(None, None, None, js=SHOW_STOP_CONFIRM_JS,
                                                                                                 api_visibility="private")
        self.stop_yes.click(self.on_stop_yes, [owner, view], self.stop_box, api_visibility="private")
        self.stop_no.click(lambda: gr.Column(visible=False), None, self.stop_box, api_visibility="private")
        self.form_show.click(lambda: (gr.Column(visible=True), gr.Button(visible=False)), None, [self.form, self.form_show], api_visibility="private")
        self.decision.change(self.on_decision, [self.decision, view, self.message], self.message, api_visibility="private", show_progress="hidden")
        human = [self.message, self.decision, self.send, self.human_card, self.human_turn]
        self.send.click(self.on_send, [owner, view, self.decision, self.message], human, api_visibility="private")
        self.message.submit(self.on_send, [owner, view, self.decision, self.message], human, api_visibility="private")
        replay_h = replay_ui.wire(self.ctx, owner, self.replay_controls, self.comps, self.start)
        return PlayHandles(view=view, timer=self.timer, catalog=self.my_catalog, outputs=[*self.live_outputs, self.task, self.user, self.agent],
                           reattach=self.reattach, replay=replay_h, task=self.task, user=self.user, agent=self.agent)


def build(ctx: AppContext, owner: gr.BrowserState) -> PlayHandles:
    return PlayTab(ctx, owner).wire()


def human_card_html_waiting(lang: Lang = "en") -> str:
    return f"<div class='vs-card vs-human'><div class='vs-muted'>{words('sent_working', lang)}</div></div>"


def turn_html(yours: bool, lang: Lang = "en") -> str:
    """The line above the person's controls: whose move it is (the page script scrolls the controls
    into view when it turns to "yours"), in the task's language."""
    if yours:
        return f"<div class='vs-turn vs-turn-yours' id='vs-your-turn'>{words('your_turn_line', lang)}</div>"
    return f"<div class='vs-turn vs-muted'>{words('agent_turn_line', lang)}</div>"


def decision_radio(task: Any) -> Any:
    """The decision's choices in the task's language (none chosen)."""
    return gr.Radio(choices=decision_choices(lang_of(task), DECISIONS), value=None)


def refresh(ctx: AppContext, who: Who, v: RunView, c: dict[str, Any], shown: Any = None) -> dict:
    """One timer tick: read what the run stored since the last tick and redraw what changed.
    ``shown``: which of the run's events the chat draws (default: all)."""
    out: dict = {}
    if not v.run_id:
        out[c["timer"]] = gr.Timer(active=False)
        return out
    got_new = v.pull(ctx.store)
    out[c["view"]] = v
    queued = ctx.manager.queued.get(v.run_id) if ctx.manager.queued is not None else None
    try:
        run = ctx.store.get_run(v.run_id)
    except RunNotFound:  # the session has not created its row yet (or no worker has taken the job)
        if queued is not None:
            waiting = "was cancelled before a worker took it" if queued.cancelled else "is queued: waiting for a worker (`vibesearch worker`)"
            if v.changed("status", waiting):
                out[c["status"]] = f"Run `{v.run_id}` {waiting}."
            if queued.cancelled:
                out[c["timer"]] = gr.Timer(active=False)
                if "start" in c:
                    out[c["start"]] = gr.Button(interactive=True)
        return out
    live = ctx.manager.get(v.run_id)
    task = ctx.task_of_run(run)
    running = run.status == "running"
    if queued is not None and not running and ctx.manager.queued is not None:  # a worker finished it: score it here, once
        ctx.manager.queued.settle(run.id, run.status, ctx.store.latest_graph(run.id) is not None)
    scoring = bool(live and live.scoring) or bool(queued and queued.scoring)
    score_error = live.score_error if live else (queued.score_error if queued else None)
    busy = running or (live is not None and not live.finished) or (queued is not None and not queued.settled)
    if task is not None and v.changed("task", task.id):
        out[c["persona"]] = persona_html(task)
    if task is not None and (got_new or v.changed("chat0", True)):
        out[c["chat"]] = chat_messages(shown(v.events) if shown is not None else v.events, task)
        out[c["stepper"]] = stepper_html(task, v.events, running=running)
    elapsed = live.elapsed() if live is not None else (run.updated_at - run.created_at).total_seconds()
    if v.changed("counters", (v.seq, int(elapsed) // 2 if running else -1)):
        try:
            stats = live_stats(v.run_id, v.events, task.stage_count() if task is not None else None) if running else compute_stats(ctx.store, v.run_id)
        except Exception:  # noqa: BLE001 - counters are a view; the run goes on
            stats = None
        out[c["counters"]] = stats_html(stats, elapsed_s=elapsed if running else None, live=running, no_model=no_model(run), lang=lang_of(task))
    # the person's controls
    mine = live is not None and ctx.access.may_write(who, live.owner)
    human = live.human if (live is not None and mine) else None
    pending = live.pending() if (live is not None and human is not None) else None
    pointer = stage_pointer(v.events)
    # while the person's turn is awaited the controls are sent on every tick: Send's own reply
    # ("Sent…", button off) can land after the tick that showed the next turn, and must not stay
    if v.changed("human", (human is not None and running, bool(pending), pointer, len(v.events) if pending else 0)) or pending:
        out[c["human_box"]] = gr.Group(visible=human is not None and running)
        if human is not None and task is not None:
            out[c["human_card"]] = human_card_html(task, pointer, waiting=bool(pending), user_turns=(pending or {}).get("user_turns", 0))
        out[c["send"]] = gr.Button(interactive=bool(pending))
        if "human_turn" in c:
            out[c["human_turn"]] = turn_html(bool(pending), lang_of(task)) if human is not None and running else ""
    # status line
    lang = lang_of(task)
    what = status_word("running", lang) if running else f"{status_word(run.status, lang)} ({status_word(run.termination or '—', lang)})"
    if running and pending:
        what += " · " + words("status_your_turn", lang)
    if run.status == "cancelled":
        what += f" — {words('cancelled_note', lang)}"
    failed = failure_reason(v.events) if run.status == "failed" else None
    if not running and scoring:
        what += " · " + words("scoring", lang)
    if v.changed("status", (what, failed)):
        out[c["status"]] = f"{words('run', lang)} `{run.id}` · {plain_md(task.id if task else run.task_id)} · **{what}**" + (f" — {status_reason(failed)}" if failed else "")
    if failed and v.changed("failed", failed):  # a banner with the (scrubbed) reason, above the chat
        out[c["persona"]] = failure_html(failed) + (persona_html(task) if task is not None else "")
    # the result once the session is over
    if not running:
        scores = latest_scores(ctx.store, run.id)
        sig = (tuple((s.id, s.judge) for s in scores), scoring, score_error)
        if v.changed("result", sig):
            if run.status == "cancelled" and not scores:  # not "Not scored yet": it never will be
                out[c["score"]] = f"<div class='vs-card vs-muted' id='vs-play-cancelled'>{words('run_cancelled', lang)}</div>"
            else:
                out[c["score"]] = score_html(run, scores, scoring=scoring, error=score_error)
            if run.kind != "table" and scores:  # the missed ground truth beside the score (the latest score's verdicts)
                out[c["score"]] += missed_html(ground_truth(run), verdict_rows(ctx.store, scores[-1]), judge=scores[-1].judge, elem_id="vs-play-missed")
            if run.kind == "table":
                out[c["table_answer"]] = table_answer_html(ctx.store, run)
            else:
                rows = predicted_rows(predicted_triples(ctx.store, run.id), verdict_map(ctx.store, scores[-1] if scores else None))
                out[c["pred_table"]] = gr.Dataframe(value=rows, visible=bool(rows))
    if "start" in c and v.changed("start", busy):  # Start is greyed while a run goes (a person's or a simulator's)
        out[c["start"]] = gr.Button(interactive=not busy)
    if not busy:
        out[c["timer"]] = gr.Timer(active=False)
        if "stop_box" in c and v.changed("stop_box", busy):
            out[c["stop_box"]] = gr.Column(visible=False)  # nothing left to confirm
    return out
