"""The database rows inside a site (``rows.json``) that the people's figures are computed from, so
``site verify`` recomputes the judges' agreement lines, the label agreement tables and the
people-vs-simulator table as well.

``rows.json`` holds, for the published runs: each run's facts (its public run config, as
``results.json`` shows it; its task named by the sha256 of its bundled snapshot), every score of it
(each judge's, not only the site's) with its verdicts and the graph it graded, the people's labels
of both sides and the adjudications. Nothing else of them: no owner, settings or meta of a run; no
label note, adjudication comment or adjudicator, no score details (the annotators' names stay: the
agreement tables show them), and the votes between the published runs, each voter a pseudonym and
without its reason (``site_votes``). The events are the bundled ``events/`` files.

``people_figures(store, …)`` is the one computation: ``build`` runs it on the real database (only
the published runs count), ``verify`` on a throwaway SQLite database made from ``rows.json``, the
bundled events and task files (``rebuilt_store``), and compares the two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

from sqlmodel import SQLModel, col, select

from ..run.events import StoredEvent
from ..labels.agreement import agreement_report
from ..labels.judge_trust import judge_trust
from ..judges.registry import judge_label
from ..store import Store
from ..store.tables import AdjudicationRow, EventRow, GraphRow, LabelRow, PredLabelRow, Run, ScoreRow, VerdictRow, VoteRow
from .bundle import plain
from .site_votes import published_votes

ROWS = "rows.json"
ROWS_FORMAT = "vibesearch-site-rows/1"
RUN_FIELDS = ("id", "task_id", "kind", "status", "termination", "agent", "agent_model", "user", "simulator_model", "search_backend",
              "source", "run_index", "created_at", "updated_at")
# what the figures do not read and a person may have typed anything into
BLANKED = {LabelRow: {"note": ""}, PredLabelRow: {"note": ""}, AdjudicationRow: {"comment": "", "adjudicator": ""},
           ScoreRow: {"details_json": "{}"}}
TABLES: list[tuple[str, type[SQLModel]]] = [("graphs", GraphRow), ("scores", ScoreRow), ("verdicts", VerdictRow),
                                            ("coverage_labels", LabelRow), ("validity_labels", PredLabelRow),
                                            ("adjudications", AdjudicationRow), ("votes", VoteRow)]


class RowsError(ValueError):
    """rows.json cannot be read back (the message names the row)."""


def people_figures(store: Store, keep: set[str], judge: str, profiles: Iterable[str]) -> dict[str, Any]:
    """The judges' agreement lines (``judge``, each of ``profiles``), the label agreement tables and
    the people-vs-simulator study (None without people's runs), over the runs in ``keep``."""
    from ..labels.fidelity import FidelityError, fidelity_report

    trust = judge_trust(store, keep_run=keep.__contains__)
    try:
        fidelity: dict[str, Any] | None = fidelity_report(store, judge=judge, may_read=lambda run: run.id in keep)
    except FidelityError:
        fidelity = None
    return plain({
        "judge_agreement": [{**t, "judge_label": judge_label(t["judge"])} for t in trust.rows((judge, p) for p in profiles)],
        "label_agreement": agreement_report(store, keep_run=keep.__contains__),
        "fidelity": fidelity,
    })


def _dump(row: SQLModel, model: type[SQLModel]) -> dict[str, Any]:
    return {**row.model_dump(mode="json"), **BLANKED.get(model, {})}


def rows_bundle(store: Store, runs: dict[str, Run], task_sha: Callable[[str], str | None],
                public_config: Callable[[str], dict[str, Any] | None]) -> dict[str, Any]:
    """``rows.json``'s content for the published ``runs`` (``task_sha``: the sha256 of a run's
    bundled task snapshot; ``public_config``: its run config as published)."""
    keep = set(runs)
    ids = sorted(keep)
    scores = [s for s in store.scores() if s.run_id in keep]
    with store.session() as s:
        graphs = s.exec(select(GraphRow).where(col(GraphRow.run_id).in_(ids)).order_by(col(GraphRow.id))).all() if ids else []
    return {
        "format": ROWS_FORMAT,
        "runs": [{**{k: v for k, v in plain(runs[rid].model_dump(mode="json")).items() if k in RUN_FIELDS},
                  "task_sha256": task_sha(rid), "run_config": public_config(rid)} for rid in ids],
        "graphs": [{k: v for k, v in _dump(g, GraphRow).items() if k in ("id", "run_id", "source", "triples_json", "created_at")} for g in graphs],
        "scores": [_dump(s, ScoreRow) for s in scores],
        "verdicts": [_dump(v, VerdictRow) for s in scores for v in store.verdicts(s.id)],
        "coverage_labels": [_dump(r, LabelRow) for r in store.labels() if r.run_id in keep],
        "validity_labels": [_dump(r, PredLabelRow) for r in store.pred_labels() if r.run_id in keep],
        "adjudications": [_dump(a, AdjudicationRow) for a in store.adjudications(ids)] if ids else [],
        "votes": published_votes(store, keep),
    }


def rebuilt_store(bundle: dict[str, Any], task_json: Callable[[str | None], dict[str, Any] | None],
                  events: Callable[[str], list[dict[str, Any]]], folder: Path) -> Store:
    """A new SQLite database in ``folder`` holding ``bundle``'s rows (``task_json``: a bundled task
    snapshot by its sha256; ``events``: a run's bundled events), for ``people_figures``."""
    if bundle.get("format") != ROWS_FORMAT:
        raise RowsError(f"{ROWS}: format is {bundle.get('format')!r}, not {ROWS_FORMAT!r}")
    store = Store(folder / "rows.db")
    with store.session() as s:
        for i, entry in enumerate(bundle.get("runs") or []):
            snapshot = task_json(entry.get("task_sha256"))
            if snapshot is None:
                raise RowsError(f"{ROWS}: runs[{i}] names a task file the site does not hold")
            config = entry.get("run_config")
            fields = {k: v for k, v in entry.items() if k in RUN_FIELDS}
            s.add(_row(Run, {**fields, "task_json": json.dumps(snapshot, ensure_ascii=False),
                             "run_config_json": json.dumps(config, ensure_ascii=False) if config is not None else None}, f"runs[{i}]"))
            s.flush()  # the run's row before its events (they name it)
            for k, stored in enumerate(events(str(entry.get("id")))):
                try:
                    event = StoredEvent.model_validate(stored)
                except ValueError:
                    raise RowsError(f"the events of run {entry.get('id')}: [{k}] is not an event") from None
                s.add(EventRow(run_id=event.run_id, seq=event.seq, ts=event.ts, kind=event.kind, data_json=event.data.model_dump_json()))
        s.flush()
        for key, model in TABLES:
            for i, entry in enumerate(bundle.get(key) or []):
                s.add(_row(model, entry, f"{key}[{i}]"))
            s.flush()
        s.commit()
    return store


def _row(model: type[SQLModel], fields: Any, where: str) -> SQLModel:
    if not isinstance(fields, dict):
        raise RowsError(f"{ROWS}: {where} is not an object")
    try:
        return model.model_validate(fields)
    except ValueError as exc:
        raise RowsError(f"{ROWS}: {where} does not read back ({' '.join(str(exc).split())[:160]})") from None
