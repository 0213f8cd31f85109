"""Options and helpers shared by the command modules."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, NoReturn, Optional, TypeVar

import typer
from rich.console import Console

from .._shown import db_shown as db_shown  # re-exported: the commands name a database this way
from .._shown import one_line as one_line

console = Console()
err_console = Console(stderr=True)

DbOption = typer.Option(None, "--db", help="SQLite database file or PostgreSQL URL (default: VIBESEARCH_DB or ./vibesearch.db)")
JsonOption = typer.Option(False, "--json", help="Print machine-readable JSON instead of tables")


def open_store(db: Optional[str], *, writes: bool = True):
    """The database for a command. A damaged or foreign file is refused; a read-only file is
    opened for a command that only reads (``writes=False``) and refused for one that writes."""
    from ..store import SchemaError, StoreOpenError, open_db

    try:
        return open_db(db, writes=writes)
    except (StoreOpenError, SchemaError) as exc:
        fail(str(exc))


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


# control characters and the invisible marks that reorder or hide text on a terminal (bidi
# overrides and isolates, zero-width marks): an id or field name from a file may carry them
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff]")


def printable(text: str) -> str:
    """``text`` with what would change how a terminal shows it made visible as ``\\uXXXX``."""
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def fail(message: str, code: int = 1) -> NoReturn:
    from rich.markup import escape

    # one line whatever the terminal width; brackets in paths/field names are not markup
    err_console.print(f"[red]error:[/red] {escape(printable(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def person(option: str, value: str) -> str:
    """A person's name given to ``option`` in its one stored form (``_names.annotator_name``);
    one line, exit 1, when it cannot be a name."""
    from .._names import PersonNameError, annotator_name

    try:
        return annotator_name(value)
    except PersonNameError as exc:
        fail(f"{option}: {exc}")


def key_values(option: str, pairs: list[str] | None) -> dict[str, str]:
    """``key=value`` options as a dict; a pair without ``=``, key or value is one line, exit 1."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            fail(f"{option} {pair!r}: write it as key=value")
        out[key.strip()] = value.strip()
    return out


Choice = TypeVar("Choice", bound=str)


def one_of(option: str, value: str, choices: tuple[Choice, ...]) -> Choice:
    """``value`` as one of ``choices`` (typed as their literal type), or the one-line error naming them."""
    for choice in choices:
        if value == choice:
            return choice
    names = ", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else choices[0]
    fail(f"{option} must be {names}, not {value!r}")


def model_strings(ctx: Any, param: Any, value: Any) -> Any:
    """An option naming a model to call (``--model``, ``--simulator-model``, ``--shadow-model``,
    ``--judge``) holds litellm model strings by the one rule (``_model_names``), or the offline
    word of its kind ('offline' judge, 'rules' shadow): ``openai/gpt-4o-mini@127.0.0.1``, a URL or
    a padded name is a usage error naming the option, before anything runs."""
    from typer._click.exceptions import BadParameter

    from .._model_names import model_string_problem
    from ..judges.registry import judge_for
    from ..users.registry import RULES_SHADOW

    for model in value if isinstance(value, (list, tuple)) else [value]:
        if model is None or (param.name == "judge" and not judge_for(model).needs_model) or (param.name == "shadow_model" and model == RULES_SHADOW):
            continue
        problem = model_string_problem(model)
        if problem:
            raise BadParameter(f"{model[:80]!r} {problem}", ctx=ctx, param=param)
    return value
