"""Options and helpers shared by the command modules."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)

DbOption = typer.Option(None, "--db", help="SQLite database file (default: VIBESEARCH_DB or ./vibesearch.db)")
JsonOption = typer.Option(False, "--json", help="Print machine-readable JSON instead of tables")


def open_store(db: Optional[Path]):
    from ..store import open_db

    return open_db(db)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def fail(message: str, code: int = 1) -> "typer.Exit":
    from rich.markup import escape

    # one line whatever the terminal width; brackets in paths/field names are not markup
    err_console.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
