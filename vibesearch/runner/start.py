"""Starting a batch from what a person gave (``vibesearch run``): every check before anything runs,
then the batch here or on the queue.

``start_batch`` is the one call a surface makes. In order, as each check may refuse the batch with
one line (``BatchRefused``; the CLI prints it as ``error: ...`` and exits 1):

1. the queue's limits (``--queue`` needs PostgreSQL, no ``--resume``, no ``--events``);
2. the resume plan (``--resume``: the stored batch's config and tasks, with what was given on top);
3. the config, the official prompts (announced through the front), the users a batch may run and
   the models' credentials — a model without its key stops here, before a database is created;
4. the tasks (resolved by the front: files, folders or ids), then each run's parts;
5. the batch: written as jobs for the workers (``--queue``) or driven here by the front's display.

The surface gives a ``BatchFront``: how it resolves task arguments, shows a note or a warning,
turns a database outage into one line, and drives the batch on screen.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Callable, Coroutine, Protocol

from .._gc import settle
from .._shown import db_shown, one_line
from ..config import Settings
from ..run import RunConfig
from ..tasks.models import Task
from .batch import BatchSpec



class BatchRefused(ValueError):
    """The batch was not started: one line saying why."""


class BatchFront(Protocol):
    """What the surface starting a batch provides."""

    def resolve(self, values: list[str], settings: Settings) -> list[Task]:
        """The tasks named by ``values`` (raises ``ValueError``, ``TaskLoadError`` or ``OSError``)."""
        ...

    def note(self, line: str) -> None: ...

    def guard(self, doing: str) -> AbstractContextManager[Any]:
        """Around each use of the database: an outage ends the command with one line naming ``doing``."""
        ...

    def drive(self, store: Any, settings: Settings, spec: BatchSpec, *, resume: bool) -> Coroutine[Any, Any, list[dict[str, Any]]]:
        """Run the batch here (``runner.batch.run_batch``), showing it; one row per run."""
        ...


@dataclass
class BatchRequest:
    """A batch as it was asked for (``given``: the run config's fields given, None for not given)."""

    tasks: list[str] = field(default_factory=list)
    given: dict[str, Any] = field(default_factory=dict)
    runs: int = 1
    concurrency: int = 4
    resume: bool = False
    batch: str | None = None
    events: bool = False
    queue: bool = False
    provider_limit: str | None = None


@dataclass
class BatchStarted:
    """What became of the batch: queued (``queued``: its run ids) or run here (``rows``)."""

    spec: BatchSpec
    limits: dict[str, int] = field(default_factory=dict)
    queued: list[str] | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)


def start_batch(settings: Settings, request: BatchRequest, front: BatchFront) -> BatchStarted:
    """Check the batch, then queue it or run it (``BatchRefused``: one line, nothing ran)."""
    from ..protocol import build_config, rebuild_config
    from ..store import LeaseHeld, open_db
    from ..tasks import TaskLoadError
    from .batch import batch_plan, build_parts, plan_config

    limits = queue_limits(settings, request)
    tasks = list(request.tasks)
    # a new batch opens (and maybe creates) the database only once its input is known to be good
    store = None
    plan: dict[str, Any] | None = None
    if request.resume:
        if _no_sqlite_file(settings):  # nothing to resume there, and a refusal leaves no new file behind
            raise BatchRefused(f"--resume: no database at {db_shown(settings.db)} (pass the --db the batch ran with)")
        with front.guard("the batch to resume could not be read"):
            store = open_db(settings.db)
            plan = batch_plan(store, request.batch)
        if plan is None:
            raise BatchRefused(f"--resume: no batch {'with id ' + repr(request.batch) if request.batch else 'at all'} in {db_shown(settings.db)}")
        if not tasks and plan.get("tasks"):
            tasks = list(plan["tasks"])
    try:  # the resumed batch's own config, with what was given now on top
        if plan is not None:
            config = rebuild_config(plan_config(plan, settings), **request.given)
        else:
            config = build_config(settings, **request.given)
    except ValueError as exc:
        raise BatchRefused(one_line(exc)) from None
    check_prompts(config, settings, front.note)
    from ..llm.credentials import MissingCredentials
    from ..session.preflight import check_config_credentials
    from ..users.registry import user_kind, user_kinds

    if not user_kind(config.user.kind).in_batches:  # the users a batch may run (a person plays with ``vibesearch play``)
        offered = ", ".join(k.name for k in user_kinds() if k.in_batches)
        raise BatchRefused(f"--user {config.user.kind!r}: choose one of {offered} (a person plays with `vibesearch play`)")

    try:  # a model without its key stops here, before the database file is created
        check_config_credentials(config, settings)
    except MissingCredentials as exc:
        raise BatchRefused(str(exc)) from None
    if not tasks:
        raise BatchRefused("--tasks: give task files, folders or ids (see `vibesearch tasks list`)")
    try:
        task_list = front.resolve(tasks, settings)
    except (ValueError, TaskLoadError, OSError) as exc:  # task errors name their file and field
        raise BatchRefused(one_line(exc)) from None
    planned_runs = int(plan.get("runs", request.runs)) if plan is not None and request.runs == 1 else request.runs
    spec = BatchSpec(tasks=task_list, config=config, runs=planned_runs, concurrency=request.concurrency)
    if plan is not None and plan.get("batch_id"):
        spec.batch_id = str(plan["batch_id"])
    if config.search.web == "replay":  # the recording a replay reads is in the database
        try:
            store = store or replay_store(settings)
        except ValueError as exc:
            raise BatchRefused(str(exc)) from None
    try:  # configuration errors (no model, no corpus, nothing recorded to replay ...) stop before anything runs
        for t in task_list:
            build_parts(spec.config_for(t), t, settings, store)
    except ValueError as exc:
        raise BatchRefused(str(exc)) from None
    if request.queue:
        return BatchStarted(spec=spec, limits=limits, queued=_queue(settings, spec, limits, front))
    try:
        with front.guard(f"batch {spec.batch_id} was not {'resumed' if request.resume else 'started'}"):
            store = store or open_db(settings.db)
            settle()  # what the batch was built from lives as long as the process (``_gc``)
            rows = asyncio.run(front.drive(store, settings, spec, resume=request.resume))
    except LeaseHeld as exc:  # another process is running this batch: leave it be
        raise BatchRefused(str(exc)) from None
    return BatchStarted(spec=spec, limits=limits, rows=rows)


def _no_sqlite_file(settings: Settings) -> bool:
    """The database is an SQLite file that does not exist (yet)."""
    from pathlib import Path

    from ..store import is_db_url

    return not is_db_url(settings.db) and not Path(settings.db).exists()


def replay_store(settings: Settings) -> Any:
    """The store a replay reads its recorded web from; ``ValueError`` when the database is an
    SQLite file that does not exist (nothing can be recorded there, and a refused replay leaves no
    new file behind)."""
    from ..store import open_db

    if _no_sqlite_file(settings):
        raise ValueError(f"the web: nothing is recorded to replay, there is no database at {db_shown(settings.db)} "
                         "(record runs with a web backend into it first, or pass their --db)")
    return open_db(settings.db)


def queue_limits(settings: Settings, request: BatchRequest) -> dict[str, int]:
    """The provider caps of a queued batch; ``BatchRefused`` for what the queue cannot do."""
    from ..store import db_target
    from .queued import parse_limits

    if not request.queue:
        if request.provider_limit is not None:
            raise BatchRefused("--provider-limit: only with --queue (a batch run here is capped by --concurrency)")
        return {}
    try:
        on_sqlite = db_target(str(settings.db)).is_sqlite
    except ValueError as exc:
        raise BatchRefused(f"--db: {one_line(exc)}") from None
    if on_sqlite:
        raise BatchRefused(
            f"--queue: the job queue lives in PostgreSQL; {db_shown(settings.db)} is SQLite (give --db postgresql+psycopg://user@host:port/db)"
        )
    if request.resume:
        raise BatchRefused("--queue: a queued batch needs no --resume (workers continue its runs themselves; see `vibesearch batch status`)")
    if request.events:
        raise BatchRefused("--queue: --events is for a batch run here; the workers' runs are watched with `vibesearch batch status`")
    try:
        return parse_limits(request.provider_limit)
    except ValueError as exc:
        raise BatchRefused(str(exc)) from None


def _queue(settings: Settings, spec: BatchSpec, limits: dict[str, int], front: BatchFront) -> list[str]:
    """Write the batch's jobs; their run ids."""
    from ..store import open_db
    from .queued import QueueError, queue_batch

    with front.guard(f"batch {spec.batch_id} was not queued"):
        open_db(settings.db)  # the schema is checked (a database `vibesearch db upgrade` has not brought up is refused)
        try:
            return asyncio.run(queue_batch(str(settings.db), spec, limits))
        except QueueError as exc:
            raise BatchRefused(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - e.g. the job tables are missing: one line
            if "procrastinate" in str(exc):
                raise BatchRefused(
                    f"--queue: the job queue tables are missing; run `vibesearch db upgrade --db {db_shown(settings.db)}` first"
                ) from None
            raise


def check_prompts(config: RunConfig, settings: Settings, note: Callable[[str], None]) -> None:
    """Under the official profile: read the prompts now (a bad checkout is refused, naming the file
    and the name) and say (``note``) which source the runs will use."""
    from ..protocol import HarnessError, profile_of

    try:
        prompts = profile_of(config.protocol).prompts(settings)
    except HarnessError as exc:
        raise BatchRefused(one_line(exc)) from None
    if prompts is not None:
        note(f"official protocol, {prompts.source.announced()}")
        for line in prompts.notes:
            note(f"note: {line}")
