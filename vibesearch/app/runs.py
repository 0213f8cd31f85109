"""The Runs tab: every run in the database, filtered; open one to replay it.

An opened run shows its transcript (the same rendering as Play), its stage timeline, its
statistics and scores, and the graph picture (ground truth against prediction). Beside the
scores (the Scores tab) are the ground-truth triples the chosen judge found missing and every
ground-truth triple with its decision, the judge's rule and rationale, and the predicted triples
it rests on. A run that is
still going is followed by polling the database, so it can be watched from any browser; the
browser that started a person-played run can take it back into Play.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from ..run.result import CONTINUABLE, RUN_STATUSES, STOPPABLE
from ..judges.judge_failures import judge_gaps
from ..judges.registry import judge_for
from ..run.config import OFFLINE_JUDGE
from ..runner import is_orphaned
from ..store import LeaseHeld, RunNotFound, ScoreRow
from ..results.blind import hidden_stored_events
from ..results.funnel import stored_funnel
from ._access import AGENT_HIDDEN, Who, agent_hidden
from ._policy import check_model
from ._words import browser_lang, column_words, first_choice, lang_of, status_word, ui_text, words, zh_text
from .context import AppContext, RunView
from .funnel_view import JUMP_JS, TURN_ANCHOR, run_funnel_html
from .graph_view import GraphData, graph_panel
from .live import NotYourRun
from .panels import (
    GT_HEADERS,
    PRED_HEADERS,
    compute_stats,
    ground_truth,
    gt_rows,
    latest_scores,
    missed_html,
    no_model,
    predicted_rows,
    predicted_triples,
    stats_html,
    table_answer_html,
    verdict_map,
    verdict_rows,
    judge_text,
)
from ._policy import agent_choices, user_choices
from .play import PlayHandles
from .queued_view import QUEUED_HEADERS, queued_rows, shows_queue
from .render import chat_messages, plain_md, stage_timeline_html, stepper_html

ANY = "(any)"
RUN_HEADERS = ["run", "started (UTC)", "task", "agent", "agent model", "user", "status", "termination", "F1", "judge", "source"]
WORD_COLUMNS = {RUN_HEADERS.index(h) for h in ("status", "termination", "source")}  # shown in the browser's language
SCORE_HEADERS = ["judge", "profile", "P", "R", "F1", "covered / GT", "valid / predicted", "unscored", "when"]


PROFILES = [ANY, "vibesearch", "official"]
MAX_SEARCH = 200


def _haystack(run: Any, who: Who | None) -> str:
    """What the Runs search looks in: ids, models, batch, source, end, start date (never the
    agent of a run whose agent is hidden from ``who``)."""
    hidden = agent_hidden(who, run)
    parts = [run.id, run.task_id, run.user, run.status, run.termination or "", run.source, run.batch_id or "",
             run.simulator_model or "", run.created_at.strftime("%Y-%m-%d")]
    if not hidden:
        parts += [run.agent, run.agent_model or ""]
    return " ".join(parts).lower()


def _profile(run: Any) -> str:
    config = run.run_config()
    return config.protocol if config is not None else "vibesearch"


def run_rows(ctx: AppContext, task: str, agent: str, user: str, status: str, who: Who | None = None,
             profile: Any = ANY, search: Any = "") -> list[list[Any]]:
    """The runs table; with ``who`` only the runs that caller may read. ``profile``: the protocol
    profile; ``search``: words that must all appear in a run's ids, models, batch, source, end or
    start date (YYYY-MM-DD)."""
    filters = {k: (None if v in (ANY, "", None) or not isinstance(v, str) else v) for k, v in dict(task_id=task, agent=agent, user=user, status=status).items()}
    runs = ctx.store.list_runs(**filters)
    if who is not None:
        runs = [r for r in runs if ctx.readable(who, r)]
    if filters["agent"] is not None:  # filtering by agent must not tell which agent a blind run had
        runs = [r for r in runs if not agent_hidden(who, r)]
    if isinstance(profile, str) and profile in PROFILES[1:]:
        runs = [r for r in runs if _profile(r) == profile]
    wanted = (search if isinstance(search, str) else "")[:MAX_SEARCH].lower().split()
    if wanted:
        runs = [r for r in runs if all(w in _haystack(r, who) for w in wanted)]
    best: dict[str, ScoreRow] = {}
    for score in ctx.store.scores():
        best[score.run_id] = score  # the latest score of each run
    rows = []
    for r in runs:
        s = best.get(r.id)
        agent, model = (AGENT_HIDDEN, "") if agent_hidden(who, r) else (r.agent, r.agent_model or "")
        rows.append([
            r.id, r.created_at.strftime("%Y-%m-%d %H:%M:%S"), r.task_id, agent, model, r.user, r.status,
            r.termination or "", f"{100 * s.f1:.1f}" if s else "", s.judge if s else "", r.source,
        ])
    return rows


def filter_choices(ctx: AppContext, who: Who | None = None, *, stored: bool = True) -> dict[str, list[str]]:
    """The values of the filters' menus (after "(any)"); the agent menu holds no agent only a run
    hidden from ``who`` had (the agent kinds the app offers aside: those are everyone's).
    ``stored=False``: only what the app offers (its tasks and kinds), none of the stored runs'."""
    runs = ctx.store.list_runs() if stored else []
    return {
        "task": sorted({r.task_id for r in runs} | set(ctx.catalog.tasks)),
        "agent": sorted({r.agent for r in runs if r.agent and not agent_hidden(who, r)} | {name for _, name in agent_choices()}),
        "user": sorted({r.user for r in runs if r.user} | {name for _, name in user_choices()}),
        "status": list(RUN_STATUSES),
        "profile": PROFILES[1:],
    }


def score_rows(ctx: AppContext, run_id: str) -> list[list[Any]]:
    from ..scoring.profile import profile_label

    return [
        [s.judge, profile_label(s.protocol, s.prompt_source), f"{100 * s.precision:.1f}", f"{100 * s.recall:.1f}", f"{100 * s.f1:.1f}", f"{s.n_covered} / {s.n_gt}",
         f"{s.n_valid} / {s.n_pred}", s.n_unscored, s.created_at.strftime("%Y-%m-%d %H:%M")]
        for s in ctx.store.scores(run_id)
    ]


class RunsTab:
    """The tab's components (attributes) and its event handlers (methods); ``wire`` connects them."""

    def __init__(self, ctx: AppContext, owner: gr.BrowserState, tabs: gr.Tabs, play: PlayHandles) -> None:
        self.ctx, self.owner, self.tabs, self.play = ctx, owner, tabs, play
        ch = filter_choices(ctx, stored=False)  # the page's config holds no stored run's task, agent or user
        with gr.Row():
            self.f_task = gr.Dropdown(first_choice(ANY, ch["task"]), value=ANY, label=ui_text("Task"), allow_custom_value=True)
            self.f_agent = gr.Dropdown(first_choice(ANY, ch["agent"]), value=ANY, label=ui_text("Agent"), allow_custom_value=True)
            self.f_user = gr.Dropdown(first_choice(ANY, ch["user"]), value=ANY, label=ui_text("User"), allow_custom_value=True)
            self.f_status = gr.Dropdown(first_choice(ANY, ch["status"]), value=ANY, label=ui_text("Status"))
            self.f_profile = gr.Dropdown(first_choice(ANY, ch["profile"]), value=ANY, label=ui_text("Profile"), elem_id="vs-runs-profile")
            self.f_search = gr.Textbox(label=ui_text("Search"), placeholder=ui_text("model, batch, date (2026-12-01), id…"), max_lines=1,
                                       max_length=MAX_SEARCH, elem_id="vs-runs-search")
            self.refresh_btn = gr.Button(ui_text("Refresh"), size="sm", elem_id="vs-runs-refresh")
        # empty in the page's config, which every visitor receives (a study player, a reader of their
        # own runs only): the tab fills it for its reader when it opens
        self.table = gr.Dataframe(headers=RUN_HEADERS, value=[], interactive=False, max_height=300,
                                  label=ui_text("Runs (click a row to open it)"), elem_id="vs-runs-table")
        with gr.Accordion(ui_text("Queued batches (driven by vibesearch worker processes)"), open=True, visible=shows_queue(ctx),
                          elem_id="vs-runs-queued-box"):
            self.queued = gr.Dataframe(headers=QUEUED_HEADERS, value=[], interactive=False,
                                       max_height=220, elem_id="vs-runs-queued")
        with gr.Row():
            self.run_id_box = gr.Textbox(label=ui_text("Run id"), scale=3, elem_id="vs-runs-id")
            self.open_btn = gr.Button(ui_text("Open"), variant="primary", scale=1, elem_id="vs-runs-open")
            self.resume_btn = gr.Button(ui_text("Continue in Play"), visible=False, scale=1, elem_id="vs-runs-continue")
            self.stop_btn = gr.Button(ui_text("Stop run"), variant="stop", visible=False, scale=1, elem_id="vs-runs-stop")  # owner or admin
            self.replay_btn = gr.Button(ui_text("Replay in Play"), scale=1, elem_id="vs-runs-replay")  # plays the opened run back (app/replay.py)
        self.header = gr.Markdown(elem_id="vs-runs-header")
        with gr.Row(equal_height=False):
            with gr.Column(scale=3):
                self.chat = gr.Chatbot(label=ui_text("Transcript"), height=560, elem_id="vs-runs-chat", feedback_options=None, show_label=False)
            with gr.Column(scale=2):
                # each ground-truth triple's bucket, beside the transcript: a click shows its turn there
                self.funnel = gr.HTML(elem_id="vs-runs-funnel-box", js_on_load=JUMP_JS)
                self.stepper = gr.HTML(elem_id="vs-runs-stepper")
                self.stats = gr.HTML(elem_id="vs-runs-stats")
        with gr.Tabs():
            with gr.Tab(ui_text("Graph")):
                with gr.Row():
                    self.judge_pick = gr.Dropdown([], label=ui_text("Colour by the verdicts of"), scale=2, elem_id="vs-runs-judge")
                    self.score_judge = gr.Textbox(label=ui_text("Score again with (empty: offline judge)"), scale=2)
                    self.score_btn = gr.Button(ui_text("Score"), scale=1, elem_id="vs-runs-score")
                self.gpanel = graph_panel("vs-runs-graph", "Ground truth against prediction (drag to pan, scroll or box to zoom; hover for names)")
                self.table_html = gr.HTML()
            with gr.Tab(ui_text("Scores")):
                self.scores_df = gr.Dataframe(headers=SCORE_HEADERS, value=[], interactive=False, label=ui_text("Scores"), elem_id="vs-runs-scores")
                self.missed = gr.HTML(elem_id="vs-runs-missed")
                self.gt_df = gr.Dataframe(headers=GT_HEADERS, column_widths=["5%", "17%", "14%", "17%", "10%", "20%", "17%"], value=[], interactive=False,
                                          wrap=True, max_height=400, label=ui_text("Ground-truth triples: covered or missed, the judge's rule and evidence"), elem_id="vs-runs-gt")
                self.pred_df = gr.Dataframe(headers=PRED_HEADERS, column_widths=["6%", "30%", "24%", "28%", "12%"], value=[], interactive=False, wrap=True, max_height=400, label=ui_text("Predicted triples"))
            with gr.Tab(ui_text("Stage timeline")):
                self.timeline = gr.HTML()
        self.view = gr.State(RunView())
        self.timer = gr.Timer(1.0, active=False)

        self.detail_outputs = [self.view, self.header, self.chat, self.stepper, self.stats, self.timeline, self.scores_df, self.missed, self.gt_df,
                               self.pred_df, self.judge_pick, *self.gpanel.outputs, self.table_html, self.timer, self.resume_btn, self.stop_btn,
                               self.funnel]

    # ------------------------------------------------------------------ what an opened run shows
    def graph_of(self, run_id: str, judge: str | None):
        ctx = self.ctx
        run = ctx.store.get_run(run_id)
        task = ctx.task_of_run(run)
        scores = latest_scores(ctx.store, run_id)
        chosen = next((s for s in scores if s.judge == judge), scores[-1] if scores else None)
        verdicts = verdict_map(ctx.store, chosen)
        pred = predicted_triples(ctx.store, run_id)
        gt = [t.model_dump() for t in task.graph] if task is not None else []
        lang = lang_of(task)  # the picture's words follow the run's other text: its task's language
        title = zh_text("{gt} ground-truth vs {pred} predicted triples", lang).format(gt=len(gt), pred=len(pred)) + (
            zh_text(" · verdicts of the {judge} judge", lang).format(judge=chosen.judge) if chosen else zh_text(" · not scored", lang))
        return GraphData(gt, pred, verdicts, title, lang), predicted_rows(pred, verdicts), chosen

    def ground_truth_of(self, run_id: str, chosen: ScoreRow | None) -> tuple[str, list[list[Any]]]:
        """The missed ground-truth triples and every ground-truth triple's verdict, for one score."""
        store = self.ctx.store
        run = store.get_run(run_id)
        gt, rows = ground_truth(run), verdict_rows(store, chosen)
        listed = missed_html(gt, rows, judge=chosen.judge, elem_id="vs-runs-missed-list") if chosen is not None else ""
        waiting = zh_text("Not scored yet: the missed ground-truth triples appear once the run is scored.", lang_of(self.ctx.task_of_run(run)))
        return listed or f"<div class='vs-muted'>{waiting}</div>", gt_rows(gt, predicted_triples(store, run_id), rows)

    def funnel_of(self, run_id: str, chosen: ScoreRow | None) -> str:
        """Where each ground-truth triple was lost, under the chosen score (``results.funnel``)."""
        run = self.ctx.store.get_run(run_id)
        task = self.ctx.task_of_run(run)
        if chosen is None or chosen.id is None:
            return run_funnel_html(None, judge=None, lang=lang_of(task), scored=False)
        return run_funnel_html(stored_funnel(self.ctx.store, run_id, chosen.id, task=task), judge=judge_text(chosen.judge), lang=lang_of(task))

    def show(self, who: Who, v: RunView, full: bool) -> dict:
        ctx = self.ctx
        out: dict = {self.view: v}
        try:
            run = ctx.store.get_run(v.run_id or "")
            if not ctx.readable(who, run):
                raise RunNotFound(run.id)
        except RunNotFound:
            out[self.header] = f"No run `{v.run_id}` in this database."
            out[self.timer] = gr.Timer(active=False)
            return out
        live = ctx.manager.get(run.id)
        if full and run.status == "running" and (live is None or live.finished) and is_orphaned(ctx.store, run.id):
            ctx.manager.close_orphaned()  # its driver died (a restart): interrupted, so it can be continued
            run = ctx.store.get_run(run.id)
        got_new = v.pull(ctx.store)
        task = ctx.task_of_run(run)
        running = run.status == "running"
        if full or got_new:
            hide = agent_hidden(who, run)  # a blind play: no name of its agent's model in what is shown
            events = hidden_stored_events(run, v.events) if hide else v.events
            out[self.chat] = chat_messages(events, task, anchors=TURN_ANCHOR)
            if task is not None:
                out[self.stepper] = stepper_html(task, events, running=running)
            out[self.timeline] = stage_timeline_html(task, events)
            try:
                st = compute_stats(ctx.store, run.id)
            except Exception:  # noqa: BLE001 - the counters are a view; the page shows the run without them
                st = None
            # (a blind play: "no model calls" would name the baseline)
            out[self.stats] = stats_html(st, no_model=no_model(run) and not hide, lang=lang_of(task))
        sig = (run.status, tuple(s.id for s in ctx.store.scores(run.id)))
        if full or v.changed("scores", sig):
            scores = latest_scores(ctx.store, run.id)
            out[self.scores_df] = score_rows(ctx, run.id)
            out[self.judge_pick] = gr.Dropdown(choices=[s.judge for s in scores], value=scores[-1].judge if scores else None)
            if run.kind == "table":
                out[self.table_html] = table_answer_html(ctx.store, run)
                out.update(self.gpanel.fill(None))
                out[self.missed], out[self.gt_df], out[self.funnel] = "", [], ""
            else:
                data, rows, chosen = self.graph_of(run.id, None)
                out.update(self.gpanel.fill(data))
                out[self.pred_df] = rows
                out[self.missed], out[self.gt_df] = self.ground_truth_of(run.id, chosen)
                out[self.funnel] = self.funnel_of(run.id, chosen)
        asked = ctx.store.stop_request(run.id) if running and (live is None or live.finished) else None
        lang = lang_of(task)
        stopping = words("stopping_elsewhere", lang) if asked is not None and asked.pending else ""
        title = plain_md(task.title if task is not None and task.title else run.task_id)
        model = f" ({plain_md(run.agent_model)})" if run.agent_model else ""
        agent = f"**{plain_md(run.agent)}**{model}"
        if agent_hidden(who, run):
            agent = AGENT_HIDDEN.removeprefix("agent ")
        end = f" ({status_word(run.termination, lang)})" if run.termination else ""
        out[self.header] = f"### {words('run', lang)} `{run.id}` — {title}\n" + words(
            "run_meta", lang, agent=agent, user=plain_md(run.user), status=status_word(run.status, lang), end=end,
            stopping=stopping, source=plain_md(status_word(run.source, lang)), at=f"{run.created_at:%Y-%m-%d %H:%M:%S}")
        going = live is not None and not live.finished
        # Continue: a person's run live here (take it back into Play), or one no process drives
        # (interrupted, abandoned, or left running by a stopped server) for its owner or an admin
        can_continue = (going and live is not None and live.human is not None and ctx.access.may_write(who, live.owner)) or (
            not going and ctx.access.may_write(who, run.owner) and (run.status in CONTINUABLE or (running and is_orphaned(ctx.store, run.id)))
        )
        out[self.resume_btn] = gr.Button(visible=can_continue)
        if not can_continue and not going and (run.status in CONTINUABLE or (running and is_orphaned(ctx.store, run.id))):
            # a run that could go on, but not for this caller: say why rather than hide Continue silently
            out[self.header] += "\n\n" + words("continue_refused", lang)
        out[self.stop_btn] = gr.Button(visible=ctx.access.may_write(who, run.owner) and run.status in STOPPABLE)
        busy = running or (live is not None and not live.finished)
        out[self.timer] = gr.Timer(active=busy)
        return out

    # ------------------------------------------------------------------ handlers
    def on_open(self, tok, run_id: str, request: gr.Request):
        run_id = (run_id if isinstance(run_id, str) else "").strip()[:200]
        if not run_id:
            raise gr.Error("Type or click a run id first.")
        return self.show(self.ctx.who(request, tok), RunView(run_id=run_id), True)

    def on_select(self, tok, evt: gr.SelectData, request: gr.Request):
        row = evt.row_value if evt is not None else None
        if not row:  # an empty dict would be read as one value, not as "no updates"
            return {self.run_id_box: gr.skip()}
        out = self.show(self.ctx.who(request, tok), RunView(run_id=str(row[0])[:200]), True)
        out[self.run_id_box] = str(row[0])[:200]
        return out

    def on_tick(self, tok, v: RunView, request: gr.Request):
        return self.show(self.ctx.who(request, tok), v, False)

    def on_show(self, tok, t, a, u, st, prof, find, request: gr.Request):
        """The tab opened: runs left "running" by a server that stopped are closed first (each then
        shows as interrupted and can be continued), then the table."""
        self.ctx.manager.close_orphaned()
        return self.on_rows(tok, t, a, u, st, prof, find, request), *self.menus(tok, request)

    def menus(self, tok, request: gr.Request) -> list[Any]:
        """The filters' menus for this caller, their "(any)" in the browser's language."""
        ch, lang = filter_choices(self.ctx, self.ctx.who(request, tok)), browser_lang(request)
        return [gr.Dropdown(choices=first_choice(ANY, ch[key], lang)) for key in ("task", "agent", "user", "status", "profile")]

    def on_rows(self, tok, t, a, u, st, prof, find, request: gr.Request):
        rows, lang = run_rows(self.ctx, t, a, u, st, self.ctx.who(request, tok), prof, find), browser_lang(request)
        shown = [[status_word(c, lang) if i in WORD_COLUMNS else c for i, c in enumerate(row)] for row in rows]
        return pd.DataFrame(shown, columns=column_words(RUN_HEADERS, lang))  # headers and statuses in the browser's language

    def on_refresh(self, tok, t, a, u, st, prof, find, request: gr.Request):
        self.ctx.manager.close_orphaned()  # runs whose driver died since: interrupted, offered to continue
        return self.on_rows(tok, t, a, u, st, prof, find, request), *self.menus(tok, request)

    def on_judge(self, v: RunView, judge: str):
        if not v.run_id:
            return {self.pred_df: gr.skip()}
        data, rows, chosen = self.graph_of(v.run_id, judge)
        listed, gt_table = self.ground_truth_of(v.run_id, chosen)
        return {**self.gpanel.fill(data), self.pred_df: rows, self.missed: listed, self.gt_df: gt_table, self.funnel: self.funnel_of(v.run_id, chosen)}

    def on_score(self, tok, v: RunView, judge: str, request: gr.Request):
        ctx = self.ctx
        if not v.run_id:
            raise gr.Error("Open a run first.")
        who = ctx.who(request, tok)
        run = ctx.store.get_run(v.run_id)
        if not ctx.readable(who, run):
            raise gr.Error(str(RunNotFound(run.id)))
        if not ctx.access.may_write(who, run.owner):  # the judge's calls are paid with the server's keys
            raise gr.Error("Only the run's owner or an admin can score it.")
        if run.status == "running":
            raise gr.Error("The run is still going; score it when it has ended.")
        try:
            judge = (judge if isinstance(judge, str) else "").strip() or OFFLINE_JUDGE
            if judge_for(judge).needs_model:
                check_model(judge, "the judge model", ctx.settings)
            row = ctx.manager.score(v.run_id, judge, asked_by=who.login or who.owner)
        except Exception as exc:  # noqa: BLE001 - show the reason (a failed judge: its one line, nothing stored), keep the page
            raise gr.Error(f"Scoring failed: {exc}") from None
        gaps = judge_gaps(row)
        if gaps.failed:  # the official rule graded them not covered: said as ``vibesearch score`` says it
            gr.Warning(gaps.warning(v.run_id))
        return self.show(who, v, True)

    def must_read(self, who: Who, run_id: str) -> None:
        """Refuse a run that does not exist and one ``who`` may not read with the same answer
        (``VIBESEARCH_READ_RUNS=own``: Stop and Continue must not tell that another's run exists)."""
        try:
            readable = self.ctx.readable(who, self.ctx.store.get_run(run_id))
        except RunNotFound:
            readable = False
        if not readable:
            raise gr.Error(str(RunNotFound(run_id)))

    def on_continue(self, tok, v: RunView, request: gr.Request):
        ctx, play = self.ctx, self.play
        who = ctx.who(request, tok)
        self.must_read(who, v.run_id or "")
        live = ctx.manager.get(v.run_id or "")
        if live is None or live.finished:  # a run no process drives: continue it here
            try:
                live = ctx.manager.resume(v.run_id or "", who.owner, admin=who.admin)
            except NotYourRun:
                raise gr.Error("Only the browser or login that started this run (or an admin) can continue it.") from None
            except Exception as exc:  # noqa: BLE001 - why it cannot go on (a model without its key, a task file gone ...)
                raise gr.Error(str(exc).strip("'\"")) from None
        elif not ctx.access.may_write(who, live.owner):
            raise gr.Error("Only the browser or login that started this run can play it.")
        out = {play.view: RunView(run_id=live.run_id), play.timer: gr.Timer(active=True), self.tabs: gr.Tabs(selected="play")}
        if play.task is not None:  # Play's form names the continued run, so a later Start does not launch the old one
            out[play.task] = gr.Dropdown(value=live.task.id) if live.task.id in ctx.catalog.tasks else gr.skip()
            user, agent = live.config.user.kind, live.config.agent.kind
            out[play.user] = user if user in dict(user_choices()).values() else gr.skip()  # (the scripted users are not on the form)
            out[play.agent] = agent if agent in dict(agent_choices()).values() else gr.skip()
        if play.replay is not None:  # a replay playing in Play ends: the continued run is shown there
            out.update(play.replay.end())
        return out

    def on_stop(self, tok, v: RunView, request: gr.Request):
        ctx = self.ctx
        if not v.run_id:
            raise gr.Error("Open a run first.")
        who = ctx.who(request, tok)
        self.must_read(who, v.run_id)
        try:
            gr.Info(ctx.manager.stop_any(v.run_id, who.owner, admin=who.admin))
        except NotYourRun:
            raise gr.Error("Only the browser or login that started this run (or an admin) can stop it.") from None
        except (ValueError, KeyError, LeaseHeld) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return self.show(who, v, True)

    def on_queued(self, tok, request: gr.Request):
        return queued_rows(self.ctx, self.ctx.who(request, tok))

    def on_link(self, tok, request: gr.Request):
        """``?run=ID`` in the page's address opens that run here (within the read policy: a run
        the caller may not read reads as one that does not exist)."""
        wanted = (request.query_params.get("run") or "").strip()[:200] if request is not None else ""
        if not wanted or self.ctx.who(request, tok).player:  # a study's player sees only their play
            return {self.run_id_box: gr.skip()}
        out = self.show(self.ctx.who(request, tok), RunView(run_id=wanted), True)
        out[self.run_id_box] = wanted
        out[self.tabs] = gr.Tabs(selected="runs")
        return out

    # ------------------------------------------------------------------ events
    def wire(self) -> dict[str, Any]:
        """Connect the components to the handlers (in the page's fixed order); what the page (app/ui.py) wires further."""
        owner, view, play, detail_outputs = self.owner, self.view, self.play, self.detail_outputs
        filters = [self.f_task, self.f_agent, self.f_user, self.f_status, self.f_profile, self.f_search]
        menus = [self.f_task, self.f_agent, self.f_user, self.f_status, self.f_profile]
        self.refresh_btn.click(self.on_refresh, [owner, *filters], [self.table, *menus], api_visibility="private").then(
            self.on_queued, [owner], self.queued, api_visibility="private", show_progress="hidden")
        for f in (self.f_task, self.f_agent, self.f_user, self.f_status, self.f_profile):
            f.change(self.on_rows, [owner, *filters], self.table, api_visibility="private", show_progress="hidden")
        self.f_search.submit(self.on_rows, [owner, *filters], self.table, api_visibility="private", show_progress="hidden")  # Enter, not each key
        self.open_btn.click(self.on_open, [owner, self.run_id_box], detail_outputs, api_visibility="private")
        self.run_id_box.submit(self.on_open, [owner, self.run_id_box], detail_outputs, api_visibility="private")
        self.table.select(self.on_select, [owner], [*detail_outputs, self.run_id_box], api_visibility="private")
        self.timer.tick(self.on_tick, [owner, view], detail_outputs, api_visibility="private", concurrency_limit=None, show_progress="hidden",
                        trigger_mode="always_last")
        self.judge_pick.input(self.on_judge, [view, self.judge_pick], [*self.gpanel.outputs, self.pred_df, self.missed, self.gt_df, self.funnel],
                              api_visibility="private")
        self.score_btn.click(self.on_score, [owner, view, self.score_judge], detail_outputs, api_visibility="private")
        continued = [play.view, play.timer, self.tabs] + ([play.task, play.user, play.agent] if play.task is not None else [])
        continued += play.replay.end_outputs if play.replay is not None else []
        self.resume_btn.click(self.on_continue, [owner, view], continued, api_visibility="private")
        self.stop_btn.click(self.on_stop, [owner, view], detail_outputs, api_visibility="private")
        if play.replay is not None:
            rp = play.replay
            self.replay_btn.click(rp.opener(self.tabs), [owner, view, rp.controls.speed, play.view], [*rp.outputs, self.tabs], api_visibility="private")
        return {"table": [self.table, *menus], "refresh": self.refresh_btn, "filters": [owner, *filters], "on_show": self.on_show, "queued": self.queued,
                "on_queued": self.on_queued, "on_link": self.on_link, "link_outputs": [*detail_outputs, self.run_id_box, self.tabs]}


def build(ctx: AppContext, owner: gr.BrowserState, tabs: gr.Tabs, play: PlayHandles) -> dict[str, Any]:
    return RunsTab(ctx, owner, tabs, play).wire()
