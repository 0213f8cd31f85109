"""Replay: a stored or imported run played back in the Play view, for a demo without a model.

The run's events are read once (the run is not touched: nothing is written, no lease is taken)
and shown a few at a time by a timer, through the same rendering a live run uses — the chat with
its tool-call bubbles, the stage stepper, the counters and, at the end, the score. The pace is the
run's own (its event timestamps) scaled by the chosen speed and capped, see ``_replay_cursor``.
Pause/Resume, Step (the next event) and Next stage (just after the next stage disclosure) work at
any time. Only a caller who may read the run may replay it (``_access``), the same rule as Runs.

The controls sit in Play's right-hand column, beside the chat; the Runs tab's Replay button opens its selected run here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import gradio as gr

from ..store import RunNotFound, TaskSnapshotError
from ..tasks.models import Task
from ._access import Who
from ._replay_cursor import DEFAULT_SPEED, SPEEDS, Cursor
from ._words import lang_of, ui_text
from .context import AppContext, RunView
from .panels import (
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
from .render import chat_messages, persona_html, stepper_html

TICK_S = 0.2  # how often a playing replay looks for due events


@dataclass
class ReplayControls:
    box: gr.Accordion
    run_id: gr.Dropdown
    speed: gr.Radio
    start: gr.Button
    pause: gr.Button
    step: gr.Button
    next_stage: gr.Button
    cursor: gr.State
    timer: gr.Timer


@dataclass
class ReplayHandles:
    controls: ReplayControls
    outputs: list
    opener: Callable[[Any], Callable[..., dict]]  # tabs -> a handler opening Runs' run here
    link: Callable[..., dict]  # a page load: ``?replay=ID`` replays that run here
    link_inputs: list
    end: Callable[[], dict]  # the updates that end a replay in this tab and unfold the run form
    end_outputs: list  # ... and the components they name


def controls() -> ReplayControls:
    """The replay controls, placed where this is called (Play's right-hand column, beside the chat)."""
    with gr.Accordion(ui_text("Replay a stored run"), open=False, elem_id="vs-replay-box") as box:
        run_id = gr.Dropdown(choices=[], value=None, allow_custom_value=True, filterable=True, elem_id="vs-replay-run",
                             label=ui_text("Run (newest first; or type its id)"))
        speed = gr.Radio(list(SPEEDS), value=DEFAULT_SPEED, label=ui_text("Speed"), elem_id="vs-replay-speed")
        start = gr.Button(ui_text("Replay"), variant="secondary", elem_id="vs-replay-start")
        with gr.Row():
            pause = gr.Button(ui_text("Pause"), size="sm", elem_id="vs-replay-pause", interactive=False)
            step = gr.Button(ui_text("Step"), size="sm", elem_id="vs-replay-step", interactive=False)
            next_stage = gr.Button(ui_text("Next stage"), size="sm", elem_id="vs-replay-next", interactive=False)
    return ReplayControls(box, run_id, speed, start, pause, step, next_stage, gr.State(None), gr.Timer(TICK_S, active=False))


class ReplayRefused(ValueError):
    pass


RUN_CHOICES = 200  # the most recent runs offered in the picker (any other can still be typed)


def run_choices(ctx: AppContext, who: Who) -> list[tuple[str, str]]:
    """The runs this caller may read, newest first: (label, run id)."""
    out: list[tuple[str, str]] = []
    for run in ctx.store.list_runs():
        if not ctx.readable(who, run):
            continue
        out.append((f"{run.id} · {run.task_id} · {run.status}", run.id))
        if len(out) >= RUN_CHOICES:
            break
    return out


def open_replay(ctx: AppContext, who: Who, run_id: str, speed: str = DEFAULT_SPEED, *, now: float = 0.0) -> Cursor:
    """A cursor on a run this caller may read, its first event shown; reads only.
    A run the caller may not read is refused in the words of one that does not exist."""
    try:
        run = ctx.store.get_run(run_id)
        if not ctx.readable(who, run):
            raise RunNotFound(run_id)
    except RunNotFound:
        raise ReplayRefused(f"No run {run_id} in this database.") from None
    events = ctx.store.events(run.id)
    if not events:
        raise ReplayRefused(f"Run {run_id} has no stored events to replay.")
    c = Cursor.of(run.id, events, speed, now=now, imported=run.source != "live")
    c.begin(now)
    return c


def status_line(c: Cursor) -> str:
    shown, turns = c.user_turns()
    state = "finished" if c.done else "step by step" if c.factor is None else "paused" if c.paused else "playing"
    return (
        f"Replay of run `{c.run_id}` · **{state}** · event {c.pos} / {c.total} · user turn {shown} / {turns} · "
        f"speed {c.speed} ({c.pace_note()}) — a replay: nothing is written, the run stays as it was."
    )


def _official_note(meta: dict[str, Any]) -> str:
    """An imported official trajectory's own score (written in its file by the official judge)."""
    got = meta.get("metrics")
    metrics: dict[str, Any] = got if isinstance(got, dict) else {}
    f1 = metrics.get("triplet_f1")
    if not isinstance(f1, (int, float)):
        return ""
    p, r = metrics.get("triplet_precision"), metrics.get("triplet_recall")
    pr = f" · P {100 * p:.1f} · R {100 * r:.1f}" if isinstance(p, (int, float)) and isinstance(r, (int, float)) else ""
    return (f"<div class='vs-card vs-score' id='vs-replay-official'><span class='vs-big'>Official F1 {100 * f1:.1f}</span>{pr} "
            "<span class='vs-badge'>as written in the trajectory file (official judge)</span></div>")


def view_task(ctx: AppContext, run: Any) -> Task | None:
    """The run's task for drawing; an imported trajectory's snapshot has no ground truth (so
    ``task_of_run`` passes it by) but its persona still gives the stepper its stages."""
    task = ctx.task_of_run(run)
    if task is not None:
        return task
    try:
        return run.task()
    except TaskSnapshotError:  # no readable task: the replay shows the chat alone
        return None


def render(ctx: AppContext, c: Cursor, comps: dict[str, Any], *, first: bool = False) -> dict:
    """The Play view at the cursor: the same functions a live run's refresh uses, on the events shown."""
    out: dict = {comps["status"]: status_line(c)}
    run = ctx.store.get_run(c.run_id)
    task = view_task(ctx, run)
    shown = c.shown()
    if first:
        out[comps["persona"]] = persona_html(task) if task is not None else ""
        out[comps["human_box"]] = gr.Group(visible=False)
    out[comps["chat"]] = chat_messages(shown, task)
    if task is not None:
        out[comps["stepper"]] = stepper_html(task, shown, running=not c.done or run.status == "running")
    if c.done:
        try:
            stats = compute_stats(ctx.store, run.id)
        except Exception:  # noqa: BLE001 - the counters are a view
            stats = None
        out[comps["counters"]] = stats_html(stats, no_model=no_model(run), lang=lang_of(task))
        out.update(_result(ctx, run, comps))
    else:
        elapsed = (shown[-1].ts - c.events[0].ts).total_seconds() if shown and c.timed else None
        stats = live_stats(run.id, shown, task.stage_count() if task is not None else None, imported=run.source == "imported")
        out[comps["counters"]] = stats_html(stats, elapsed_s=elapsed, live=True, no_model=no_model(run), lang=lang_of(task))
        out[comps["score"]] = ""
        out[comps["table_answer"]] = ""
        out[comps["pred_table"]] = gr.Dataframe(value=[], visible=False)
    return out


def _result(ctx: AppContext, run: Any, comps: dict[str, Any]) -> dict:
    """The score at the end, as Play shows it after a live run (read only)."""
    out: dict = {}
    scores = latest_scores(ctx.store, run.id)
    official = _official_note(run.meta())
    html = official if official and not scores else score_html(run, scores) + official
    if run.kind != "table" and scores:
        html += missed_html(ground_truth(run), verdict_rows(ctx.store, scores[-1]), judge=scores[-1].judge, elem_id="vs-play-missed")
    out[comps["score"]] = html
    if run.kind == "table":
        out[comps["table_answer"]] = table_answer_html(ctx.store, run)
        out[comps["pred_table"]] = gr.Dataframe(value=[], visible=False)
    else:
        out[comps["table_answer"]] = ""
        rows = predicted_rows(predicted_triples(ctx.store, run.id), verdict_map(ctx.store, scores[-1] if scores else None))
        out[comps["pred_table"]] = gr.Dataframe(value=rows, visible=bool(rows))
    return out


def _buttons(rc: ReplayControls, c: Cursor | None) -> dict:
    on = c is not None and not c.done
    return {
        rc.pause: gr.Button(ui_text("Resume") if c is not None and c.paused else "Pause", interactive=on and c is not None and c.factor is not None),
        rc.step: gr.Button(interactive=on),
        rc.next_stage: gr.Button(interactive=on),
        rc.timer: gr.Timer(active=c is not None and c.playing),
    }


def wire(ctx: AppContext, owner: gr.BrowserState, rc: ReplayControls, comps: dict[str, Any], live_start: gr.Button) -> ReplayHandles:
    """Connect the controls to Play's components (``comps``: the dict ``play.build`` keeps)."""
    view, live_timer = comps["view"], comps["timer"]
    shown_by_replay = [comps[k] for k in ("chat", "stepper", "counters", "status", "human_box", "score", "table_answer", "pred_table", "persona")]
    folds = [comps[k] for k in ("form", "form_show") if k in comps]  # the run form, folded while replaying
    outputs = [rc.cursor, rc.timer, rc.pause, rc.step, rc.next_stage, rc.box, rc.run_id, view, live_timer, *shown_by_replay, *folds]

    def begin(tok: Any, run_id: Any, speed: Any, v: RunView, request: gr.Request) -> dict:
        run_id = (run_id if isinstance(run_id, str) else "").strip()[:200]
        if not run_id:
            raise gr.Error("Pick a run to replay, or type its id (the Runs tab lists them).")
        if v.run_id and ctx.manager.is_live(v.run_id):
            raise gr.Error(f"Run {v.run_id} is still going in this tab — stop it or let it finish before a replay.")
        try:
            c = open_replay(ctx, ctx.who(request, tok), run_id, speed if speed in SPEEDS else DEFAULT_SPEED, now=time.monotonic())
        except ReplayRefused as exc:
            raise gr.Error(str(exc)) from None
        out = render(ctx, c, comps, first=True)
        out.update(_buttons(rc, c))
        out.update({rc.cursor: c, rc.box: gr.Accordion(open=True), rc.run_id: c.run_id, view: RunView(), live_timer: gr.Timer(active=False)})
        if folds:
            out.update({comps["form"]: gr.Column(visible=False), comps["form_show"]: gr.Button(visible=True)})
        return out

    def moved(c: Cursor | None, change: Callable[[Cursor, float], Any]) -> dict:
        if c is None:  # an empty dict would be read as one value, not as "no updates"
            return {rc.cursor: gr.skip()}
        if change(c, time.monotonic()) is False:
            return {**_buttons(rc, c), rc.cursor: c}
        out = render(ctx, c, comps)
        out.update(_buttons(rc, c))
        out[rc.cursor] = c
        return out

    def on_tick(c: Cursor | None) -> dict:
        if c is None or not c.playing:
            return {rc.timer: gr.Timer(active=False)}
        if not c.advance(time.monotonic()):
            return {rc.cursor: gr.skip()}
        out = render(ctx, c, comps)
        if c.done:
            out.update(_buttons(rc, c))
        out[rc.cursor] = c
        return out

    def on_speed(c: Cursor | None, speed: str) -> dict:
        if c is None or speed not in SPEEDS:
            return {rc.cursor: gr.skip()}
        c.set_speed(speed, time.monotonic())
        out = render(ctx, c, comps) if c.done else {comps["status"]: status_line(c)}
        return {**out, **_buttons(rc, c), rc.cursor: c}

    def stop_replay(c: Any = None) -> dict:
        """A live Start (or Runs' Continue) ends a replay in this tab (its timer would draw over
        the live run) and unfolds the run form."""
        out = {rc.cursor: None, **_buttons(rc, None)}
        if folds:
            out.update({comps["form"]: gr.Column(visible=True), comps["form_show"]: gr.Button(visible=False)})
        return out

    end_outputs = [rc.cursor, rc.pause, rc.step, rc.next_stage, rc.timer, *folds]

    def fill(tok: Any, request: gr.Request) -> gr.Dropdown:
        return gr.Dropdown(choices=run_choices(ctx, ctx.who(request, tok)))

    private: dict[str, Any] = dict(api_visibility="private")
    rc.box.expand(fill, [owner], [rc.run_id], show_progress="hidden", **private)
    rc.start.click(begin, [owner, rc.run_id, rc.speed, view], outputs, **private)
    rc.timer.tick(on_tick, [rc.cursor], outputs, concurrency_limit=None, show_progress="hidden", trigger_mode="always_last", **private)
    rc.pause.click(lambda c: moved(c, Cursor.toggle), [rc.cursor], outputs, show_progress="hidden", **private)
    rc.step.click(lambda c: moved(c, Cursor.step), [rc.cursor], outputs, show_progress="hidden", **private)
    rc.next_stage.click(lambda c: moved(c, Cursor.next_stage), [rc.cursor], outputs, show_progress="hidden", **private)
    rc.speed.change(on_speed, [rc.cursor, rc.speed], outputs, show_progress="hidden", **private)
    live_start.click(stop_replay, [rc.cursor], end_outputs, **private)

    def opener(tabs: Any) -> Callable[..., dict]:
        def from_runs(tok: Any, v: RunView, speed: Any, pv: RunView, request: gr.Request) -> dict:
            if not v.run_id:
                raise gr.Error("Open a run first.")
            out = begin(tok, v.run_id, speed, pv, request)
            out[tabs] = gr.Tabs(selected="play")
            return out

        return from_runs

    def from_link(tok: Any, speed: Any, pv: RunView, request: gr.Request) -> dict:
        """``?replay=ID`` in the page's address replays that run (within the read policy)."""
        wanted = (request.query_params.get("replay") or "").strip()[:200] if request is not None else ""
        if not wanted or ctx.who(request, tok).player:
            return {rc.cursor: gr.skip()}
        try:
            return begin(tok, wanted, speed, pv, request)
        except gr.Error as exc:
            out: dict = {rc.cursor: gr.skip(), comps["status"]: f"⚠ {exc.message}"}
            return out

    return ReplayHandles(controls=rc, outputs=outputs, opener=opener, link=from_link, link_inputs=[owner, rc.speed, view],
                         end=stop_replay, end_outputs=end_outputs)
