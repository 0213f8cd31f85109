"""``vibesearch analyse``: where each ground-truth fact was lost (the funnel of every triple:
not asked, not seen, not written, judged not covered, covered) per run, configuration, task,
stage and language, and the paper's section-5 measures (``results.analysis``; docs/analysis.md).

    vibesearch analyse [--where key=value …] [--judge J] [--json [--triples]] [--csv FILE]
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ._common import DbOption, JsonOption, err_console, fail, open_store, print_json


def analyse_command(
    where: Optional[List[str]] = typer.Option(
        None, "--where", help="Only runs with key=value (subset, language, agent, model, user, simulator, profile, task); repeat to narrow, a key twice takes either value"
    ),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose verdicts (default: the judge with the most scored runs)"),
    protocol: Optional[str] = typer.Option(None, "--protocol", help="Only scores of this profile: official or vibesearch (default: both)"),
    csv_out: Optional[Path] = typer.Option(None, "--csv", help="Also write every table to this CSV file (one section per table)"),
    triples: bool = typer.Option(False, "--triples", help="With --json: each run lists every ground-truth triple with its bucket, when and the evidence"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """The funnel of every ground-truth triple — never asked for, never seen, never written,
    judged not covered, covered — as counts and shares with 95% bootstrap intervals, and the
    paper's section-5 measures (Comp.%, F1 by user turns, perfunctory and redirect rates, [DONE]
    reach, relation coverage, invalid-prediction types, tool calls, recall with a visit)."""
    from ..protocol import PROTOCOLS, as_profile
    from ..reports.funnel import analysis_csv, analysis_markdown
    from ..results.analysis import analyse
    from ..scoring.aggregate import WhereError, parse_where

    try:
        chosen = parse_where(where or [])
    except WhereError as exc:
        fail(str(exc))
    if protocol is not None and protocol not in PROTOCOLS:
        fail(f"--protocol must be {' or '.join(sorted(PROTOCOLS))}, not {protocol!r}")
    if triples and not as_json:
        fail("--triples goes with --json (the per-triple list is JSON only)")
    result = analyse(open_store(db, writes=False), judge=judge, protocol=as_profile(protocol) if protocol else None,
                     where=chosen, triples=triples)
    if csv_out is not None:
        from .._files import OutputFileError, write_output

        try:
            write_output(csv_out, analysis_csv(result))
        except OutputFileError as exc:
            fail(f"--csv {exc}")
        err_console.print(f"wrote {csv_out} ({result['n_analysed']} runs analysed, {result['judge_label']})", highlight=False, markup=False)
    if as_json:
        print_json(result)
        return
    typer.echo(f"judge: {result['judge_label']}\n")
    typer.echo(analysis_markdown(result))


def register(app: typer.Typer) -> None:
    app.command("analyse")(analyse_command)
