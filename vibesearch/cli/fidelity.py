"""``vibesearch fidelity``: how far the user simulator is from the people who played beside it.

    vibesearch fidelity [--filter task=…|subset=…|language=…|simulator=…] [--since DATE] [--until DATE]
                        [--judge NAME] [--json] [--csv DISAGREEMENTS.csv] [--db DB]

The measures and how to read their intervals: docs/fidelity.md.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.table import Table

from ._common import DbOption, JsonOption, console, fail, key_values, open_store, print_json


def _when(option: str, value: Optional[str]) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        fail(f"{option} {value!r}: give a date as YYYY-MM-DD (or an ISO date and time)")
    return moment.replace(tzinfo=None) if moment.tzinfo is None else moment.astimezone(timezone.utc).replace(tzinfo=None)


def _pct(entry: dict[str, Any]) -> str:
    from ..labels.fidelity import rate_text

    return rate_text(entry) if entry.get("rate") is None else f"{rate_text(entry)} (n={entry['n']})"


def _num(value: Any, digits: int = 1) -> str:
    from ..labels.fidelity import number_text

    return number_text(value, digits)


def fidelity_command(
    filters: List[str] = typer.Option(None, "--filter", help="key=value: task, subset, language, simulator (repeat)"),
    since: Optional[str] = typer.Option(None, "--since", help="runs started on or after this date"),
    until: Optional[str] = typer.Option(None, "--until", help="runs started before this date"),
    judge: Optional[str] = typer.Option(None, "--judge", help="whose scores the outcome gap compares (default: each run's newest)"),
    csv_out: Optional[Path] = typer.Option(None, "--csv", help="write the disagreeing turns to this CSV file"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Person vs simulator: decision agreement, pace, outcome gap and style, with 95% intervals."""
    from .._files import csv_safe, write_text_atomic
    from ..labels.fidelity import DISAGREEMENT_COLUMNS, FidelityError, fidelity_report

    wanted = key_values("--filter", filters)
    start, end = _when("--since", since), _when("--until", until)
    if csv_out is not None and (csv_out.is_dir() or csv_out.suffix.lower() != ".csv"):
        fail(f"--csv {csv_out}: give a file name ending in .csv")
    store = open_store(db, writes=False)
    try:
        report = fidelity_report(store, wanted, since=start, until=end, judge=judge)
    except FidelityError as exc:
        fail(str(exc))
    if csv_out is not None:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(DISAGREEMENT_COLUMNS), lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for sim in report["simulators"]:
            for row in sim["disagreements"]:
                writer.writerow({k: csv_safe("" if row.get(k) is None else str(row.get(k))) for k in DISAGREEMENT_COLUMNS})
        try:
            write_text_atomic(csv_out, buf.getvalue())
        except OSError as exc:
            fail(f"--csv {csv_out}: cannot write it: {exc.strerror or exc}")
    if as_json:
        print_json(report)
        return
    for sim in report["simulators"]:
        _print(sim)
    if report["left_out"]:
        console.print("left out: " + ", ".join(f"{n} {why}" for why, n in sorted(report["left_out"].items())), highlight=False)


def _print(sim: dict[str, Any]) -> None:
    console.print(
        f"[bold]simulator {sim['simulator']}[/bold]: {sim['people_runs']} runs played by people, "
        f"{sim['simulator_runs']} by the simulator on the same tasks; decisions agree {_pct(sim['agreement'])}",
        highlight=False,
    )
    table = Table("by", "group", "agreement [95% CI]")
    for key, title in (("agreement_by_trigger", "trigger"), ("agreement_by_stage", "next_stage"), ("agreement_by_reply_kind", "person_kind")):
        for row in sim[key]:
            table.add_row(title.replace("_", " "), str(row[title] if row[title] is not None else "all disclosed"), _pct(row))
    console.print(table)
    confusion = Table("person \\ shadow", *sim["confusion"].keys())
    for person, row in sim["confusion"].items():
        confusion.add_row(person, *(str(n) for n in row.values()))
    console.print(confusion)
    pace = Table("pace", "person (mean, median)", "simulator (mean, median)")
    for name in ("turns_to_end", "stages_reached"):
        p, s = sim["pace"]["person"][name], sim["pace"]["simulator"][name]
        pace.add_row(name.replace("_", " "), f"{_num(p['mean'])}, {_num(p['median'])}", f"{_num(s['mean'])}, {_num(s['median'])}")
    console.print(pace)
    for row in sim["outcome_gap"]:
        f1, st = row["f1"], row["stages_reached"]
        ci = f1["ci"]
        console.print(
            f"{row['agent']}: F1 person − simulator {_num(f1['person_minus_simulator'], 3)}"
            f"{f' [{ci[0]:.3f}, {ci[1]:.3f}]' if ci else ''} over {f1['tasks']} task(s); stages reached {_num(st['person_minus_simulator'], 2)}",
            highlight=False,
        )
    style = Table("style", "person", "shadow", "simulator")
    for name in ("asks_back", "pushes_back", "off_topic"):
        style.add_row(name.replace("_", " "), *(_pct(sim["style"][side][name]) for side in ("person", "shadow", "simulator")))
    style.add_row("words per reply", *(_num(sim["style"][side]["words_per_reply"]["mean"]) for side in ("person", "shadow", "simulator")))
    console.print(style)
    console.print(f"{len(sim['disagreements'])} turn(s) where the two decided differently (--csv writes them out)", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("fidelity")(fidelity_command)
