"""What a site is built from: the runs a filter names, read once from the store.

Building a site is an admin act, but it publishes only what it is asked to: the runs named by
``--runs`` (run ids, or ``key=value`` filters of ``report --where``), ``--campaign`` (a labelling
campaign's runs) and ``--study`` (a study's plays), all of them when none is given — but a study's
plays only with ``--study`` or ``--include-studies``, and a blind study's agent never (``_blind``). Of each run it
keeps its events, its task snapshot, the graph each score graded and the judge's verdicts; never
the run's owner, the settings snapshot, logins, study codes or any key (none of them is read).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..run.events import StoredEvent
from ..run.transcript import Transcript
from ..scoring.aggregate import RunRecord, WHERE_KEYS, collect_runs, parse_where, where_filter
from ..scoring.stored import stored_prediction
from ..scoring.metrics import stored_verdicts
from ..scoring.stats import stages_total_of
from ..store import Store, TaskSnapshotError
from ..store.tables import GraphRow, Run
from ..tasks.models import Task
from ..results.blind import hidden_record, hidden_run
from ._blind import hidden_events, study_plays


class SiteInputError(ValueError):
    """A filter, campaign or study that names nothing that can be built (one line)."""


@dataclass
class RunData:
    """One run as the site shows it."""

    run: Run
    task: Task | None
    task_json: dict[str, Any]
    events: list[dict[str, Any]]
    records: list[RunRecord] = field(default_factory=list)  # one per profile it was scored under
    graded: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # score id -> the triples it graded
    verdicts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # score id -> verdicts
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)  # official score id -> the answer it graded
    latest_graph: list[dict[str, Any]] = field(default_factory=list)  # the newest graph, scored or not

    @property
    def gt(self) -> list[dict[str, Any]]:
        return [t.model_dump() for t in self.task.graph] if self.task is not None else []

    @property
    def transcript(self) -> Transcript:
        """The run's transcript view (``run.transcript``): what its pages show and count."""
        imported = self.run.source == "imported"
        return Transcript.of([StoredEvent.model_validate(e) for e in self.events], imported=imported,
                             file_meta=self.run.meta() if imported else None)

    @property
    def stats_inputs(self) -> dict[str, Any]:
        """What ``stats_from_events`` needs besides the events, and what an imported trajectory's
        file says of its counts (``scoring.stats.run_stats``, ``as_the_file_says``)."""
        imported = self.run.source == "imported"
        out: dict[str, Any] = {"stages_total": stages_total_of(self.task), "termination": self.run.termination, "imported": imported}
        if imported:
            meta = self.run.meta()
            out["file"] = {k: meta[k] for k in ("stats", "compactions") if k in meta}
        return out


@dataclass
class SiteData:
    store: Store
    judge: str
    records: list[RunRecord]
    runs: dict[str, RunData]
    selection: dict[str, Any]
    blind: set[str] = field(default_factory=set)  # runs published with their agent hidden (``_blind``)


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


@dataclass
class Selection:
    chosen: set[str] | None  # the runs named (None: every run) ...
    left_out: set[str]  # ... but these (study plays nobody asked for)
    blind: set[str]  # the published plays whose agent stays hidden
    described: dict[str, Any]

    def keeps(self, run_id: str) -> bool:
        return (self.chosen is None or run_id in self.chosen) and run_id not in self.left_out


def select_runs(store: Store, runs: list[str] | None = None, campaign: str | None = None, study: str | None = None,
                include_studies: bool = False) -> Selection:
    """The runs to publish and a description of the selection. ``runs``: run ids and/or
    ``key=value`` filters; ids and filters of one call must all hold. A study's plays are left out
    unless ``study`` names it or ``include_studies`` asks for every study's."""
    parts = _split(runs)
    filters = [p for p in parts if "=" in p]
    ids = [p for p in parts if "=" not in p]
    chosen: set[str] | None = None
    if ids:
        known = {r.id for r in store.list_runs()}
        missing = [i for i in ids if i not in known]
        if missing:
            raise SiteInputError(f"--runs: no run {missing[0]!r} in the database")
        chosen = set(ids)
    if filters:
        try:
            where = parse_where(filters)
        except ValueError as exc:
            raise SiteInputError(str(exc).replace("--where", "--runs")) from None
        keep = where_filter(where)
        named = chosen
        matched = {r.run_id for r in collect_runs(store, keep=None if named is None else (lambda run: run.id in named))[0] if keep(r)}
        chosen = matched
    if campaign:
        row = store.campaign(campaign)
        if row is None:
            raise SiteInputError(f"--campaign: no campaign named {campaign!r}")
        mine = set(row.run_ids())
        chosen = mine if chosen is None else chosen & mine
    every_play = study_plays(store, store.list_runs())
    left_out: set[str] = set()
    if study:
        found = next((s for s in store.studies() if s.name == study), None)
        if found is None:
            raise SiteInputError(f"--study: no study named {study!r}")
        plays = {p.run_id for p in store.study_codes(found.id) if p.run_id}
        chosen = plays if chosen is None else chosen & plays
    elif not include_studies:
        a_play = next((i for i in ids if i in every_play), None)
        if a_play is not None:
            raise SiteInputError(f"--runs: run {a_play!r} is a study's play: publish it with --study NAME or --include-studies")
        left_out = set(every_play)
        chosen = None if chosen is None else chosen - left_out
    described = {"runs": parts, "campaign": campaign, "study": study, "include_studies": include_studies,
                 "filter_keys": sorted(WHERE_KEYS)}
    return Selection(chosen, left_out, {rid for rid, blind in every_play.items() if blind}, described)


def _graph_triples(store: Store, graph_id: int | None) -> list[dict[str, Any]]:
    if graph_id is None:
        return []
    with store.session() as s:
        row = s.get(GraphRow, graph_id)
    triples = json.loads(row.triples_json or "[]") if row is not None else []
    return [t for t in triples if isinstance(t, dict)]


def graded_answer_of(store: Store, score: Any, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer an official score graded, as its details name it (``graded_message``): an
    assistant message of the run (its seq), or the re-extraction the score graded (its graph's raw
    text); the text stripped, as the grader took it ("" when nothing was graded)."""
    try:
        marked = (json.loads(score.details_json or "{}").get("graded_message") or {})
    except ValueError:
        marked = {}
    phase, seq = marked.get("phase"), marked.get("seq")
    text = ""
    if phase == "reextraction":
        with store.session() as s:
            row = s.get(GraphRow, score.graph_id) if score.graph_id is not None else None
        text = (row.raw_text or "").strip() if row is not None else ""
    elif isinstance(seq, int):
        text = next((str(e["data"].get("content") or "").strip() for e in events if e.get("seq") == seq), "")
    return {"phase": phase, "seq": seq, "text": text}


def event_dicts(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's stored events as plain JSON values (``StoredEvent`` dumps: seq, ts, data)."""
    return [e.model_dump(mode="json") for e in store.events(run_id)]


def gather(store: Store, *, judge: str | None = None, runs: list[str] | None = None, campaign: str | None = None,
           study: str | None = None, include_studies: bool = False) -> SiteData:
    picked = select_runs(store, runs, campaign, study, include_studies)
    chosen = picked.chosen
    records, used = collect_runs(store, judge=judge, keep=lambda run: picked.keeps(run.id))
    shown_ids = list(dict.fromkeys(r.run_id for r in records))
    if chosen is not None:  # a run the filter names is shown even when it has no score yet
        shown_ids += sorted(i for i in chosen if i not in shown_ids)
    if not shown_ids:
        raise SiteInputError("no run to publish: the database holds none, or the filters match none")
    out: dict[str, RunData] = {}
    for run_id in shown_ids:
        stored = store.get_run(run_id)
        run = hidden_run(stored) if run_id in picked.blind else stored
        try:
            task: Task | None = run.task()
        except TaskSnapshotError:
            task = None
        events = event_dicts(store, run_id)
        if run_id in picked.blind:
            events = hidden_events(stored, events)
            records = [hidden_record(r, run) if r.run_id == run_id else r for r in records]
        data = RunData(run=run, task=task, task_json=json.loads(run.task_json or "{}"), events=events,
                       records=[r for r in records if r.run_id == run_id], latest_graph=stored_prediction(store, run_id)[0])
        for rec in data.records:
            if rec.score_id is None:
                continue
            score = next(s for s in store.scores(run_id) if s.id == rec.score_id)
            data.graded[rec.score_id] = _graph_triples(store, score.graph_id)
            data.verdicts[rec.score_id] = [v.model_dump() for v in stored_verdicts(store, rec.score_id)]
            if rec.official is not None:
                data.answers[rec.score_id] = graded_answer_of(store, score, data.events)
        out[run_id] = data
    return SiteData(store=store, judge=used, records=records, runs=out, selection=picked.described,
                    blind={rid for rid in out if rid in picked.blind})
