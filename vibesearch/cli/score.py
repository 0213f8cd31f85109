"""CLI commands: ``score``, ``report``, ``import`` and the ``labels`` group."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Literal, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from ._agreement import MinAgreementOption, chosen_threshold
from ._agreement import agreement_table as _agreement_table
from ._common import console, DbOption, err_console, fail, JsonOption, model_strings, one_of, open_store, person, print_json, printable

labels_app = typer.Typer(help="Human labels of judge decisions: export, import, agreement, calibration.", no_args_is_help=True)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _settings(batch_size: int | None = None, concurrency: int | None = None):
    from ..config import get_settings

    update: dict[str, Any] = {}
    if batch_size is not None:
        if batch_size < 1:
            fail("--batch-size must be at least 1")
        update["judge_batch_size"] = batch_size
    if concurrency is not None:
        if concurrency < 1:
            fail("--concurrency must be at least 1")
        update["judge_concurrency"] = concurrency
    return get_settings().model_copy(update=update)


def score_command(
    run_ids: Optional[List[str]] = typer.Argument(None, help="Run ids to score"),
    all_runs: bool = typer.Option(False, "--all", help="Score every finished run not yet scored by the judge under its profile"),
    rescore: bool = typer.Option(False, "--rescore", help="With --all: score again the runs the judge already scored under the same profile"),
    judge: Optional[List[str]] = typer.Option(None, "--judge", help="'offline' or a litellm model string; repeat for several judges", callback=model_strings),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Ground-truth triples per judge call"),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="Judge calls in flight at once"),
    protocol: Optional[str] = typer.Option(
        None, "--protocol", help="Score under this profile: 'official' (the official grader's rules) or 'vibesearch' (default: each run's own profile)"
    ),
    official_harness: Optional[Path] = typer.Option(
        None, "--official-harness", help="Your checkout of the official harness: its judge prompt is used under the official profile (default: VIBESEARCH_OFFICIAL_HARNESS, else our own prompts)"
    ),
    original_graph: bool = typer.Option(
        False, "--original-graph", help="Grade each run's own extraction, not its newest re-extraction (`vibesearch reextract`)"
    ),
    repeat: int = typer.Option(
        1, "--repeat", help="Judge each graph K times with the judge's sampling and store every judgement (the judge's noise; the latest is the run's score). The offline judge is deterministic: judged once"
    ),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Judge runs' graphs against their ground truth and store P/R/F1 with every verdict.

    Each run is scored under its own profile unless --protocol says otherwise. Under the official
    profile the run's extraction answer is parsed strictly and judged by an LLM in the official
    layout (the offline judge is refused there); --batch-size does not apply to it. --repeat K
    stores K judgements of each graph as one repeat set: reports measure the judge's noise on them.

    A judge call that still fails after its attempts stores nothing for that run (none of its
    repeats): one line `error: run …: judge … failed after N attempts: <cause>` per run, the other
    runs are scored, exit 1. Under the official profile a failed batch is graded not covered (the
    official rule): the score is stored and a `warning:` line says how many batches failed."""
    from ..llm import LLMError
    from ..protocol import PROTOCOLS, PromptSet, as_profile, load_prompts, profile_named, profile_of, resolve_harness
    from ..scoring import NoGroundTruth, compute_metrics, score_run_repeated, stored_verdicts
    from ..judges.verdicts import majority_verdicts
    from ..judges.judge_failures import JudgeFailed, judge_gaps
    from ..scoring.noise_split import judge_is_deterministic, spread_of
    from ..scoring.profile import NotASample, OfficialJudgeRequired, run_protocol
    from ..judges.registry import judge_label
    from ..store import RunNotFound

    if repeat < 1:
        fail("--repeat must be at least 1")
    if repeat > 100:
        fail("--repeat must be at most 100 (each graph is judged that many times)")
    if protocol is not None and protocol not in PROTOCOLS:
        fail(f"--protocol must be {' or '.join(sorted(PROTOCOLS))}, not {protocol!r}")
    chosen = as_profile(protocol) if protocol is not None else None
    settings = _settings(batch_size, concurrency)
    judges = list(judge or []) or [settings.judge_model or "offline"]
    store = open_store(db)
    loaded: list[PromptSet] = []

    def prompts() -> PromptSet:  # read once, and only when an official score needs it
        if not loaded:
            loaded.append(load_prompts(resolve_harness(official_harness, settings)))
        return loaded[0]

    if official_harness is not None:
        prompts()  # a bad checkout is reported before anything is judged
    if all_runs:
        # finished runs; under the official profile failed ones too (each is a 0 sample)
        ids = [r.id for r in reversed(store.list_runs())
               if r.status == "finished" or (r.status == "failed" and profile_of(chosen or run_protocol(r)).failed_runs_are_samples)]
    elif run_ids:
        ids = list(run_ids)
    else:
        fail("give run ids or --all")
    if rescore and not all_runs:
        fail("--rescore goes with --all (runs named by id are always scored)")
    todo = {rid: list(judges) for rid in ids}
    already = 0
    if all_runs and not rescore:  # a run the same judge scored under the same profile is not judged again
        from ..scoring.profile import score_protocol

        done = {(sc.run_id, sc.judge, score_protocol(sc)) for sc in store.scores()}
        for run in store.list_runs():
            if run.id in todo:
                name = profile_of(chosen or run_protocol(run)).name
                todo[run.id] = [j for j in judges if (run.id, j, name) not in done]
                already += len(judges) - len(todo[run.id])
        ids = [rid for rid in ids if todo[rid]]
    results: list[dict[str, Any]] = []
    problems: list[str] = []
    warnings: list[str] = []  # stored scores some of whose judge batches failed (the official rule grades them not covered)
    skipped = 0
    # (drawn on a terminal only: elsewhere it would leave an empty line before the warnings and errors)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err_console, transient=True,
                  disable=not err_console.is_terminal) as progress:
        overall = progress.add_task("scoring runs", total=sum(len(todo[rid]) for rid in ids))
        for rid in ids:
            rows = []
            for j in todo.get(rid, judges):
                batches = progress.add_task(f"  {rid} · {judge_label(j)}", total=None)

                def on_batch(done: int, total: int, _t=batches) -> None:
                    progress.update(_t, completed=done, total=total)

                times = 1 if judge_is_deterministic(j) else repeat  # a deterministic judge's repeats would be equal
                try:
                    profile = profile_of(chosen or run_protocol(store.get_run(rid)))
                    # every judgement of a repeat set is made before any is stored: one that fails stores none
                    made = score_run_repeated(store, rid, times=times, judge=j, settings=settings, progress=on_batch,
                                              protocol=profile.name, prompts=prompts() if profile.official_grader else None,
                                              original=original_graph)
                    row = made[-1]
                except RunNotFound as exc:
                    problems.append(f"error: {exc}")
                    break
                except (NoGroundTruth, NotASample, OfficialJudgeRequired) as exc:
                    problems.append(f"skipped: {exc}")
                    skipped += 1
                    break
                except JudgeFailed as exc:  # nothing stored for this run and judge
                    problems.append(f"error: {exc}")
                    continue
                except LLMError as exc:
                    problems.append(f"error: run {rid}: {exc}")
                    continue
                except Exception as exc:  # noqa: BLE001 - one bad run must not stop the others
                    problems.append(f"error: run {rid}: {type(exc).__name__}: {exc}")
                    continue
                finally:
                    progress.remove_task(batches)
                    progress.advance(overall)
                rows.append(row)
                repeat_set = made[-1].repeat_set
                spread = spread_of([m.f1 for m in made])
                results += [{**_row_json(store, m), **({"judge_spread": spread} if repeat_set else {})} for m in made]
                if judge_gaps(row).failed:
                    warnings.append(f"warning: {judge_gaps(row).warning(rid)}")
            if len(rows) > 1 and all(r.n_gt == rows[0].n_gt and profile_named(r.protocol).combines_judges for r in rows):
                verdicts = majority_verdicts([stored_verdicts(store, r.id) for r in rows])
                m = compute_metrics(verdicts, rows[0].n_gt, rows[0].n_pred)
                results.append({**_row_json(store, rows[0]), "judge": "majority:" + "+".join(r.judge for r in rows),
                                "judge_label": f"majority of {len(rows)} judges", "score_id": None, **m.model_dump()})
    if as_json:
        print_json(results)
    else:
        _print_scores(results)
    for line in warnings + problems:  # each one line, whatever the terminal's width
        err_console.print(printable(line), highlight=False, soft_wrap=True, markup=False)
    if repeat > 1:
        _print_repeats(results, repeat, any(judge_is_deterministic(j) for j in judges))
    if already:
        pairs = "run" if len(judges) == 1 else "run and judge pair"
        err_console.print(f"skipped {already} {pairs}{'s' if already != 1 else ''} already scored by the same judge and profile "
                          "(--rescore scores them again)", highlight=False)
    # with --all, runs without ground truth are only skipped; anything else that failed is an error
    if (problems and not results and not all_runs) or len(problems) > skipped:
        raise typer.Exit(1)


def _print_repeats(results: list[dict[str, Any]], repeat: int, deterministic: bool) -> None:
    """One line per repeat set: the spread of F1 over its judgements (the judge's noise)."""
    seen: set[str] = set()
    for r in results:
        if r.get("repeat_set") and r["repeat_set"] not in seen:
            seen.add(r["repeat_set"])
            n = sum(1 for x in results if x.get("repeat_set") == r["repeat_set"])
            err_console.print(f"run {r['run_id']} · {r['judge_label']}: F1 SD {_pct(r.get('judge_spread'))} over {n} judgements "
                              f"(repeat set {r['repeat_set']})", highlight=False)
    if deterministic:
        err_console.print(f"the offline judge is deterministic: each graph was judged once (its {repeat} judgements would be equal; "
                          "its noise is 0)", highlight=False)


def _row_json(store, row) -> dict[str, Any]:
    from ..judges.registry import judge_label

    from ..scoring.aggregate import agent_label
    from ..judges.judge_failures import judge_gaps
    from ..scoring.official_score import sample_of
    from ..scoring.profile import profile_label, score_protocol

    run = store.get_run(row.run_id)
    out = {
        "run_id": row.run_id, "task_id": run.task_id, "agent": agent_label(run.agent, run.agent_model),
        "score_id": row.id, "judge": row.judge, "judge_label": judge_label(row.judge),
        "protocol": score_protocol(row), "prompt_source": row.prompt_source, "profile": profile_label(row.protocol, row.prompt_source),
        "precision": row.precision, "recall": row.recall, "f1": row.f1, "n_gt": row.n_gt, "n_pred": row.n_pred,
        "n_covered": row.n_covered, "n_valid": row.n_valid, "n_unscored": row.n_unscored,
        "judge_failed_batches": judge_gaps(row).failed,  # (official profile: graded not covered; ours stores no such score)
        "repeat_set": row.repeat_set, "repeat_index": row.repeat_index,
    }
    graded = row.details().get("graded_graph")
    if isinstance(graded, dict):
        out["graded_graph"] = graded  # which extraction was graded: the run's own or a re-extraction
    sample = sample_of(row)
    if sample is not None:
        out.update(node_precision=sample.node_precision, node_recall=sample.node_recall, node_f1=sample.node_f1,
                   parse_note=row.details().get("parse", {}).get("note"))
    return out


def _narrow_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]]) -> Table:
    """A table that reads at 80 columns. ``columns``: (header, kind); a "number" column (right
    aligned) and an "id" column are as wide as their longest value and never cut, "text" columns
    wrap (long words folded) in the rest."""
    from rich import box

    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for i, (col, kind) in enumerate(columns):
        if kind == "text":
            table.add_column(col, overflow="fold")
        else:
            width = max([len(str(r[i])) for r in rows] + [min(len(col), 5)])
            table.add_column(col, justify="right" if kind == "number" else "left", no_wrap=True, min_width=width, overflow="fold")
    for r in rows:
        table.add_row(*r)
    return table


def _print_scores(results: list[dict[str, Any]]) -> None:
    from ..judges.judge_failures import MARK

    if not results:
        return
    for label, profile in dict.fromkeys((r["judge_label"], r.get("profile", "")) for r in results):
        console.print(f"scored by the {label}" + (f" under the {profile}" if profile else ""), highlight=False)
    several = len({r["judge_label"] for r in results}) > 1  # one judge: named in the line above, no column
    text = ["task", "agent", *(["judge"] if several else [])]
    rows = [[r["run_id"], r["task_id"], r.get("agent", ""), *([r["judge_label"]] if several else []), _pct(r["precision"]),
             _pct(r["recall"]), _pct(r["f1"]) + (MARK if r.get("judge_failed_batches") else ""), str(r["n_gt"]), str(r["n_pred"]),
             str(r["n_unscored"])] for r in results]
    columns = [("run", "id"), *((c, "text") for c in text), *((c, "number") for c in ("P", "R", "F1", "GT", "pred", "unscored"))]
    console.print(_narrow_table("Scores (P / R / F1 in %)", columns, rows))
    for r in results:
        if r.get("parse_note"):
            console.print(f"{r['run_id']}: {r['parse_note']}", highlight=False)
    if any(r["n_unscored"] for r in results):
        console.print("Recall is over the scored ground-truth triples; unscored ones are counted in the last column.")
    if any(r.get("judge_failed_batches") for r in results):
        console.print(f"{MARK} some judge batches failed and were graded not covered (the official rule): see the warnings.", highlight=False)


def report_command(
    fmt: str = typer.Option("md", "--format", help="md, csv, json or html"),
    out: Optional[Path] = typer.Option(None, "--out", help="Write to this file instead of standard output"),
    judge: Optional[str] = typer.Option(None, "--judge", help="Whose scores to use (default: the judge with the most scored runs)"),
    protocol: Optional[str] = typer.Option(None, "--protocol", help="Only scores of this profile: official or vibesearch (default: both, each row named)"),
    num_samples: Optional[int] = typer.Option(
        None, "--num-samples", help="The official --num-samples N: official-profile numbers grade every task on N samples, a missing one (or a cancelled run) a 0 sample (default N: the most samples of any task of the configuration); refused when a task has more"
    ),
    where: Optional[List[str]] = typer.Option(
        None, "--where", help="Only runs with key=value (subset, language, agent, model, user, simulator, profile, task); repeat to narrow, a key twice takes either value"
    ),
    min_agreement: Optional[str] = MinAgreementOption,
    db: Optional[str] = DbOption,
) -> None:
    """Aggregate scores (Avg@N / Best@N), interaction statistics and error analysis.

    Every row names the profile (and prompt source) of its numbers; the JSON format also carries
    the official ``summary`` and ``per_item`` records of official-profile scores. The official
    profile's numbers count every task as N samples, a missing one as 0 (as the official run
    grades it): N is --num-samples, else the most samples any task of the configuration has; the
    report says which."""
    from ..protocol import PROTOCOLS, as_profile
    from ..reports import Format, build_report, render
    from ..scoring.aggregate import SampleCountError, WhereError, parse_where

    try:
        chosen = parse_where(where or [])
    except WhereError as exc:
        fail(str(exc))
    report_format: Format = one_of("--format", fmt, ("md", "csv", "json", "html"))
    if protocol is not None and protocol not in PROTOCOLS:
        fail(f"--protocol must be {' or '.join(sorted(PROTOCOLS))}, not {protocol!r}")
    if num_samples is not None and num_samples < 1:
        fail("--num-samples must be at least 1")
    try:
        report = build_report(open_store(db, writes=False), judge=judge, protocol=as_profile(protocol) if protocol else None,
                              num_samples=num_samples, where=chosen, min_agreement=chosen_threshold(min_agreement))
    except SampleCountError as exc:
        fail(str(exc))
    text = render(report, report_format)
    if out is None:
        typer.echo(text)
        return
    from .._files import OutputFileError, write_output

    try:
        write_output(out, text)
    except OutputFileError as exc:
        fail(f"--out {exc}")
    err_console.print(f"wrote {out} ({report['n_scored']} scored runs, {report['judge_label']})", highlight=False)


def import_command(
    paths: List[Path] = typer.Argument(..., help="Official trajectory files"),
    task: Optional[Path] = typer.Option(None, "--task", help="Task file (official or ours) giving the ground truth"),
    extraction: Optional[Path] = typer.Option(None, "--extraction", help="Final-extraction file {qid, total, triplets}"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Load official VibeSearchBench trajectories as runs and check our counts against theirs."""
    from .._files import short
    from ..interop.official_trajectories import ImportFileError, load_task_file, prepare_import, read_extraction, read_trajectory, store_imports

    # every file is read and checked before the database is opened: bad input writes nothing
    try:
        trajs = [read_trajectory(p) for p in paths]
        ext = read_extraction(extraction) if extraction else None
        if ext is not None and not any(t.qid == str(ext["qid"]) for t in trajs):
            fail(f"{extraction}: its qid {short(str(ext['qid']))} matches none of the trajectories ({short(', '.join(t.qid for t in trajs), 200)})")
        prepared = []
        for path, traj in zip(paths, trajs):
            task_obj = load_task_file(task, traj.qid, warn=lambda p: err_console.print(f"warning: {p}", highlight=False, soft_wrap=True, markup=False)) if task else None
            mine = ext if ext is not None and str(ext["qid"]) == traj.qid else None
            prepared.append(prepare_import(path, task=task_obj, extraction=mine, traj=traj))
    except ImportFileError as exc:
        fail(str(exc))
    results = store_imports(open_store(db), prepared)  # one transaction: all runs or none
    if as_json:
        print_json([
            {"run_id": r.run_id, "file": r.file, "counted": r.counted, "file_stats": r.file_stats,
             "file_metrics": r.file_metrics, "complete": r.complete, "matches": r.matches, "n_triples": r.n_triples, "notes": r.notes}
            for r in results
        ])
        return
    for r in results:
        console.print(f"[bold]{r.file}[/bold] → run [cyan]{r.run_id}[/cyan] (qid {r.qid})", highlight=False)
        table = Table(show_header=True)
        for col in ("count", "ours (from the imported events)", "the file's stats"):
            table.add_column(col)
        for key in ("user_turns", "assistant_turns", "tool_calls"):
            ours, theirs = r.counted.get(key), r.file_stats.get(key)
            mark = "" if r.matches is None else (" ✓" if ours == theirs else " ✗")
            table.add_row(key, f"{ours}{mark}", str(theirs))
        console.print(table)
        if not r.complete:
            console.print("[yellow]this file is an excerpt: its turns were cut, so the counts cannot match the file's stats[/yellow]")
        f1 = r.file_metrics.get("triplet_f1")
        console.print(f"the file's own triplet F1 (official judge, as written in the file): {f1 if f1 is not None else 'not given'}", highlight=False)
        console.print(f"graph: {r.n_triples} triples", highlight=False)
        for note in r.notes:
            console.print(f"  · {note}", highlight=False)


@labels_app.command("export")
def labels_export(
    fmt: str = typer.Option("csv", "--format", help="csv or jsonl"),
    out: Optional[Path] = typer.Option(None, "--out", help="File to write"),
    official: Optional[Path] = typer.Option(
        None, "--official", help="Instead: write the official meta-eval CSVs (gt_recall_check/ and pred_precision_check/, one <qid>_sample<i>.csv per run) into this folder"
    ),
    annotator: Optional[str] = typer.Option(
        None, "--annotator", help="With --official: fill human_label/human_comment from this one person's labels instead of the final labels"
    ),
    final: bool = typer.Option(
        False, "--final", help="With --official: the final labels fill human_label (the default; kept for scripts that name it)"
    ),
    judge: Optional[str] = typer.Option(None, "--judge", help="With --official: the judge whose decisions fill the model columns (default: the latest score)"),
    run: Optional[str] = typer.Option(None, "--run", help="Only this run's labels"),
    db: Optional[str] = DbOption,
) -> None:
    """Write human labels to a CSV or JSONL file (one row per label, with each item's final label),
    or the official meta-eval CSVs to a folder (human_label: each item's final label — the
    adjudication, else the strict majority; an open tie is left blank and marked)."""
    from ..labels.human_label import FINAL_RULE
    from ..labels.labels_io import export_labels
    from ..store import RunNotFound

    if official is not None:
        from .._files import OutputFileError
        from ..labels.meta_eval_csv import export_official_report, not_a_sample

        if out is not None:
            fail("give --out or --official, not both")
        if annotator is not None:
            annotator = person("--annotator", annotator)
        store = open_store(db, writes=False)
        try:
            refused = not_a_sample(store, run, judge) if run else None
            if refused:
                fail(refused)
            if final and annotator is not None:
                fail("give --annotator or --final, not both")
            written = export_official_report(store, official, run_ids=[run] if run else None, judge=judge, annotator=annotator)
        except (RunNotFound, OutputFileError) as exc:
            fail(str(exc))
        console.print(f"wrote the meta-eval CSVs of {len(written.runs)} runs to {official}", highlight=False)
        console.print(written.human.line(), highlight=False)
        return
    if annotator is not None or final:
        fail("--annotator and --final go with --official (the label file has every annotator's labels and each item's final_label)")
    if out is None:
        fail("give --out FILE (or --official FOLDER)")
    label_format: Literal["csv", "jsonl"] = one_of("--format", fmt, ("csv", "jsonl"))
    n = export_labels(open_store(db, writes=False), out, label_format, run_id=run)
    console.print(f"wrote {n} labels to {out}", highlight=False)
    console.print(f"final_label column: {FINAL_RULE} (final_from says which step; an open tie's final_label is empty)", highlight=False)


@labels_app.command("import")
def labels_import(
    file: Path = typer.Argument(..., help="CSV or JSONL label file, or a filled meta-eval folder (with --annotator)"),
    annotator: Optional[str] = typer.Option(None, "--annotator", help="Whose labels a meta-eval folder holds (needed for a folder)"),
    db: Optional[str] = DbOption,
) -> None:
    """Read human labels from a CSV or JSONL file (same columns as export), or from a filled
    official meta-eval folder; nothing is stored unless every row is good."""
    from ..config import get_settings
    from ..labels.labels_io import LabelFileError, read_label_file, store_labels

    def existing_db() -> Optional[str]:
        from ..store import db_target

        where = db_target(db or get_settings().db)
        if where.path is not None and not where.path.exists():  # labels belong to stored runs: never create an empty database here
            fail(f"{where.shown}: no database there; labels can only be imported into a database that holds the runs")
        return db

    if file.is_dir():
        from ..labels.meta_eval_csv import MetaEvalError, import_official

        if not annotator:
            fail(f"{file} is a meta-eval folder: give --annotator NAME")
        annotator = person("--annotator", annotator)
        try:
            n_cov, n_val = import_official(open_store(existing_db()), file, annotator)
        except MetaEvalError as exc:
            fail(str(exc))
        console.print(f"imported {n_cov} coverage and {n_val} validity labels by {annotator} from {file}", highlight=False)
        return
    if annotator:
        fail("--annotator is for a meta-eval folder; a label file names the annotator on each row")
    try:
        records = read_label_file(file)  # the whole file is checked before the database is opened
        n = store_labels(open_store(existing_db()), records, file)
    except LabelFileError as exc:
        fail(str(exc))
    console.print(f"imported {n} labels from {file}", highlight=False)


@labels_app.command("agreement")
def labels_agreement(run: Optional[str] = typer.Option(None, "--run", help="Only this run"), as_json: bool = JsonOption, db: Optional[str] = DbOption) -> None:
    """Agreement of each judge with the human labels, and between annotators."""
    from ..labels.agreement import agreement_report
    from ..judges.registry import judge_label

    report = agreement_report(open_store(db, writes=False), run_id=run)
    if as_json:
        print_json(report)
        return
    validity = report["validity"]
    if not report["n_items"] and not validity["n_items"]:
        console.print("no labels" + (f" for run {run}" if run else ""))
        return
    console.print(f"coverage side: {report['n_items']} labelled ground-truth triples in {report['n_runs']} runs; annotators: {', '.join(report['annotators']) or '–'}")
    console.print(f"validity side: {validity['n_items']} labelled predicted triples in {validity['n_runs']} runs; annotators: {', '.join(validity['annotators']) or '–'}")
    _agreement_table("Judge vs humans: coverage of ground-truth triples", report)
    _agreement_table("Judge vs humans: validity of predicted triples", validity)
    boot = report["bootstrap"]
    console.print(f"intervals: {boot['method']}, {boot['resamples']} resamples, seed {boot['seed']}", highlight=False)
    rows = []
    for e in report["prf"]:
        h = e["human"]
        judges = "; ".join(f"{judge_label(j)}: {_pct(v['precision'])}/{_pct(v['recall'])}/{_pct(v['f1'])}" for j, v in e["judges"].items())
        rows.append([e["run_id"], f"{e['n_labelled']}/{e['n_gt']}", f"{_pct(h['precision'])}/{_pct(h['recall'])}/{_pct(h['f1'])}", judges or "–"])
    if rows:
        columns = [("run", "id"), ("labelled", "number"), ("human P/R/F1", "number"), ("judges (P/R/F1)", "text")]
        console.print(_narrow_table("P / R / F1 (%) from human labels beside each judge", columns, rows))


@labels_app.command("calibrate")
def labels_calibrate(
    cases: Path = typer.Argument(..., help="Labelled case file (JSONL)"),
    judge: List[str] = typer.Option(["offline"], "--judge", help="'offline' or a litellm model string; repeat to compare judges", callback=model_strings),
    as_json: bool = JsonOption,
) -> None:
    """Measure judges on a labelled case file: one table with agreement, kappa, P/R of "covered", false covered, time, cost."""
    from ..llm import LLMError
    from ..labels.calibration import CaseFileError, compare
    from ..judges.registry import judge_label

    try:
        report = compare(cases, list(judge), settings=_settings())
    except (CaseFileError, LLMError) as exc:
        fail(str(exc))
    keys = ("judge", "n", "agreement", "kappa", "precision", "recall", "false_covered", "confusion", "seconds",
            "cost_usd", "calls", "disagreements", "unscored", "evidence_overlap", "by_category")
    if as_json:
        print_json({"file": report["file"], "n": report["n"], "judges": [{k: r[k] for k in keys} for r in report["judges"]]})
        return
    console.print(f"{len(report['judges'])} judge(s) on {report['n']} labelled cases from {cases}", highlight=False)
    # two narrow tables, so that an 80-column terminal shows every figure whole
    table = Table(title='Judges against the labels ("covered" is the positive class)')
    for col in ("judge", "agreement %", "kappa", "false covered", "time s", "cost USD"):
        table.add_column(col, overflow="fold")
    counts = Table(title='"Covered" in detail')
    for col in ("judge", "precision %", "recall %", "tp/fn/fp/tn"):
        counts.add_column(col, overflow="fold")
    for r in report["judges"]:
        c = r["confusion"]
        cost = "n/a" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}"
        table.add_row(judge_label(r["judge"]), _pct(r["agreement"]), "n/a" if r["kappa"] is None else f"{r['kappa']:.3f}",
                      str(r["false_covered"]), f"{r['seconds']:.2f}", cost)
        counts.add_row(judge_label(r["judge"]), _pct(r["precision"]), _pct(r["recall"]), f"{c['tp']}/{c['fn']}/{c['fp']}/{c['tn']}")
    console.print(table)
    console.print(counts)
    cats = Table(title="agreement % per category")
    cats.add_column("category", overflow="fold")
    cats.add_column("n")
    for r in report["judges"]:
        cats.add_column(judge_label(r["judge"]), overflow="fold")
    for cat, first in report["judges"][0]["by_category"].items():
        cats.add_row(cat, str(first["n"]), *(_pct(r["by_category"][cat]["agreement"]) for r in report["judges"]))
    console.print(cats)
    for r in report["judges"]:
        if r["disagreements"]:
            console.print(f"{judge_label(r['judge'])} disagrees on: " + ", ".join(r["disagreements"]), highlight=False)
        if r["unscored"]:
            console.print(f"{judge_label(r['judge'])} left unscored (counted as disagreements): " + ", ".join(r["unscored"]), highlight=False)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.command("score")(score_command)
    app.command("report")(report_command)
    app.command("import")(import_command)
    app.add_typer(labels_app, name="labels")
