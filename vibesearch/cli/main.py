"""The ``vibesearch`` command. Each command group lives in its own module and registers itself."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from . import agent, analyse, campaign, compare, corpus, db, fidelity, openclaw, reextract, results, run, score, serve, site, table, tasks, votes, worker

if TYPE_CHECKING:
    # typer (>= 0.26) vendors click; the Context its groups receive has no public alias
    from typer._click.core import Context

# exceptions that already carry a message for the user (one line, naming the file, field or row)
USER_ERRORS = {
    "InputFileError", "StoreOpenError", "SchemaError", "TaskLoadError", "TaskNotFound", "TaskArgError",
    "ImportFileError", "LabelFileError", "CaseFileError", "RunNotFound", "OutputFileError",
}


def _passes_through(exc: Exception) -> bool:
    """typer's own exits, aborts and usage errors, which it reports itself. Its ClickException (the
    base of every usage error) is matched by name: typer >= 0.26 keeps it in the private, vendored
    ``typer._click``."""
    if isinstance(exc, (typer.Exit, typer.Abort, EOFError)):
        return True
    return any(cls.__name__ == "ClickException" for cls in type(exc).__mro__)


def describe_error(exc: BaseException) -> str:
    """One line for an exception no command turned into a message."""
    from ._common import one_line

    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & USER_ERRORS:
        return one_line(exc)
    if "ValidationError" in names and getattr(exc, "title", "") == "Settings":
        return _setting_error(exc)
    text = " ".join(str(exc).split())
    text = text if len(text) <= 300 else text[:300] + "…"
    return f"unexpected error ({type(exc).__name__}: {text}); set VIBESEARCH_DEBUG=1 to see the traceback"


def _setting_error(exc: Any) -> str:
    """A setting that does not validate, named as the variable that set it (its value is not
    repeated: it may be a key)."""
    from .._files import first_invalid

    field, message = first_invalid(exc)
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"invalid setting {field} (VIBESEARCH_{field.upper()}): {message.removeprefix('Value error, ')}{more}"


def _plain_number(ctx: Any, param: Any, value: Any) -> Any:
    """A number given to an option is finite and not negative: ``--budget-usd nan``, ``inf``,
    ``1e309`` or ``-1`` is a usage error naming the option, not a budget that never (or always)
    stops a run. (None, an option left out, passes.)"""
    import math

    from typer._click.exceptions import BadParameter

    for number in value if isinstance(value, (list, tuple)) else [value]:
        if isinstance(number, float) and not math.isfinite(number):
            raise BadParameter(f"{number} is not a finite number", ctx=ctx, param=param)
        if isinstance(number, (int, float)) and not isinstance(number, bool) and number < 0:
            raise BadParameter(f"{number} is negative; give a number of 0 or more", ctx=ctx, param=param)
    return value


def _guard_numbers(command: Any) -> None:
    """Put ``_plain_number`` in front of every whole-number and float option of ``command`` and
    of the commands under it (arguments keep their own checks)."""
    for param in getattr(command, "params", []):
        annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if getattr(param, "param_type_name", "") != "option" or annotation not in (int, float):
            continue
        if getattr(param, "_vibesearch_numbers", False):
            continue  # already guarded
        own = param.callback

        def guarded(ctx: Any, p: Any, value: Any, _own: Any = own) -> Any:
            value = _plain_number(ctx, p, value)
            return _own(ctx, p, value) if _own is not None else value

        param.callback = guarded
        param._vibesearch_numbers = True
    for sub in getattr(command, "commands", {}).values():
        _guard_numbers(sub)


class EdgeGroup(TyperGroup):
    """The top of every command: an exception nothing deeper handled ends as one line ``error: …``
    and exit code 1 (``VIBESEARCH_DEBUG=1`` lets it through with its traceback). Every number
    given to an option must be finite and not negative (``_plain_number``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _guard_numbers(self)

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:  # noqa: BLE001 - this is the edge
            if _passes_through(exc) or os.environ.get("VIBESEARCH_DEBUG", "").strip().lower() in ("1", "true", "yes"):
                raise
            from ._common import fail

            fail(describe_error(exc))


app = typer.Typer(
    name="vibesearch",
    cls=EdgeGroup,
    help="Interactive evaluator for VibeSearchBench search agents (runs offline by default).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

for module in (tasks, agent, run, score, analyse, reextract, results, table, campaign, votes, fidelity, compare, corpus, db, serve, openclaw, worker, site):
    module.register(app)


def main() -> None:
    """Run the command; a usage error (an unknown option, a value of the wrong kind …) is one line
    ``error: …`` naming the option, exit code 1, like every other refusal."""
    import sys

    try:
        _run(sys)
    finally:
        _quick_exit()


def _quick_exit() -> None:
    """Spare the interpreter's teardown its last search for reference cycles over everything the
    command loaded: with litellm in memory (some 400,000 objects) that search alone kept the
    process alive for about a second after its work was done. Nothing else changes: threads are
    still joined, atexit handlers still run, the standard streams are still flushed; the
    collector is only told that what exists now needs no search (``_gc.settle``)."""
    from .._gc import settle

    settle()


def _run(sys: Any) -> None:
    try:
        code = app(standalone_mode=False)
    except Exception as exc:  # noqa: BLE001 - only click's own usage errors are turned into a line here
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "Abort" in names:  # Ctrl-C at a prompt
            sys.exit(130)
        if "ClickException" not in names:
            raise
        from ._common import err_console, printable

        fmt = getattr(exc, "format_message", None)
        message = " ".join(str(fmt() if callable(fmt) else exc).split())
        err_console.print(f"error: {printable(message)}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(1)
    except (KeyboardInterrupt, EOFError):
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
