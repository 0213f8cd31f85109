"""``vibesearch reextract``: ask stored runs for their graph again with the current triple request
(the official harness's ``scripts/re_extract_triples.py``; see ``agents.reextract``).

    vibesearch reextract RUN [RUN ...] | --all  [--model M] [--official-harness PATH] [--db DB]

Each new graph is stored beside the run's own (source ``reextraction``); ``vibesearch score`` then
grades the newest graph of a run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, List, Optional

import typer

from ._common import console, DbOption, err_console, fail, JsonOption, model_strings, one_line, open_store, print_json

HARNESS_HELP = "the triple request's source: your checkout of VibeBench/VibeSearchBench, parsed, never run (default: VIBESEARCH_OFFICIAL_HARNESS; unset: our own prompts)"


def reextract_command(
    run_ids: List[str] = typer.Argument(None, help="runs to ask again", show_default=False),
    all_runs: bool = typer.Option(False, "--all", help="every finished persona run"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model string (default: each run's own agent model)", callback=model_strings),
    official_harness: Optional[Path] = typer.Option(None, "--official-harness", help=HARNESS_HELP),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Ask each run's agent model again for its graph, over its stored conversation, with the
    current triple request and the sampling of the run's profile; store the answer as the run's
    newest graph."""
    from ..agents.reextract import NothingToReextract, reextract
    from ..config import get_settings
    from ..llm import LLMError
    from ..protocol import HarnessError, load_prompts, resolve_harness
    from ..scoring.profile import run_protocol
    from ..store import TaskSnapshotError

    settings = get_settings()
    try:
        prompts = load_prompts(resolve_harness(official_harness, settings))
    except HarnessError as exc:
        fail(one_line(exc))
    store = open_store(db)
    if all_runs:
        runs = [r for r in reversed(store.list_runs()) if r.status == "finished" and r.kind == "persona"]
    elif run_ids:
        runs = []
        for rid in run_ids:
            try:
                runs.append(store.get_run(rid))
            except KeyError:
                fail(f"no run {rid!r} in this database")
    else:
        fail("give run ids or --all")
    err_console.print(f"triple request: {prompts.source.announced()}", highlight=False)
    rows: list[dict[str, Any]] = []
    for run in runs:
        row: dict[str, Any] = {"run_id": run.id, "task_id": run.task_id}
        which = model or (run.run_config().agent.model if run.run_config() is not None else None) or run.agent_model
        if not which:
            row["skipped"] = "the run names no agent model: give --model"
            rows.append(row)
            continue
        try:
            graph = asyncio.run(reextract(run.task(), store.events(run.id), prompts, model=which, settings=settings,
                                          protocol=run_protocol(run)))
        except (NothingToReextract, TaskSnapshotError) as exc:
            row["skipped"] = str(exc)
        except LLMError as exc:
            row["error"] = str(exc)
        else:
            stored = store.add_graph(run.id, graph)
            row.update({"graph_id": stored.id, "model": which, "triples": len(graph.triples), "empty": not graph.raw_text})
        rows.append(row)
    if as_json:
        print_json(rows)
        return
    for row in rows:
        if "graph_id" in row:
            console.print(f"{row['run_id']}: {row['triples']} triples from {row['model']} (graph {row['graph_id']})", highlight=False)
        else:
            console.print(f"{row['run_id']}: {row.get('skipped') or row.get('error')}", highlight=False)
    if any("error" in r for r in rows):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("reextract")(reextract_command)
