"""CLI command group ``results``: scored results in other tools' formats.

    vibesearch results export --official OUT/ [--num-samples N]   # the official grader's result folder

Only scores computed under the official profile are exported (score runs with
``vibesearch score --protocol official`` first). One configuration (agent, models, user, prompt
source) is one official experiment: with one, its files go straight into OUT/; with several, each
gets a sub-folder named after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import DbOption, JsonOption, console, fail, open_store, print_json

results_app = typer.Typer(help="Scored results in other tools' formats.", no_args_is_help=True)


@results_app.command("export")
def export_command(
    official: Path = typer.Option(..., "--official", help="Folder to write the official grader's result files to"),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose scores (default: the judge with the most official-profile scores)"),
    num_samples: Optional[int] = typer.Option(
        None, "--num-samples", help="The official --num-samples N: pad every task to N samples with 0 samples (a cancelled or missing run is one); refused when a task has more"
    ),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Write official-profile scores as the official grader's output: <qid>_sample<i>.json,
    summary.json (avg@N_* / best@N_*, num_queries, num_samples), item_ratings.json and
    per_query_scores.json. Runs a person cancelled are left out and counted in the summary; each
    task is padded to N samples with 0 samples, as the official run does (N: --num-samples, else the
    most samples of any task of the configuration)."""
    from ..scoring.aggregate import SampleCountError, collect_runs, official_sample_results, official_samples, official_summary, profile_groups
    from .._files import OutputFileError, StagedFolder
    from ..labels.official_export import folder_name, stage_official_results

    if num_samples is not None and num_samples < 1:
        fail("--num-samples must be at least 1")
    records, used = collect_runs(open_store(db, writes=False), judge=judge, protocol="official")
    groups = {key: recs for key, recs in profile_groups(records).items() if official_samples(recs)}
    if not groups:
        fail("no run is scored under the official profile" + (f" by {used}" if judge else "")
             + ": score runs with `vibesearch score --protocol official --judge MODEL` first")
    planned = []
    for (config, _protocol, source), recs in groups.items():
        try:  # every configuration is checked before any file is written
            planned.append((config, source, recs, official_summary(recs, num_samples), official_sample_results(recs, num_samples)))
        except SampleCountError as exc:
            fail(str(exc))
    written: list[dict[str, Any]] = []
    try:
        with StagedFolder(official) as folder:  # every experiment's files land together or none do
            for config, source, recs, summary, results in planned:
                label = recs[0].profile
                sub = "" if len(groups) == 1 else folder_name(config, label)
                files = stage_official_results(folder, sub, results, summary, protocol="official", prompt_source=source, num_samples=num_samples)
                written.append({"config": config, "profile": label, "judge": used, "folder": str(official / sub if sub else official),
                                "files": len(files), "num_queries": summary.num_queries, "num_samples": summary.n,
                                "left_out_cancelled": len(summary.left_out)}
                               | {"padded": dict(summary.padded)})
    except OutputFileError as exc:
        fail(str(exc))
    if as_json:
        print_json(written)
        return
    for w in written:
        console.print(
            f"{w['folder']}: {w['files']} files · {w['config']} · {w['profile']} · judge {w['judge']} · "
            f"{w['num_queries']} tasks, N = {w['num_samples']}"
            + (f" · {w['left_out_cancelled']} cancelled run(s) left out" if w["left_out_cancelled"] else "")
            + (f" · padded with 0 samples: {padded_text(w['padded'])}" if w.get("padded") else ""),
            highlight=False,
        )


def padded_text(padded: dict[str, int]) -> str:
    """"t1: 1, t2: 3": how many 0 samples each task was padded with."""
    return ", ".join(f"{task}: {n}" for task, n in padded.items())


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.add_typer(results_app, name="results")
