"""CLI commands: the ``votes`` group (pairwise preference votes between runs of a task: import,
export, report; vote campaigns in ``_vote_campaign``; docs/votes.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table
from rich.text import Text

from ._common import DbOption, JsonOption, console, fail, open_store, print_json

votes_app = typer.Typer(help="Pairwise preference votes between two runs of a task: import, export, Bradley–Terry report.",
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


def _ci(ci: Any) -> str:
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "—"


def _share_ci(ci: Any) -> str:
    return f"[{ci[0]:.0%}, {ci[1]:.0%}]" if ci else "—"


def _num(x: Any, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


@votes_app.command("report")
def votes_report(
    where: list[str] = typer.Option([], "--where", help="key=value over both runs of a vote (subset, language, agent, model, user, simulator, profile, task); repeat to narrow"),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose scores the metric side reads (default: the judge with the most scores)"),
    resamples: int = typer.Option(1000, "--resamples", min=100, help="Bootstrap resamples of the votes"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Bradley–Terry ratings per configuration with 95% bootstrap intervals, the win matrix, the
    metric against the votes (p(prefer the higher-F1 run), Kendall τ with the Avg@N F1 ranking,
    which measure predicts the votes) and the votes' quality (attention, position bias, outliers)."""
    from ..labels.vote_report import vote_report
    from ..scoring.aggregate import WhereError, parse_where

    try:
        filters = parse_where(where)
    except WhereError as exc:
        fail(str(exc))
    report = vote_report(open_store(db, writes=False), where=filters, judge=judge, resamples=resamples)
    if as_json:
        print_json(report)
        return
    if not report["votes"]:
        console.print("no votes yet (import some with `vibesearch votes import FILE`)", highlight=False, markup=False)
        return
    table = Table(title=f"Preference (Bradley–Terry, {report['votes']} votes)")
    for name in ("configuration", "rating", "95% CI", "battles", "W", "L", "T"):
        table.add_column(name)
    for r in report["ratings"]:
        table.add_row(Text(r["label"]), f"{r['rating']:+.2f}", _ci(r["ci"]), str(r["battles"]), str(r["wins"]), str(r["losses"]), str(r["ties"]))
    console.print(table)
    for d in report["differences"]:
        console.print(f"{d['a']} over {d['b']}: {d['difference']:+.2f} (95% CI {_ci(d['ci'])})", highlight=False, markup=False, soft_wrap=True)
    mv = report["metric_vs_votes"]
    p = mv["p_prefer_higher_f1"]
    tau = mv["kendall_tau"]
    lines = [f"people prefer the higher-F1 run in {_num(p['share'], '.0%')} of {p['votes_with_f1_difference']} votes "
             f"(95% CI {_share_ci(p['share_ci'])}); logistic slope {_num(p['slope'])} {_ci(p['slope_ci'])} {p['note']}".rstrip(),
             f"Kendall τ (preference vs Avg@N F1): {_num(tau['tau'])} (95% CI {_ci(tau['ci'])}) {tau['note']}".rstrip(),
             "predictors (best first): " + ", ".join(f"{t['measure']} AUC {_num(t['auc'])} acc {_num(t['accuracy'])}" for t in mv["predictors"]),
             f"F1 and people disagree on {_num(mv['disagreements']['share'], '.0%')} of {mv['disagreements']['votes']} votes"]
    q = report["quality"]
    pb = q["position_bias"]
    lines += [f"attention checks: {q['attention']['failed']} failed of {q['attention']['checked']}",
              f"position bias: side A picked in {_num(pb['rate_a'], '.0%')} of {pb['decisive']} decisive votes (95% CI {_share_ci(pb['ci'])})",
              f"voter agreement (Krippendorff's α): {_num(q['voter_alpha'])}",
              "outliers: " + ("; ".join(f"{o['voter']} ({o['why']})" for o in q["outliers"]) or "none")]
    for line in lines:
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    from ._vote_campaign import vote_campaign_app

    votes_app.add_typer(vote_campaign_app, name="campaign")
    app.add_typer(votes_app, name="votes")
