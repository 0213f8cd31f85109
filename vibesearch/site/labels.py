"""The people's labels inside a site (``labels.json``), so ``site verify`` recomputes the label
agreement tables and the judges' agreement lines as well.

``labels.json`` holds, for the published runs that people labelled: the labels of both sides, the
adjudications, and every score of those runs (each judge's, not only the site's) with its verdicts
and the graph it graded — the rows the agreement functions read, and nothing else of them: no
owner, config, settings or meta of a run; no label note, adjudication comment or adjudicator, no
score details (the annotators' names stay: the agreement tables show them). A run's task is named by the sha256 of its
bundled snapshot.

``label_figures(store, …)`` is the one computation: ``build`` runs it on the real database (only the
published runs count), ``verify`` on a throwaway SQLite database made from ``labels.json`` and the
bundled task files (``rebuilt_store``), and compares the two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

from sqlmodel import SQLModel, select

from ..scoring.agreement import agreement_report
from ..scoring.judge_trust import judge_trust
from ..scoring.verdicts import judge_label
from ..store import Store
from ..store.tables import AdjudicationRow, GraphRow, LabelRow, PredLabelRow, Run, ScoreRow, VerdictRow
from .bundle import plain

LABELS = "labels.json"
LABELS_FORMAT = "vibesearch-site-labels/1"
RUN_FIELDS = ("id", "task_id", "kind", "status", "termination", "agent", "agent_model", "user", "simulator_model", "source",
              "run_index", "created_at", "updated_at")
# what the agreement does not read and a person may have typed anything into
BLANKED = {LabelRow: {"note": ""}, PredLabelRow: {"note": ""}, AdjudicationRow: {"comment": "", "adjudicator": ""},
           ScoreRow: {"details_json": "{}"}}


def label_figures(store: Store, keep: set[str], judge: str, profiles: Iterable[str]) -> dict[str, Any]:
    """The judges' agreement lines (``judge``, each of ``profiles``) and the label agreement
    tables, over the labels of the runs in ``keep``."""
    trust = judge_trust(store, keep_run=keep.__contains__)
    return plain({
        "judge_agreement": [{**t, "judge_label": judge_label(t["judge"])} for t in trust.rows((judge, p) for p in profiles)],
        "label_agreement": agreement_report(store, keep_run=keep.__contains__),
    })


def _dump(row: SQLModel, model: type[SQLModel]) -> dict[str, Any]:
    return {**row.model_dump(mode="json"), **BLANKED.get(model, {})}


def labels_bundle(store: Store, keep: set[str], task_sha: Callable[[str], str | None]) -> dict[str, Any]:
    """``labels.json``'s content: the rows of the labelled runs among ``keep`` (``task_sha``: the
    sha256 of a run's bundled task snapshot)."""
    coverage = [r for r in store.labels() if r.run_id in keep]
    validity = [r for r in store.pred_labels() if r.run_id in keep]
    labelled = sorted({r.run_id for r in coverage} | {r.run_id for r in validity})
    adjudications = [a for a in store.adjudications(labelled)] if labelled else []
    scores = [s for s in store.scores() if s.run_id in set(labelled)]
    with store.session() as s:
        graphs = {g.id: g for g in s.exec(select(GraphRow).where(GraphRow.run_id.in_(labelled))).all()} if labelled else {}  # type: ignore[attr-defined]  # a column
    runs = []
    for rid in labelled:
        run = store.get_run(rid)
        runs.append({**{k: v for k, v in plain(run.model_dump(mode="json")).items() if k in RUN_FIELDS}, "task_sha256": task_sha(rid)})
    return {
        "format": LABELS_FORMAT,
        "runs": runs,
        "graphs": [{k: v for k, v in _dump(g, GraphRow).items() if k in ("id", "run_id", "source", "triples_json", "created_at")}
                   for _, g in sorted(graphs.items())],
        "scores": [_dump(s, ScoreRow) for s in scores],
        "verdicts": [_dump(v, VerdictRow) for s in scores for v in store.verdicts(s.id)],
        "coverage_labels": [_dump(r, LabelRow) for r in coverage],
        "validity_labels": [_dump(r, PredLabelRow) for r in validity],
        "adjudications": [_dump(a, AdjudicationRow) for a in adjudications],
    }


class LabelsError(ValueError):
    """labels.json cannot be read back (the message names the row)."""


def rebuilt_store(bundle: dict[str, Any], task_json: Callable[[str | None], dict[str, Any] | None], folder: Path) -> Store:
    """A new SQLite database in ``folder`` holding ``bundle``'s rows (``task_json``: a bundled
    task snapshot by its sha256), for ``label_figures``."""
    if bundle.get("format") != LABELS_FORMAT:
        raise LabelsError(f"{LABELS}: format is {bundle.get('format')!r}, not {LABELS_FORMAT!r}")
    store = Store(folder / "labels.db")
    tables: list[tuple[str, type[SQLModel]]] = [("graphs", GraphRow), ("scores", ScoreRow), ("verdicts", VerdictRow),
                                                ("coverage_labels", LabelRow), ("validity_labels", PredLabelRow),
                                                ("adjudications", AdjudicationRow)]
    with store.session() as s:
        for i, entry in enumerate(bundle.get("runs") or []):
            snapshot = task_json(entry.get("task_sha256"))
            if snapshot is None:
                raise LabelsError(f"{LABELS}: runs[{i}] names a task file the site does not hold")
            fields = {k: v for k, v in entry.items() if k in RUN_FIELDS}
            s.add(_row(Run, {**fields, "task_json": json.dumps(snapshot, ensure_ascii=False)}, f"runs[{i}]"))
        s.flush()
        for key, model in tables:
            for i, entry in enumerate(bundle.get(key) or []):
                s.add(_row(model, entry, f"{key}[{i}]"))
            s.flush()
        s.commit()
    return store


def _row(model: type[SQLModel], fields: Any, where: str) -> SQLModel:
    if not isinstance(fields, dict):
        raise LabelsError(f"{LABELS}: {where} is not an object")
    try:
        return model.model_validate(fields)
    except ValueError as exc:
        raise LabelsError(f"{LABELS}: {where} does not read back ({' '.join(str(exc).split())[:160]})") from None
