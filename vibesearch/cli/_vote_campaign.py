"""CLI commands: ``votes campaign`` (vote campaigns: create, list, status; docs/votes.md)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ._common import DbOption, JsonOption, console, fail, open_store, print_json

vote_campaign_app = typer.Typer(help="Vote campaigns: pairs of runs balanced over configuration pairs, voters, overlap; progress.",
                                no_args_is_help=True)


def _say(text: str) -> None:
    console.print(text, highlight=False, markup=False, soft_wrap=True)


@vote_campaign_app.command("create")
def vote_campaign_create(
    name: str = typer.Argument(..., help="The vote campaign's name"),
    configs: list[str] = typer.Option([], "--configs", help="A configuration's label as the leaderboard writes it (repeat; none: every configuration)"),
    where: list[str] = typer.Option([], "--where", help="key=value over the runs (task, subset, language, agent, model, user, simulator); repeat to narrow"),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Task ids, comma-separated (default: every task)"),
    pairs: int = typer.Option(5, "--pairs-per-config-pair", help="Pairs for each two configurations"),
    overlap: int = typer.Option(1, "--overlap", help="How many people vote on each pair (k)"),
    annotators: str = typer.Option("", "--annotators", help="The voters, comma-separated"),
    attention: Optional[int] = typer.Option(None, "--attention", help="Attention items (default: one per ten pairs, when a run with an empty answer exists)"),
    seed: int = typer.Option(0, "--seed", help="Seed of the pair sampling"),
    db: Optional[str] = DbOption,
) -> None:
    """Make a vote campaign: pairs of finished runs of one task, the same number for every two
    configurations, attention items against empty answers; the pairs are fixed now."""
    from ..labels.vote_campaigns import VoteCampaignError, create_vote_campaign, parse_filter

    store = open_store(db)
    try:
        row = create_vote_campaign(
            store, name, annotators=[a for a in annotators.split(",") if a.strip()], overlap=overlap,
            pairs_per_config_pair=pairs, configs=configs or None, where=parse_filter(where),
            tasks=tasks.split(",") if tasks is not None else None, attention=attention, seed=seed,
        )
    except VoteCampaignError as exc:
        fail(str(exc))
    checks = sum(1 for it in row.items() if it.get("expect"))
    _say(f"vote campaign {row.name}: {len(row.items())} pairs ({checks} attention items), voters {', '.join(row.annotators())}, overlap {row.overlap}")


@vote_campaign_app.command("list")
def vote_campaign_list(as_json: bool = JsonOption, db: Optional[str] = DbOption) -> None:
    """Every vote campaign: its pairs, attention items, overlap and voters."""
    camps = open_store(db, writes=False).vote_campaigns()
    rows = [{"campaign": c.name, "pairs": len(c.items()), "attention_items": sum(1 for it in c.items() if it.get("expect")),
             "overlap": c.overlap, "annotators": c.annotators(), "created_by": c.created_by,
             "created_at": c.created_at.isoformat() if c.created_at else ""} for c in camps]
    if as_json:
        print_json(rows)
        return
    if not rows:
        _say("no vote campaign yet (make one with `vibesearch votes campaign create`)")
        return
    table = Table(title="Vote campaigns")
    for col_name in ("campaign", "pairs", "attention", "k", "voters"):
        table.add_column(col_name)
    for r in rows:
        table.add_row(Text(r["campaign"]), str(r["pairs"]), str(r["attention_items"]), str(r["overlap"]), Text(", ".join(r["annotators"])))
    console.print(table)


@vote_campaign_app.command("status")
def vote_campaign_status(name: str = typer.Argument(...), as_json: bool = JsonOption, db: Optional[str] = DbOption) -> None:
    """Progress overall and per voter."""
    from ..labels.vote_campaigns import VoteCampaignError, get_vote_campaign, progress

    store = open_store(db, writes=False)
    try:
        prog = progress(store, get_vote_campaign(store, name))
    except VoteCampaignError as exc:
        fail(str(exc))
    if as_json:
        print_json(prog)
        return
    _say(f"vote campaign {prog['campaign']}: {prog['items']} pairs ({prog['attention_items']} attention items) · overlap {prog['overlap']} · "
         f"{prog['items_done']}/{prog['items']} pairs done · {prog['votes']}/{prog['votes_needed']} votes")
    table = Table(title="Per voter")
    for col_name in ("voter", "voted", "left in queue"):
        table.add_column(col_name)
    for who, row in prog["annotators"].items():
        table.add_row(Text(who), str(row["voted"]), str(row["queue"]))
    console.print(table)
