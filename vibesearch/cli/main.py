"""The ``vibesearch`` command. Each command group lives in its own module and registers itself."""

from __future__ import annotations

import typer

from . import agent, run, score, serve, table, tasks

app = typer.Typer(
    name="vibesearch",
    help="Interactive evaluator for VibeSearchBench search agents (runs offline by default).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

for module in (tasks, agent, run, score, table, serve):
    module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
