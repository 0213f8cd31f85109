"""CLI commands: ``run`` (a batch of runs), ``resume`` (continue one run), ``play`` (be the user).

``run`` starts every (task × run index) pair, K at a time, with a live display of each run's
stage progress and a summary table at the end; it exits non-zero when a run failed and says why.
``--events`` prints every event as one JSON line once it is stored (never before).
When the database goes away mid-batch, each run it cut off is one line (its id; "not started" for
a pair not yet begun) and a last line gives the ``vibesearch run --resume`` that continues them;
the exit code is 1. While a command runs, a logged warning is one line without its traceback
(``VIBESEARCH_DEBUG=1``: vibesearch's own records from DEBUG up, with their tracebacks).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, List, Optional

import typer

from ..config import SEARCH_BACKENDS
from ._help import AGENT_HELP, USER_HELP, LateHelp, field_help
from ._common import console, db_shown, DbOption, err_console, fail, JsonOption, model_strings, one_line, print_json, printable
from ._logs import database_errors as _database_errors
from ._logs import plain_logs as _plain_logs
from ._queue import show_queued

WEB_CHOICES = "record | replay[:SELECTION] | live (SELECTION: run ids, a batch id or a task id)"
PROTOCOL_HELP = field_help("protocol", "vibesearch (ours, the default) | official (the paper's harness, rule by rule)")
HARNESS_HELP = "the official profile's prompts: your checkout of VibeBench/VibeSearchBench, parsed, never run (default: VIBESEARCH_OFFICIAL_HARNESS; unset: our own prompts)"
SUMMARY_KEYS = ("run_id", "task_id", "status", "termination", "stages_reached", "stages_total", "user_turns", "assistant_steps", "tool_calls")
MAX_RUNS_PER_TASK = 10_000  # --runs: each run is planned up front (a job each), so the count must fit in memory


def _settings(db: Optional[str], **overrides: Any):
    from ..config import db_location, get_settings

    settings = get_settings()
    update = {k: v for k, v in overrides.items() if v is not None}
    if db is not None:  # as the settings read it: sqlite:///x is the file x, a URL stays a URL
        update["db"] = db_location(db)
    return settings.model_copy(update=update) if update else settings


def _event_line(ev: Any, stream: Any) -> None:
    """One stored event as a JSON line (called by the session only after the store wrote it)."""
    line = {"run_id": ev.run_id, "seq": ev.seq, "kind": ev.kind, "data": ev.data.model_dump(mode="json")}
    stream.write(json.dumps(line, ensure_ascii=False) + "\n")
    stream.flush()


def _start_fakes() -> None:
    from ..llm.fake import install_from_env

    install_from_env()


def _summary(rows: list[dict[str, Any]]) -> None:
    """One row per run. Readable at 80 columns: no rules between columns, the run index after the
    task id as the progress lines write it (``task#0``), the termination beside the status, and a
    long task id broken after a hyphen rather than anywhere."""
    from rich import box
    from rich.table import Table

    from ._task_view import Wrapped

    table = Table(title="runs", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, show_lines=False)
    table.add_column("run", no_wrap=True)
    table.add_column("task")
    table.add_column("status")
    # the counts never wrap (their two-line headers keep them narrow): the width left goes to the text
    for col in ("stages", "user\nturns", "steps", "tool\ncalls"):
        table.add_column(col, no_wrap=True, justify="right")
    for r in rows:
        if r.get("cut_off"):  # the database went away: the counts are in its stored events, not here
            reached, turns, steps, calls = "-", "-", "-", "-"
        else:
            reached, turns, steps, calls = str(r["stages_reached"]), str(r["user_turns"]), str(r["assistant_steps"]), str(r["tool_calls"])
        status, termination = str(r["status"]), str(r["termination"] or "")
        index = r.get("run_index")
        table.add_row(
            r["run_id"],
            Wrapped(printable(str(r["task_id"])) + (f"#{index}" if index is not None and index != "" else ""), after="-_"),
            Wrapped(status + (f" ({termination})" if termination and termination != status else "")),
            f"{reached}/{r['stages_total']}", turns, steps, calls,
        )
    console.print(table)


def _report_failures(rows: list[dict[str, Any]], resume_hint: str | None = None) -> int:
    """Name every failed or skipped run (a run another process drives is skipped), and every run
    the database went away under, then how to continue those (``resume_hint``); 1 if any."""
    from rich.markup import escape

    bad = [r for r in rows if r["status"] in ("failed", "skipped")]
    for r in bad:
        why = escape(str(r.get("error") or "unknown error"))
        err_console.print(f"[red]{r['status']}[/red] {escape(str(r['task_id']))} #{r.get('run_index', 0)} (run {r['run_id']}): {why}", highlight=False, soft_wrap=True)
    cut = [r for r in rows if r.get("cut_off")]
    for r in cut:  # the run's id once its row was stored; a pair the outage came before has none
        what = f"{escape(printable(str(r['task_id'])))} #{r.get('run_index', 0)}"
        said = f"[yellow]interrupted[/yellow] {what} (run {r['run_id']})" if r["run_id"] != "-" else f"[yellow]not started[/yellow] {what}"
        why = escape(printable(str(r["cut_off"])))
        err_console.print(f"{said}: the database could not be reached ({why})", highlight=False, soft_wrap=True)
    if cut and resume_hint:
        err_console.print(resume_hint, markup=False, highlight=False, soft_wrap=True)
    return 1 if bad or cut else 0


def _resume_hint(rows: list[dict[str, Any]], spec: Any, settings: Any, official_harness: Optional[Path]) -> str:
    """The last line after a database outage: what is stored, and the command that goes on."""
    shown = db_shown(settings.db)
    words = ["vibesearch", "run", "--resume", "--batch", str(spec.batch_id), "--db", shown]
    if spec.concurrency != 4:
        words += ["--concurrency", str(spec.concurrency)]
    if official_harness is not None:
        words += ["--official-harness", str(official_harness)]
    command = " ".join(shlex.quote(w) for w in words)
    if "***" in shown and "***" not in str(settings.db):
        command += " (with the database's password in place of ***)"
    left = sum(1 for r in rows if r.get("cut_off"))
    return (
        f"the database went away: {left} of {len(rows)} runs did not finish (what every run did until then is stored). "
        f"Once the database is back and this process' leases have expired (within {float(settings.lease_ttl_s):g} s), "
        f"resume with: {command}"
    )


def run_cmd(
    tasks: List[str] = typer.Option(None, "--tasks", "-t", help="task files, folders or ids (repeat, or separate with commas)"),
    more: List[str] = typer.Argument(None, help="more task files, folders or ids", show_default=False),
    agent: Optional[str] = typer.Option(None, "--agent", help=field_help("agent.kind", AGENT_HELP)),
    model: Optional[str] = typer.Option(None, "--model", help=field_help("agent.model"), callback=model_strings),
    user: Optional[str] = typer.Option(None, "--user", help=field_help("user.kind", USER_HELP)),
    simulator_model: Optional[str] = typer.Option(None, "--simulator-model", help=field_help("user.model"), callback=model_strings),
    runs: int = typer.Option(1, "--runs", min=1, max=MAX_RUNS_PER_TASK, help="runs per task"),
    concurrency: int = typer.Option(4, "--concurrency", "-k", min=1, help="runs at once"),
    max_user_turns: Optional[int] = typer.Option(None, "--max-user-turns", min=1, help=field_help("limits.max_user_turns")),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", help=field_help("limits.budget_usd")),
    budget_tokens: Optional[int] = typer.Option(None, "--budget-tokens", help=field_help("limits.budget_tokens")),
    stop_on_answer: Optional[bool] = typer.Option(None, "--stop-on-answer/--no-stop-on-answer", help=field_help("limits.stop_on_final_answer")),
    search: Optional[str] = typer.Option(None, "--search", help=field_help("search.backend", " | ".join(SEARCH_BACKENDS))),
    web: Optional[str] = typer.Option(None, "--web", help=field_help("search.web", WEB_CHOICES)),
    endpoint_url: Optional[str] = typer.Option(None, "--endpoint-url", help=field_help("agent.endpoint_url")),
    endpoint_model: Optional[str] = typer.Option(None, "--endpoint-model", help=field_help("agent.endpoint_model")),
    openclaw_subagents: Optional[bool] = typer.Option(None, "--openclaw-subagents/--no-openclaw-subagents", help=field_help("agent.openclaw.subagents")),
    openclaw_memory: Optional[bool] = typer.Option(None, "--openclaw-memory/--no-openclaw-memory", help=field_help("agent.openclaw.memory")),
    openclaw_long_term_memory: Optional[bool] = typer.Option(
        None, "--openclaw-long-term-memory/--no-openclaw-long-term-memory", help=field_help("agent.openclaw.long_term_memory")
    ),
    openclaw_idle_s: Optional[float] = typer.Option(None, "--openclaw-idle-s", min=1, help=field_help("agent.openclaw.idle_s")),
    openclaw_max_nudges: Optional[int] = typer.Option(None, "--openclaw-max-nudges", min=0, help=field_help("agent.openclaw.max_nudges")),
    protocol: Optional[str] = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    official_harness: Optional[Path] = typer.Option(None, "--official-harness", help=HARNESS_HELP),
    resume: bool = typer.Option(False, "--resume", help="finish the latest (or --batch) batch: resume interrupted runs, start missing ones (runs another process drives are skipped)"),
    batch: Optional[str] = typer.Option(None, "--batch", help="the batch id for --resume"),
    events: bool = typer.Option(False, "--events", help="print every stored event as a JSON line"),
    queue: bool = typer.Option(False, "--queue", help="PostgreSQL only: plan the batch as jobs for `vibesearch worker` processes and return at once"),
    provider_limit: Optional[str] = typer.Option(
        None, "--provider-limit", help="with --queue: the most runs driven at once against each provider, over all workers (openai=40,fake=2)"
    ),
    json_out: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Run tasks headless: each task × --runs, --concurrency at a time (--queue: by workers)."""
    _start_fakes()
    from ..runner.start import BatchRefused, BatchRequest, start_batch

    _check_protocol(protocol)
    settings = _settings(db, official_harness=official_harness)
    given = dict(
        agent=agent, agent_model=model, user=user, simulator_model=simulator_model, max_user_turns=max_user_turns,
        budget_usd=budget_usd, budget_tokens=budget_tokens, stop_on_final_answer=stop_on_answer, search_backend=search,
        endpoint_url=endpoint_url, endpoint_model=endpoint_model, protocol=protocol, **_web_choice(web),
        openclaw=_openclaw_switches(openclaw_subagents, openclaw_memory, openclaw_long_term_memory, openclaw_idle_s, openclaw_max_nudges),
    )
    request = BatchRequest(
        tasks=[*(tasks or []), *(more or [])], given=given, runs=runs, concurrency=concurrency, resume=resume, batch=batch,
        events=events, queue=queue, provider_limit=provider_limit,
    )
    try:
        started = start_batch(settings, request, _Front(events=events, quiet=json_out))
    except BatchRefused as exc:
        fail(str(exc))
    spec, rows = started.spec, started.rows
    if started.queued is not None:
        show_queued(settings, spec, started.queued, started.limits, json_out)
        raise typer.Exit(0)
    if json_out:
        print_json([{k: r[k] for k in SUMMARY_KEYS} for r in rows])
    else:
        _summary(rows)
        err_console.print(f"batch {spec.batch_id} · database {db_shown(settings.db)}", highlight=False, soft_wrap=True)
    raise typer.Exit(_report_failures(rows, _resume_hint(rows, spec, settings, official_harness)))


class _Front:
    """How ``vibesearch run`` resolves --tasks, says a note, turns a database outage into one line
    and shows a batch as it runs (``runner.start.BatchFront``)."""

    def __init__(self, *, events: bool, quiet: bool):
        self.events, self.quiet = events, quiet

    def resolve(self, values: list[str], settings: Any) -> list[Any]:
        from ._resolve import resolve_tasks

        return resolve_tasks(values, settings, warn=lambda p: err_console.print(f"warning: {p}", highlight=False, soft_wrap=True, markup=False))

    def note(self, line: str) -> None:
        err_console.print(line, highlight=False, soft_wrap=True, markup=False)

    @contextmanager
    def guard(self, doing: str) -> Iterator[None]:
        with _plain_logs(), _database_errors(doing):
            yield

    def drive(self, store: Any, settings: Any, spec: Any, *, resume: bool) -> Any:
        return _run_with_display(store, settings, spec, resume=resume, events=self.events, quiet=self.quiet)


async def _run_with_display(store: Any, settings: Any, spec: Any, *, resume: bool, events: bool, quiet: bool) -> list[dict[str, Any]]:
    from ..runner.batch import run_batch
    from ._progress import BatchProgress

    out_stream = sys.stderr if quiet else sys.stdout
    shown = BatchProgress(err_console, runs=len(spec.tasks) * spec.runs, off=quiet)

    def on_event(job: Any, ev: Any) -> None:
        if events:
            _event_line(ev, out_stream)
        if ev.kind == "stage" and not ev.data.shadow:
            shown.stage(job, ev.data.stage_index)

    async with shown:
        results = await run_batch(
            store, settings, spec, resume=resume, on_event=on_event if events or shown.wants_events else None,
            event_kinds=None if events else ("stage",),  # the progress rows show stages only
            on_start=shown.started, on_result=shown.finished,
        )
    return [{**r.to_dict(), "task_id": j.task.id, "run_index": j.index, "cut_off": j.cut_off} for j, r in results]


def resume_cmd(
    run_id: str = typer.Argument(..., help="the run to continue"),
    events: bool = typer.Option(False, "--events", help="print every stored event as a JSON line"),
    json_out: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Continue one interrupted run from its stored events."""
    _start_fakes()
    from ..session import RunAlreadyEnded
    from ..runner import ResumeError, resume_run
    from ..store import LeaseHeld, LeaseLost, RunNotFound, open_db

    settings = _settings(db)
    stream = sys.stderr if json_out else sys.stdout
    listeners = [lambda ev: _event_line(ev, stream)] if events else []
    again = f"once it is back, continue run {run_id} with: " + " ".join(
        shlex.quote(w) for w in ("vibesearch", "resume", run_id, "--db", db_shown(settings.db))
    )
    with _plain_logs(), _database_errors(again):
        store = open_db(settings.db)
    try:
        with _plain_logs(), _database_errors(again):
            result = asyncio.run(resume_run(store, run_id, settings, listeners=listeners))
            task_id = store.get_run(run_id).task_id
    except (RunNotFound, ResumeError, RunAlreadyEnded, LeaseHeld, LeaseLost, ValueError) as exc:
        fail(str(exc))
    row = {**result.to_dict(), "task_id": task_id}
    if json_out:
        print_json({k: row[k] for k in SUMMARY_KEYS})
    else:
        _summary([row])
    raise typer.Exit(_report_failures([row]))


def play_cmd(
    task: Optional[str] = typer.Option(None, "--task", help="the task id (or a task file) to play"),
    agent: Optional[str] = typer.Option(None, "--agent", help=field_help("agent.kind", AGENT_HELP)),
    model: Optional[str] = typer.Option(None, "--model", help=field_help("agent.model"), callback=model_strings),
    shadow_model: Optional[str] = typer.Option(None, "--shadow-model", help=field_help("user.shadow"), callback=model_strings),
    protocol: Optional[str] = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    web: Optional[str] = typer.Option(None, "--web", help=field_help("search.web", WEB_CHOICES)),
    official_harness: Optional[Path] = typer.Option(None, "--official-harness", help=HARNESS_HELP),
    tasks_path: Optional[Path] = typer.Option(None, "--tasks", help="a task file or folder besides the bundled ones"),
    resume: Optional[str] = typer.Option(None, "--resume", help="continue a run you left with Ctrl-C (its id; the run keeps its own task and settings)"),
    db: Optional[str] = DbOption,
) -> None:
    """Play the persona yourself in the terminal while the agent answers."""
    _start_fakes()
    from ..store import open_db
    from ._play import play

    if resume is None and task is None:
        fail("--task: name the task to play (or --resume RUN to continue a run you left)")
    if resume is not None and task is not None:
        fail("--resume continues a run with its own task: leave out --task")
    _check_protocol(protocol)
    settings = _settings(db, official_harness=official_harness)
    if tasks_path is not None:
        settings = settings.model_copy(update={"tasks": str(tasks_path)})
    if resume is not None:
        from ..store import is_db_url

        if not is_db_url(settings.db) and not Path(settings.db).exists():
            fail(f"--resume {resume}: no database at {db_shown(settings.db)} (pass the --db the run was played with)")
        store = open_db(settings.db)
        config, the_task, the_agent, the_user = _resumed_parts(store, resume, settings)
    else:
        choice = _web_choice(web)
        replay_from = _replay_store(settings) if choice.get("web") == "replay" else None  # a replay reads its recording there
        config, the_task, the_agent, the_user = _new_parts(str(task), settings, agent, model, shadow_model, protocol, choice, replay_from)
        store = replay_from or open_db(settings.db)
    from ..session import RunAlreadyEnded
    from ..runner import ResumeError
    from ..store import LeaseHeld

    try:
        result = asyncio.run(play(config, the_task, the_agent, the_user, store, settings, resume_id=resume))
    except (LeaseHeld, ResumeError, RunAlreadyEnded) as exc:
        fail(f"--resume {resume}: {one_line(exc)}")
    if result is None:  # the person left: the run waits to be resumed
        raise typer.Exit(130)
    raise typer.Exit(1 if result.status == "failed" else 0)


def _openclaw_switches(
    subagents: Optional[bool], memory: Optional[bool], long_term: Optional[bool], idle_s: Optional[float], max_nudges: Optional[int]
) -> dict[str, Any] | None:
    """The openclaw agent's switches given on the command line (None: none given)."""
    given = {"subagents": subagents, "memory": memory, "long_term_memory": long_term, "idle_s": idle_s, "max_nudges": max_nudges}
    return {k: v for k, v in given.items() if v is not None} or None


def _replay_store(settings: Any) -> Any:
    from ..runner.start import replay_store

    try:
        return replay_store(settings)
    except ValueError as exc:
        fail(str(exc))


def _web_choice(web: Optional[str]) -> dict[str, Any]:
    """``--web record|replay[:SELECTION]|live`` as the config's ``web`` and ``web_from``."""
    if web is None:
        return {}
    from ..run.web import parse_web_choice

    try:
        mode, selection = parse_web_choice(web)
    except ValueError as exc:
        fail(f"--web: {exc}")
    return {"web": mode, "web_from": selection}


def _new_parts(
    task: str, settings: Any, agent: Optional[str], model: Optional[str], shadow_model: Optional[str], protocol: Optional[str],
    web: dict[str, Any], store: Any,
) -> tuple[Any, Any, Any, Any]:
    from ..agents import make_agent
    from ..protocol import build_config
    from ..tasks import TaskLoadError
    from ..users import HumanUser, ShadowUser, make_user
    from ._resolve import TaskArgError, resolve_tasks

    try:
        the_task = resolve_tasks([task], settings)[0]
        config = build_config(
            settings, task_id=the_task.id, agent=agent, agent_model=model, user="human", shadow=shadow_model, protocol=protocol, **web
        )
        _check_prompts(config, settings)
        the_agent = make_agent(config, the_task, settings, web=store)
        the_user = make_user(config, the_task, settings)
    except (TaskArgError, TaskLoadError, ValueError) as exc:
        fail(one_line(exc))
    assert isinstance(the_user, (HumanUser, ShadowUser))
    return config, the_task, the_agent, the_user


def _resumed_parts(store: Any, run_id: str, settings: Any) -> tuple[Any, Any, Any, Any]:
    """The parts of a run a person left, checked before anything runs (one clear line otherwise)."""
    from ..agents import make_agent
    from ..run.result import RESUMABLE
    from ..runner.resume import ResumeError, config_of_run, run_task
    from ..store import RunNotFound
    from ..users import HumanUser, ShadowUser, is_person, make_user

    try:
        run = store.get_run(run_id)
        if run.status not in RESUMABLE:
            fail(f"--resume {run_id}: the run is {run.status} ({run.termination}); only a run left running, interrupted or abandoned can be continued")
        the_task = run_task(run)
        config = config_of_run(run, settings)
        if not is_person(config.user.kind):
            fail(f"--resume {run_id}: the run is played by {config.user.kind!r}, not a person: continue it with `vibesearch resume {run_id}`")
        the_agent = make_agent(config, the_task, settings, web=store)
        the_user = make_user(config, the_task, settings)
    except (RunNotFound, KeyError):
        fail(f"--resume {run_id}: no such run in {db_shown(settings.db)}")
    except (ResumeError, ValueError) as exc:
        fail(f"--resume {run_id}: {one_line(exc)}")
    assert isinstance(the_user, (HumanUser, ShadowUser))
    return config, the_task, the_agent, the_user


def _check_protocol(protocol: Optional[str]) -> None:
    from ..protocol import PROTOCOLS

    if protocol is not None and protocol not in PROTOCOLS:
        fail(f"--protocol {protocol!r}: choose one of {', '.join(PROTOCOLS)}")


def _check_prompts(config: Any, settings: Any) -> None:
    """Under the official profile: the prompts read now, their source said (``runner.start.check_prompts``)."""
    from ..runner.start import BatchRefused, check_prompts

    try:
        check_prompts(config, settings, lambda line: err_console.print(line, highlight=False, soft_wrap=True, markup=False))
    except BatchRefused as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.command("run", cls=LateHelp)(run_cmd)
    app.command("resume")(resume_cmd)
    app.command("play", cls=LateHelp)(play_cmd)
