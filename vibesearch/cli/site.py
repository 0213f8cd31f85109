"""CLI command group ``site``: a static site of the stored runs, and its check.

    vibesearch site build OUT/ [--db …] [--runs FILTER] [--campaign NAME] [--study NAME | --include-studies] [--judge J] [--app-url URL]
    vibesearch site verify OUT/ [--expect SHA256]

``build`` writes the leaderboard, one page per run (with a replay) and the results bundle
(results.json, per-sample files, events, tasks, SHA256SUMS) into OUT/; it publishes only the runs
named, a study's plays only with ``--study`` or ``--include-studies`` (a blind study's agent
never). ``verify`` recomputes every number from the bundled data, renders every page again and
compares it byte for byte, and checks every file's sha256: exit 0 when all match, else exit 1 and
one line per problem naming the file (and the number). It prints the sha256 of SHA256SUMS, which
proves the site is the one published only against a copy published elsewhere (``--expect``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from ._common import DbOption, JsonOption, console, fail, open_store, print_json

site_app = typer.Typer(help="A static site of the stored runs (leaderboard, run pages, results bundle) and its check.",
                       no_args_is_help=True)


@site_app.command("build")
def build_command(
    out: Path = typer.Argument(..., help="Folder to write the site to (replaced whole once the new site is written)"),
    runs: Optional[list[str]] = typer.Option(
        None, "--runs", help="Only these runs: run ids and/or key=value filters of `report --where` (subset, language, agent, model, user, simulator, profile, task), comma-separated or repeated"
    ),
    campaign: Optional[str] = typer.Option(None, "--campaign", help="Only the runs of this labelling campaign"),
    study: Optional[str] = typer.Option(None, "--study", help="Only the plays of this study (study plays are left out otherwise)"),
    include_studies: bool = typer.Option(False, "--include-studies", help="Publish the plays of every study too (a blind study's agent stays hidden)"),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose scores (default: the judge with the most scores)"),
    app_url: Optional[str] = typer.Option(None, "--app-url", help="Add 'open in the live app' links to this http(s) address"),
    with_web: bool = typer.Option(False, "--with-web", help="Publish the text of every page the runs recorded (web/<sha256>.txt); "
                                  "check the pages' rights first (docs/site.md)"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Build a self-contained static site (opens from file://, fetches nothing) of the runs named."""
    from ..site import SiteInputError, SiteOutputError, build_site
    from ..site import safe_href
    from ..site.bundle import SUMS, sha256_file

    if app_url is not None and safe_href(app_url) is None:
        fail(f"--app-url {app_url!r}: give an http:// or https:// address")
    try:
        results = build_site(open_store(db, writes=False), out, judge=judge, runs=runs, campaign=campaign, study=study,
                             include_studies=include_studies, app_url=app_url, with_web=with_web)
    except (SiteInputError, SiteOutputError) as exc:
        fail(str(exc))
    n_files = sum(1 for p in out.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    digest = sha256_file(out / SUMS)
    if as_json:
        print_json({"out": str(out), "runs": results["n_runs"], "files": n_files, "bytes": size, "judge": results["judge"],
                    "sums_sha256": digest})
        return
    console.print(f"{out}: {results['n_runs']} runs, {n_files} files, {size / 1e6:.2f} MB · judge {results['judge_label']} · "
                  f"open {out / 'index.html'}", highlight=False, markup=False)
    console.print(f"SHA256SUMS sha256 {digest}: publish it apart from the site; `vibesearch site verify DIR --expect {digest}` "
                  "checks a copy against it", highlight=False, markup=False, soft_wrap=True)


@site_app.command("verify")
def verify_command(
    out: Path = typer.Argument(..., help="A folder written by `vibesearch site build`"),
    expect: Optional[str] = typer.Option(None, "--expect", help="The sha256 of SHA256SUMS as published with the site: fail when it differs"),
) -> None:
    """Recompute every number of the site from its bundled data, render every page again and
    compare it byte for byte, check every file's sha256; print the sha256 of SHA256SUMS."""
    import re

    from ..site import verify_site
    from ._common import err_console, printable

    if expect is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", expect.strip()):
        fail(f"--expect {expect!r}: give the sha256 of SHA256SUMS (64 hex digits)")
    check = verify_site(out, expect=expect)
    if not check.ok:
        for line in check.problems[:-1]:  # one line per problem; the last one through fail (exit 1)
            err_console.print(f"[red]error:[/red] {escape(printable(line))}", highlight=False, soft_wrap=True)
        fail(check.problems[-1])
    console.print(check.summary, highlight=False, markup=False, soft_wrap=True)
    console.print(f"SHA256SUMS sha256 {check.sums_sha256}", highlight=False, markup=False, soft_wrap=True)
    if expect is not None:
        console.print("It is the digest --expect gives: these are the files that were published with it.",
                      highlight=False, markup=False, soft_wrap=True)
    else:
        console.print("SHA256SUMS proves only that the files agree with each other (whoever changes a file can write it "
                      "anew): publish this digest somewhere else, and check a copy with `vibesearch site verify DIR --expect "
                      "<digest>`.", highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.add_typer(site_app, name="site")
