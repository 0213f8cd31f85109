"""The Label tab's export: the labels as a file to download — our JSONL or CSV (with the triple
text), or the official meta-eval CSV folder (``gt_recall_check/``, ``pred_precision_check/``) as
a zip. The same writers as ``vibesearch labels export`` (``labels.labels_io``,
``labels.meta_eval_csv``), so the same human label: each item's final label (adjudication, else
strict majority; ``labels.human_label``), never one person's; only runs the person may read are
written, and the status line says which rule filled the label. The official CSVs leave out a blind
study's play for anyone but an admin (``_access.agent_hidden``): their folders are named after a
configuration, its agent and model included; for the same reason, and because they carry the
judge's decisions, they leave out the runs of a blind campaign for anyone but an admin."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..labels.campaigns import blind_runs
from ..labels.human_label import FINAL_RULE
from ..labels.labels_io import export_labels
from ..labels.meta_eval_csv import export_official_report
from ._access import Who, agent_hidden
from .context import AppContext

EXPORT_FORMATS = [("Our labels (JSONL)", "jsonl"), ("Our labels (CSV)", "csv"), ("Official meta-eval CSVs (zip)", "official")]
SCOPES = [("The run picked above", "run"), ("Every run I may read", "all")]


class ExportRefused(ValueError):
    """Nothing to export, or not allowed; the message is the status line."""


def readable_run_ids(ctx: AppContext, who: Who) -> list[str]:
    return [r.id for r in ctx.store.list_runs() if ctx.readable(who, r)]


def export_file(ctx: AppContext, who: Who, fmt: Any, *, run_id: Any = None, out_dir: Path | None = None) -> tuple[Path, str]:
    """Write the export into a fresh folder; returns the file to download and a one-line summary.
    ``run_id``: that run only (it must be readable), else every readable run."""
    if fmt not in {value for _, value in EXPORT_FORMATS}:
        raise ExportRefused("Pick an export format.")
    readable = readable_run_ids(ctx, who)
    if run_id:
        if run_id not in readable:
            raise ExportRefused(f"no run with id {str(run_id)[:80]!r} that you may read")
        ids = [run_id]
    else:
        ids = readable
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="vibesearch-labels-"))
    out.mkdir(parents=True, exist_ok=True)
    if fmt in ("jsonl", "csv"):
        path = out / f"labels{'-' + run_id if run_id else ''}.{fmt}"
        n = export_labels(ctx.store, path, fmt, run_ids=set(ids))
        return path, (f"Exported {n} coverage label(s) of {'run ' + run_id if run_id else 'the runs you may read'} as {fmt.upper()}; "
                      f"final_label: {FINAL_RULE}.")
    scored = {s.run_id for s in ctx.store.scores()}
    in_blind = set() if who.admin else blind_runs(ctx.store)
    if run_id and run_id in scored and run_id in in_blind:
        raise ExportRefused("A run of a blind campaign is not exported as the official CSVs (they carry the judge's decisions and "
                            "name its agent); export our labels instead.")
    persona = {r.id for r in ctx.store.list_runs() if r.kind != "table" and not agent_hidden(who, r) and r.id not in in_blind}
    if run_id and run_id in scored and run_id not in persona and ctx.store.get_run(run_id).kind != "table":
        raise ExportRefused("A blind study's play is not exported as the official CSVs (they are named after its agent); export our labels instead.")
    ids = [i for i in ids if i in scored and i in persona]
    if not ids:
        raise ExportRefused("No scored run to export: the official CSVs carry the judge's decisions, so a run needs a score first.")
    folder = out / "meta-eval"
    written = export_official_report(ctx.store, folder, run_ids=ids)
    archive = shutil.make_archive(str(out / f"meta-eval{'-' + run_id if run_id else ''}"), "zip", root_dir=folder)
    return Path(archive), f"Exported the meta-eval CSVs of {len(written.runs)} run(s); {written.human.line()}."
