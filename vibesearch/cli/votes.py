"""CLI commands: the ``votes`` group (pairwise preference votes between runs of a task: import,
export, report; docs/votes.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ._common import DbOption, console, fail, open_store

votes_app = typer.Typer(help="Pairwise preference votes between two runs of a task: import, export.",
                        no_args_is_help=True)


@votes_app.command("import")
def votes_import(file: Path = typer.Argument(..., help="A JSONL or CSV vote file (by its suffix)"), db: Optional[str] = DbOption) -> None:
    """Store every vote of FILE (run_a, run_b, winner a|b|tie|both_bad, voter, optional reason), all
    or none: a bad row is refused with its line and nothing is stored."""
    from ..labels.votes import VoteError
    from ..labels.votes_io import import_votes
    from ..store import VoteExists

    store = open_store(db)
    try:
        n = import_votes(store, file)
    except (VoteError, VoteExists) as exc:
        fail(str(exc))
    console.print(f"imported {n} votes from {file}", highlight=False, markup=False, soft_wrap=True)


@votes_app.command("export")
def votes_export(
    file: Optional[Path] = typer.Argument(None, help="Where to write (default: standard output)"),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl, csv or arena (Chatbot Arena's battles: model_a, model_b, winner)"),
    campaign: Optional[str] = typer.Option(None, "--campaign", help="Only the votes of this vote campaign"),
    db: Optional[str] = DbOption,
) -> None:
    """Write the stored votes as JSONL, CSV (spreadsheet-safe) or Arena battles, with each run's
    task and configuration label."""
    from .._files import OutputFileError, write_output
    from ..labels.votes_io import EXPORT_FORMATS, export_votes

    chosen = next((f for f in EXPORT_FORMATS if f == fmt), None)
    if chosen is None:
        fail(f"--format: {fmt!r} is not one of {', '.join(EXPORT_FORMATS)}")
    text = export_votes(open_store(db, writes=False), chosen, campaign=campaign)
    if file is None:
        sys.stdout.write(text)
        return
    try:
        write_output(file, text)
    except OutputFileError as exc:
        fail(str(exc))
    console.print(f"wrote the votes to {file}", highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(votes_app, name="votes")
