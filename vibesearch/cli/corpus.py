"""``vibesearch corpus freeze``: the pages recorded runs fetched become a task's offline corpus
(docs/web.md).

The runs are a selection as ``--web replay:SELECTION`` takes one (run ids, a batch id, a task id,
comma-separated); their recorded pages (``tools.web_replay.recorded_pages``) are written, by URL, in the
bundled format — one JSON line per page: url, title, text (facts optional) — beside a copy of the
task that points at them, so ``vibesearch tasks validate OUT/`` accepts the folder and ``--tasks
OUT/`` runs the task offline on that web.

``vibesearch corpus fetch TASK`` fetches the pages the task's ground truth cites into the recorded
web (``runner.cited_web``), so freezing a task's web does not wait for a run to visit them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ._common import DbOption, db_shown, fail, one_line

corpus_app = typer.Typer(help="Offline corpora made from recorded web (docs/web.md).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the ``corpus`` group to the main app."""
    app.add_typer(corpus_app, name="corpus")


@corpus_app.command("freeze")
def freeze(
    out: Path = typer.Argument(..., help="the folder to write: the task file and corpus/<task>.jsonl"),
    task_id: str = typer.Option(..., "--task", help="the task whose corpus this is (a run of it gives the task)"),
    runs: Optional[str] = typer.Option(
        None, "--runs", help="the recorded runs: run ids, a batch id or a task id, comma-separated (default: every run of --task)"
    ),
    db: Optional[str] = DbOption,
) -> None:
    """Write the pages the runs recorded as the task's offline corpus, with the task beside it."""
    from ..config import db_location, get_settings
    from ..store import StoreOpenError, TaskSnapshotError, is_db_url, open_db
    from ..store.web import UnknownSelection
    from ..tools.web_replay import recorded_pages

    settings = get_settings() if db is None else get_settings().model_copy(update={"db": db_location(db)})
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"{out}: give a new or empty folder")
    if not is_db_url(settings.db) and not Path(settings.db).exists():
        fail(f"no database at {db_shown(settings.db)} (pass the --db the runs were recorded in)")
    try:
        store = open_db(settings.db, writes=False)
    except (StoreOpenError, OSError) as exc:
        fail(one_line(exc))
    try:
        ids = store.web_run_ids(task_id, runs)
    except UnknownSelection as exc:
        fail(f"--runs: {exc} ({db_shown(settings.db)})")
    own = [run for run in (store.get_run(i) for i in ids) if run.task_id == task_id]
    if not own:
        fail(f"--task {task_id}: no run of it among the selected runs in {db_shown(settings.db)}")
    docs = recorded_pages(store.web_events(ids))
    if not docs:
        fail("--runs: the selected runs recorded no page with text (were they run with a web backend and --web record?)")
    try:
        task = own[-1].task()
    except TaskSnapshotError as exc:
        fail(one_line(exc))
    name = f"corpus/{task.id}.jsonl"
    (out / "corpus").mkdir(parents=True, exist_ok=True)
    # by URL: the same recorded web freezes to the same file, whatever order its pages were fetched in
    lines = [json.dumps(d.model_dump(mode="json", exclude_defaults=True) | {"url": d.url, "title": d.title, "text": d.text},
                        ensure_ascii=False) for d in sorted(docs, key=lambda d: d.url)]
    (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = task.model_dump(mode="json", exclude={"origin"}) | {"corpus": name}
    (out / f"{task.id}.json").write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"wrote {out / name} ({len(docs)} pages from {len(ids)} runs) and {out / (task.id + '.json')}")


@corpus_app.command("fetch")
def fetch(
    task: str = typer.Argument(..., help="the task: an id, or a task file"),
    db: Optional[str] = DbOption,
) -> None:
    """Fetch the pages the task's ground truth cites (its sources / source_urls) into the recorded
    web, as a run of the task that is never scored (online; public addresses only)."""
    from ..config import db_location, get_settings
    from ..runner.cited_web import fetch_cited
    from ..store import StoreOpenError, open_db
    from ..tasks import TaskLoadError
    from ._resolve import TaskArgError, resolve_tasks

    settings = get_settings() if db is None else get_settings().model_copy(update={"db": db_location(db)})
    try:
        the_task = resolve_tasks([task], settings)[0]
    except (TaskArgError, TaskLoadError) as exc:
        fail(one_line(exc))
    if not the_task.cited_urls():
        fail(f"{the_task.id}: the task cites no web address (its sources, or source_urls in an official record)")
    try:
        store = open_db(settings.db)
    except (StoreOpenError, OSError) as exc:
        fail(one_line(exc))
    got = fetch_cited(the_task, settings, store)
    for url, why in got.failed:
        typer.echo(f"  not fetched: {url}: {why}")
    typer.echo(f"fetched {got.fetched} of {got.asked} cited pages of {the_task.id} into run {got.run_id} ({db_shown(settings.db)})")
