"""CLI command group ``results``: scored results in other tools' formats.

    vibesearch results export --official OUT/   # the official grader's result folder

Only scores computed under the official profile are exported (score runs with
``vibesearch score --protocol official`` first). One configuration (agent, models, user, prompt
source) is one official experiment: with one, its files go straight into OUT/; with several, each
gets a sub-folder named after it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import typer

from ._common import DbOption, JsonOption, console, fail, open_store, print_json

results_app = typer.Typer(help="Scored results in other tools' formats.", no_args_is_help=True)


def folder_name(config: str, profile: str) -> str:
    """A file-system-safe folder name for one configuration and profile."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{config} {profile}").strip("_")
    return slug[:120] or "results"


@results_app.command("export")
def export_command(
    official: Path = typer.Option(..., "--official", help="Folder to write the official grader's result files to"),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose scores (default: the judge with the most official-profile scores)"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Write official-profile scores as the official grader's output: <qid>_sample<i>.json,
    summary.json (avg@N_* / best@N_*, num_queries, num_samples), item_ratings.json and
    per_query_scores.json. Runs a person cancelled are left out and counted in the summary."""
    from ..scoring.aggregate import collect_runs, official_samples, official_summary, profile_groups
    from ..scoring.official_export import write_official_results

    records, used = collect_runs(open_store(db, writes=False), judge=judge, protocol="official")
    groups = {key: recs for key, recs in profile_groups(records).items() if official_samples(recs)}
    if not groups:
        fail("no run is scored under the official profile" + (f" by {used}" if judge else "")
             + ": score runs with `vibesearch score --protocol official --judge MODEL` first")
    written: list[dict[str, Any]] = []
    for (config, _protocol, source), recs in groups.items():
        label = recs[0].profile
        out = official if len(groups) == 1 else official / folder_name(config, label)
        summary = official_summary(recs)
        files = write_official_results(out, [s for _, s in official_samples(recs)], summary, protocol="official", prompt_source=source)
        written.append({"config": config, "profile": label, "judge": used, "folder": str(out), "files": len(files),
                        "num_queries": summary.num_queries, "num_samples": summary.n, "left_out_cancelled": len(summary.left_out)})
    if as_json:
        print_json(written)
        return
    for w in written:
        console.print(
            f"{w['folder']}: {w['files']} files · {w['config']} · {w['profile']} · judge {w['judge']} · "
            f"{w['num_queries']} tasks, N = {w['num_samples']}"
            + (f" · {w['left_out_cancelled']} cancelled run(s) left out" if w["left_out_cancelled"] else ""),
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.add_typer(results_app, name="results")
