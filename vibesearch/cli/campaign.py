"""CLI commands: the ``campaign`` group (labelling campaigns: create, list, status, adjudicate, export).

Items are numbered from 1 here as in every view (``#1`` is the first ground-truth or predicted
triple); the JSON of ``status`` keeps the stored 0-based ``index`` beside that ``number``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ._common import DbOption, JsonOption, console, fail, open_store, person, print_json

campaign_app = typer.Typer(help="Labelling campaigns: runs, annotators, sides, overlap; queue, progress, adjudication.",
                           no_args_is_help=True)


@campaign_app.command("create")
def campaign_create(
    name: str = typer.Argument(..., help="The campaign's name"),
    runs: Optional[str] = typer.Option(None, "--runs", help="Run ids, comma-separated (in queue order)"),
    filters: list[str] = typer.Option([], "--filter", help="key=value (task, subset, language, agent, agent_model, status); repeat to narrow"),
    annotators: list[str] = typer.Option([], "--annotator", help="A person who labels (repeat for each)"),
    sides: str = typer.Option("coverage,validity", "--sides", help="coverage, validity or both (comma-separated)"),
    overlap: int = typer.Option(2, "--overlap", help="How many people label each item (k)"),
    blind: bool = typer.Option(True, "--blind/--no-blind",
                               help="Blind (default): annotators see no judge verdict, agent or score before labelling an item; "
                                    "--no-blind: a judge review, the judge's verdict shown on the card"),
    db: Optional[str] = DbOption,
) -> None:
    """Make a campaign. The runs are fixed now (a filter picks the finished runs with a graph)."""
    from ..labels.campaigns import CampaignError, blind_words, create_campaign, parse_filters

    annotators = [person("--annotator", a) for a in annotators]  # " ann" and "ann" are one person
    store = open_store(db)
    try:
        row = create_campaign(
            store, name, annotators=annotators, sides=[s for s in sides.split(",") if s.strip()], overlap=overlap,
            runs=runs.split(",") if runs is not None else None,
            filters=parse_filters(filters) if filters else None, blind=blind,
        )
    except CampaignError as exc:
        fail(str(exc))
    console.print(f"campaign {row.name}: {len(row.run_ids())} runs, sides {', '.join(row.sides())}, "
                  f"annotators {', '.join(row.annotators())}, overlap {row.overlap}, {blind_words(row)}",
                  highlight=False, soft_wrap=True, markup=False)


@campaign_app.command("list")
def campaign_list(as_json: bool = JsonOption, db: Optional[str] = DbOption) -> None:
    """Every campaign: its runs, sides, overlap, annotators and whether it is blind."""
    from ..labels.campaigns import blind_words

    store = open_store(db, writes=False)
    camps = store.campaigns()
    rows = [{"campaign": c.name, "blind": c.blind, "runs": len(c.run_ids()), "sides": c.sides(), "overlap": c.overlap,
             "annotators": c.annotators(), "created_by": c.created_by,
             "created_at": c.created_at.isoformat() if c.created_at else ""} for c in camps]
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print("no campaign yet (make one with `vibesearch campaign create`)", highlight=False, markup=False)
        return
    table = Table(title="Campaigns")
    for col_name in ("campaign", "blind", "runs", "sides", "k", "annotators"):
        table.add_column(col_name, no_wrap=col_name in ("blind", "sides"))
    for c in camps:  # names as Text: a bracket in one is not markup
        table.add_row(Text(c.name), blind_words(c), str(len(c.run_ids())), ", ".join(c.sides()), str(c.overlap), Text(", ".join(c.annotators())))
    console.print(table)


@campaign_app.command("status")
def campaign_status(name: str = typer.Argument(...), as_json: bool = JsonOption, db: Optional[str] = DbOption) -> None:
    """Progress overall and per annotator, the disagreements waiting for a third person, and the
    items resolved so far (with how many times each resolution was replaced)."""
    from ..labels.campaigns import CampaignError, blind_words, get_campaign, item_labels, progress, replaced_note

    store = open_store(db, writes=False)
    try:
        camp = get_campaign(store, name)
    except CampaignError as exc:
        fail(str(exc))
    prog = progress(store, camp)
    entries = item_labels(store, camp)
    open_items = [e for e in entries if e.disagree and e.adjudication is None]
    resolved = [e for e in entries if e.adjudication is not None]
    pending = [{"run_id": e.item.run_id, "side": e.item.side, "index": e.item.index, "number": e.item.index + 1, "labels": e.labels}
               for e in open_items]
    if as_json:
        adjudicated = [{"run_id": e.item.run_id, "side": e.item.side, "index": e.item.index, "number": e.item.index + 1,
                        "label": e.adjudication.label, "adjudicator": e.adjudication.adjudicator, "replaced": e.replaced}
                       for e in resolved if e.adjudication is not None]
        print_json({**prog, "pending": pending, "adjudicated": adjudicated})
        return
    console.print(f"campaign {camp.name} ({blind_words(camp)}): {prog['runs']} runs · {prog['items']} items · overlap {prog['overlap']} · "
                  f"{prog['items_done']}/{prog['items']} items done · {prog['labels']}/{prog['labels_needed']} labels",
                  highlight=False, soft_wrap=True, markup=False)
    table = Table(title="Per annotator")
    for col_name in ("annotator", "labelled", "left in queue"):
        table.add_column(col_name)
    for who, row in prog["annotators"].items():
        table.add_row(who, str(row["labelled"]), str(row["queue"]))
    console.print(table)
    console.print(f"disagreements: {prog['disagreements']} ({prog['disagreements_pending']} waiting for adjudication)", highlight=False, soft_wrap=True)
    for e in open_items:
        said = ", ".join(f"{who}={'yes' if v else 'no'}" for who, v in sorted(e.labels.items()))
        console.print(f"  {e.item.run_id} {e.item.side} #{e.item.index + 1}: {said}", highlight=False, soft_wrap=True)
    if open_items:
        console.print("resolve one with: vibesearch campaign adjudicate NAME RUN SIDE NUMBER --by WHO --label yes|no",
                      highlight=False, soft_wrap=True)
    if resolved:
        console.print(f"adjudicated: {len(resolved)} ({sum(1 for e in resolved if e.replaced)} of them replaced at least once)",
                      highlight=False, soft_wrap=True)
    for e in resolved:
        adj = e.adjudication
        if adj is None:
            continue
        note = replaced_note(e) or "never replaced"
        console.print(f"  {e.item.run_id} {e.item.side} #{e.item.index + 1}: {'yes' if adj.label else 'no'} by {adj.adjudicator}, {note}",
                      highlight=False, soft_wrap=True, markup=False)


@campaign_app.command("adjudicate")
def campaign_adjudicate(
    name: str = typer.Argument(..., help="The campaign's name"),
    run_id: str = typer.Argument(..., help="The run the item belongs to"),
    side: str = typer.Argument(..., help="coverage (a ground-truth triple) or validity (a predicted triple)"),
    number: int = typer.Argument(..., help="The item's number, from 1, as `campaign status` shows it"),
    by: str = typer.Option(..., "--by", help="Who resolves it (someone who did not label the item)"),
    label: str = typer.Option(..., "--label", help="yes (covered / valid) or no"),
    comment: str = typer.Option("", "--comment", help="Why (kept with the adjudication)"),
    db: Optional[str] = DbOption,
) -> None:
    """Resolve a disagreement: the adjudicator's label becomes the item's final label."""
    from ..labels.campaigns import SIDES, CampaignError, Item, adjudicate, get_campaign

    if side not in SIDES:
        fail(f"side must be coverage or validity, got {side!r}")
    answer = {"yes": True, "y": True, "true": True, "no": False, "n": False, "false": False}.get(label.strip().lower())
    if answer is None:
        fail(f"--label must be yes or no, got {label!r}")
    if number < 1:
        fail(f"the item number counts from 1, got {number}")
    by = person("--by", by)
    store = open_store(db)
    try:
        camp = get_campaign(store, name)
        row = adjudicate(store, camp, Item(run_id, side, number - 1), by, answer, comment)
    except CampaignError as exc:
        fail(str(exc))
    console.print(f"resolved {side} #{number} of run {run_id}: {'yes' if row.label else 'no'}, by {row.adjudicator}",
                  highlight=False, soft_wrap=True, markup=False)
    history = store.adjudication_history(run_id, side, number - 1)
    if history:
        n = len(history)
        console.print(f"it replaces the resolution by {history[-1].adjudicator}; this item's resolution was replaced {n} "
                      f"time{'s' if n > 1 else ''} (the earlier ones are kept)", highlight=False, soft_wrap=True, markup=False)


@campaign_app.command("export")
def campaign_export(name: str = typer.Argument(...), out: Path = typer.Argument(..., help="A .jsonl or .csv file"),
                    db: Optional[str] = DbOption) -> None:
    """Write the campaign's labels (triple text, annotator, adjudication, final label, replaced adjudications)."""
    from ..labels.campaign_export import export_campaign
    from ..labels.campaigns import CampaignError, get_campaign

    store = open_store(db, writes=False)
    try:
        n = export_campaign(store, get_campaign(store, name), out)
    except CampaignError as exc:
        fail(str(exc))
    console.print(f"wrote {n} labels to {out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(campaign_app, name="campaign")
