"""SQLModel tables (made and changed by the migrations in ``store.migrations``). JSON columns hold
pydantic dumps; timestamps are UTC."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import ValidationError
from sqlalchemy import Boolean, Column, Index, LargeBinary, Text, UniqueConstraint, true
from sqlmodel import AutoString, Field, SQLModel, col

from ..run.config import RunConfig
from ..run.events import utcnow
from ..run.result import RunStatus
from ..tasks import loc_to_path
from ..tasks.models import Task

# the ``meta.schema_version`` row the releases before Alembic kept (and an older vibesearch still
# reads); the schema's history itself is ``store.migrations``
SCHEMA_VERSION = 1


class Meta(SQLModel, table=True):
    __tablename__ = "meta"
    key: str = Field(primary_key=True)
    value: str


class TaskSnapshotError(ValueError):
    """A run's stored task cannot be read as a ``Task`` (there is none, it is not JSON, or it is
    no valid task). The message names the run; ``run_id`` and ``reason`` hold the parts."""

    def __init__(self, run_id: str, reason: str):
        self.run_id = run_id
        self.reason = reason
        super().__init__(f"run {run_id}: its task snapshot cannot be read ({reason})")


class Run(SQLModel, table=True):
    __tablename__ = "runs"
    id: str = Field(primary_key=True)
    task_id: str = Field(index=True)
    kind: str = "persona"  # "persona" | "table"
    # typed by the one vocabulary (``run.result.RunStatus``); stored as the same text column as
    # before (no migration: the values were already these)
    status: RunStatus = Field(default="running", index=True, sa_type=AutoString)
    termination: Optional[str] = None
    agent: str = ""  # a ``config.AgentKind``, or "imported"
    agent_model: Optional[str] = None
    user: str = ""  # a ``config.UserKind``, or "imported"
    simulator_model: Optional[str] = None
    search_backend: str = "offline"
    batch_id: Optional[str] = Field(default=None, index=True)
    run_index: int = 0
    owner: Optional[str] = None  # the app session that started it
    source: str = "live"  # live | imported
    # the process' settings when the run started (``Settings.snapshot()``: no secrets)
    config_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    task_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    meta_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    # the run's ``RunConfig`` as JSON; NULL for runs stored before it existed (added to old
    # files by the migrations, ``store.migrations``)
    run_config_json: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    def meta(self) -> dict[str, Any]:
        """The run's free-form facts (where it was started, its batch plan, its end's detail ...)."""
        return _object(self.meta_json)

    def task(self) -> Task:
        """The task exactly as the run saw it: its snapshot validated (snapshots of older shapes
        upgraded), pointed at the file it was read from (``meta()["task_file"]``, where its corpus
        is found) when that file still exists. The graph may be empty: an official trajectory
        imported without its task has no ground truth.

        Every call reads the snapshot anew (about 0.2 ms for a bundled task; a deep copy of a
        cached one would cost more), so the Task is the caller's to change.
        Raises ``TaskSnapshotError`` naming the run when the snapshot cannot be read."""
        try:
            data = json.loads(self.task_json or "{}")
        except json.JSONDecodeError as exc:
            raise TaskSnapshotError(self.id, f"not valid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise TaskSnapshotError(self.id, f"expected a JSON object, got {type(data).__name__}")
        if not data:
            raise TaskSnapshotError(self.id, "the run stored no task")
        try:
            return Task.from_snapshot(data, source_file=self._task_file())
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = loc_to_path(first["loc"]) or "-"
            raise TaskSnapshotError(self.id, f"{exc.error_count()} problem(s), first: {where}: {first['msg']}") from None

    def _task_file(self) -> str | None:
        """The task file named in the run's meta, when it still exists."""
        try:
            file = self.meta().get("task_file")
            return file if isinstance(file, str) and file and Path(file).exists() else None
        except (ValueError, OSError):  # meta that is not JSON, a name no file can have
            return None

    def settings_snapshot(self) -> dict[str, Any]:
        """The process' settings when the run started."""
        return _object(self.config_json)

    def run_config(self) -> RunConfig | None:
        """The run's ``RunConfig``, as the run began with it (None: none was stored — an imported
        trajectory; an upgraded database gave every run of ours one)."""
        return RunConfig.model_validate_json(self.run_config_json).as_resolved() if self.run_config_json else None


def _object(text: str | None) -> dict[str, Any]:
    value = json.loads(text or "{}")
    return value if isinstance(value, dict) else {}


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_event_run_seq"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id")
    seq: int
    ts: datetime = Field(default_factory=utcnow)
    kind: str
    data_json: str = Field(sa_column=Column(Text, nullable=False))


class GraphRow(SQLModel, table=True):
    __tablename__ = "graphs"
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id", index=True)
    source: str = "extraction"
    triples_json: str = Field(sa_column=Column(Text, nullable=False))
    raw_text: str = Field(default="", sa_column=Column(Text, nullable=False))
    repaired_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    dropped_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ScoreRow(SQLModel, table=True):
    __tablename__ = "scores"
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id", index=True)
    graph_id: Optional[int] = Field(default=None, foreign_key="graphs.id")
    judge: str  # "offline" or a model name
    precision: float
    recall: float
    f1: float
    n_gt: int
    n_pred: int
    n_covered: int
    n_valid: int
    n_unscored: int = 0
    details_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    # the profile the score was computed under ("vibesearch" | "official") and, for the official
    # profile, where its judge prompt came from (``PromptSource.label()``); NULL for scores stored
    # before these existed (read as the vibesearch profile; added to old files by the migrations)
    protocol: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    prompt_source: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    # ``score --repeat K``: the K judgements of one graph made together share ``repeat_set``;
    # ``repeat_index`` is 1..K. NULL for a single judgement (and every score stored before)
    repeat_set: Optional[str] = Field(default=None, sa_column=Column(Text, nullable=True))
    repeat_index: Optional[int] = None
    created_at: datetime = Field(default_factory=utcnow)

    def details(self) -> dict[str, Any]:
        """The score's details (judge batches, notes, the official record ...)."""
        return _object(self.details_json)


class VerdictRow(SQLModel, table=True):
    """One judge's decision on one ground-truth triple."""

    __tablename__ = "verdicts"
    id: Optional[int] = Field(default=None, primary_key=True)
    score_id: int = Field(foreign_key="scores.id", index=True)
    run_id: str = Field(index=True)
    gt_index: int
    covered: Optional[bool] = None  # None: unscored
    rule: Optional[str] = None
    evidence_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    rationale: str = Field(default="", sa_column=Column(Text, nullable=False))


class LabelRow(SQLModel, table=True):
    """A person's decision on one ground-truth triple of one run."""

    __tablename__ = "labels"
    __table_args__ = (UniqueConstraint("run_id", "gt_index", "annotator", name="uq_label"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id", index=True)
    gt_index: int
    annotator: str
    covered: bool
    evidence_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    note: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class PredLabelRow(SQLModel, table=True):
    """A person's decision on one predicted triple of one run: is it valid, and which
    ground-truth triples support it (the validity side; ``LabelRow`` is the coverage side).

    Added by migration 0002 to a database written before it existed.
    """

    __tablename__ = "pred_labels"
    __table_args__ = (UniqueConstraint("run_id", "pred_index", "annotator", name="uq_pred_label"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id", index=True)
    pred_index: int
    annotator: str
    valid: bool
    evidence_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))  # ground-truth indices
    note: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class LeaseRow(SQLModel, table=True):
    """Who drives a run (or a batch) right now: one row per key, claimed and renewed atomically.

    In the first release's schema (migration 0001). Times are seconds since the epoch (``time.time()``).
    """

    __tablename__ = "leases"
    key: str = Field(primary_key=True)  # "run:<run id>" or "batch:<batch id>"
    owner: str  # host:pid:random, unique per claim
    pid: int
    host: str
    acquired_at: float
    expires_at: float


class ProviderBackoffRow(SQLModel, table=True):
    """Until when no call goes to a provider that answered 429 ("too many requests"), shared by the
    queue workers of every host (``runner._pacing``). Seconds since the epoch. Added by migration
    0009; not copied by ``db copy`` (like leases: it belongs to the running processes)."""

    __tablename__ = "provider_backoff"
    provider: str = Field(primary_key=True)
    until: float
    updated_at: float


class StopRequestRow(SQLModel, table=True):
    """A request to stop a run, written by the app server a person pressed Stop on; the server
    that drives the run sees it and cancels the run (``store.stops``). One row per run; times are
    seconds since the epoch. Added by migration 0003; not copied by ``db copy`` (like leases)."""

    __tablename__ = "stop_requests"
    run_id: str = Field(primary_key=True)
    requested_by: str  # the owner string of who asked (``user:<login>`` / ``client:<digest>``)
    requested_at: float
    done_at: Optional[float] = None  # when the driving server cancelled the run


class LoginRow(SQLModel, table=True):
    """A person's login to the app, shared by the app servers of one database (``store.logins``):
    the sha256 of the login token the browser holds as a cookie, never the token itself. Times are
    seconds since the epoch; a row past ``expires_at`` counts for nothing. Added by migration 0004;
    not copied by ``db copy`` (like leases)."""

    __tablename__ = "logins"
    token_sha256: str = Field(primary_key=True)
    username: str = Field(index=True)
    created_at: float
    expires_at: float


class LoginFailureRow(SQLModel, table=True):
    """Failed logins under one key (``login:<name>`` or ``addr:<client address>``), shared by the
    app servers of one database (``store.logins``): how many since the key last logged in or went
    quiet, when the last one was, and until when the key is refused. Added by migration 0006; not
    copied by ``db copy`` (like logins)."""

    __tablename__ = "login_failures"
    key: str = Field(primary_key=True)
    failures: int
    last_at: float
    locked_until: float


class CampaignRow(SQLModel, table=True):
    """A labelling campaign: which runs, who labels, which sides, how many labels per item.

    The run list is fixed when the campaign is made (a filter is resolved then and kept for the
    record). Added by migration 0002 to an older file; the schema version stays.
    """

    __tablename__ = "campaigns"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    runs_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))  # run ids, in queue order
    filter_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))  # the filter it came from
    annotators_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    sides_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))  # "coverage" / "validity"
    overlap: int = 2
    created_by: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    # blind (the default): an annotator sees neither a judge's verdict nor the run's agent or score
    # before labelling an item; not blind: a judge-review campaign, the verdict shown on the card.
    # Added by migration 0011 (a campaign made before was blind: today's rule)
    blind: bool = Field(default=True, sa_column=Column(Boolean, nullable=False, server_default=true()))

    def run_ids(self) -> list[str]:
        return [str(x) for x in json.loads(self.runs_json or "[]")]

    def annotators(self) -> list[str]:
        return [str(x) for x in json.loads(self.annotators_json or "[]")]

    def sides(self) -> list[str]:
        return [str(x) for x in json.loads(self.sides_json or "[]")]

    def filters(self) -> dict[str, Any]:
        return _object(self.filter_json)


class AdjudicationRow(SQLModel, table=True):
    """The final human label of one item (a run's ground-truth triple on the coverage side, a
    predicted triple on the validity side) where annotators disagreed, given by a third person."""

    __tablename__ = "adjudications"
    __table_args__ = (UniqueConstraint("run_id", "side", "item_index", name="uq_adjudication"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id", index=True)
    side: str  # "coverage" | "validity"
    item_index: int
    label: bool  # covered (coverage) / valid (validity)
    adjudicator: str
    comment: str = Field(default="", sa_column=Column(Text, nullable=False))
    campaign: str = ""  # the campaign it was resolved in
    created_at: datetime = Field(default_factory=utcnow)


class AdjudicationHistoryRow(SQLModel, table=True):
    """An adjudication that a later one replaced: the old row's label, adjudicator, comment,
    campaign and time as they were, with when it was replaced and by whom (the new adjudicator).
    Written by ``put_adjudication`` in the transaction that replaces it; never changed after.
    Added by migration 0007; copied by ``db copy``."""

    __tablename__ = "adjudication_history"
    __table_args__ = (Index("ix_adjudication_history_item", "run_id", "side", "item_index"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id")
    side: str  # "coverage" | "validity"
    item_index: int
    label: bool
    adjudicator: str
    comment: str = Field(default="", sa_column=Column(Text, nullable=False))
    campaign: str = ""
    created_at: datetime  # when the replaced adjudication was given
    replaced_at: datetime = Field(default_factory=utcnow)
    replaced_by: str  # the adjudicator of the adjudication that replaced it


class StudyRow(SQLModel, table=True):
    """A study for outside players: which personas, the agent configuration, plays per persona,
    the time limit, the consent text, whether a shadow simulator runs and whether annotators see
    the agent (``config_json``, read by ``vibesearch.app._studies``). Added by migration 0008."""

    __tablename__ = "studies"
    id: str = Field(primary_key=True)
    name: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    config_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    created_by: str = ""
    created_at: float = 0.0


class StudyCodeRow(SQLModel, table=True):
    """One play of a study: the one-time code of its link (only its sha256), the persona it plays,
    and once the code is used, the player login it made and the run played. Added by migration
    0008."""

    __tablename__ = "study_codes"
    code_sha256: str = Field(primary_key=True)
    study_id: str = Field(foreign_key="studies.id", index=True)
    slot: int
    task_id: str
    created_at: float = 0.0
    used_at: Optional[float] = None
    player: Optional[str] = Field(default=None, index=True)  # the login name the code made
    run_id: Optional[str] = None


# what a voter picks on a vote card: side A's run, side B's run, a tie, or both answers bad (the one
# vocabulary: ``labels.votes`` and every file format read it from here)
VoteWinner = Literal["a", "b", "tie", "both_bad"]


class VoteRow(SQLModel, table=True):
    """One person's pairwise preference between two finished runs of one task: ``run_a`` was shown
    on side A (the left), ``run_b`` on side B, so the card's randomised sides are the stored order
    and ``winner`` names a side. ``attention``: the side an attention item expects (None: an
    ordinary pair). A voter votes a pair once, in either order (``labels.votes`` checks the reverse
    order; the constraint this one). ``campaign``: the vote campaign it was cast in, if any.
    Added by migration 0012; copied by ``db copy``."""

    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("run_a", "run_b", "voter", name="uq_vote"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_a: str = Field(foreign_key="runs.id", index=True)
    run_b: str = Field(foreign_key="runs.id", index=True)
    winner: VoteWinner = Field(sa_type=AutoString)
    voter: str = Field(index=True)
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
    attention: Optional[VoteWinner] = Field(default=None, sa_type=AutoString)
    campaign: Optional[str] = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow)


class WebBlobRow(SQLModel, table=True):
    """One content of a recorded web (a page's extracted text or raw body), stored once whichever
    runs fetched it: ``sha256`` of the bytes, their ``size``, compressed by ``codec`` (zlib).
    The runs' ``web`` events name it (``store.web``). Added by migration 0013."""

    __tablename__ = "web_blobs"
    sha256: str = Field(primary_key=True)
    size: int
    codec: str = "zlib"
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: float = 0.0


class VoteCampaignRow(SQLModel, table=True):
    """A vote campaign: the pairs of runs (of one task each) its voters vote on, who votes and how
    many votes each pair needs (``overlap``). ``items_json``: the pairs in queue order, each
    ``{"run_x", "run_y", "expect"}`` — ``expect`` is the run an attention item expects to win (None:
    an ordinary pair); which run is shown on side A is drawn per voter (``labels.vote_campaigns``).
    ``spec_json``: what it was made from (configurations, filter, tasks, pairs per configuration
    pair, seed), for the record. Added by migration 0014; copied by ``db copy``."""

    __tablename__ = "vote_campaigns"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    items_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    spec_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    annotators_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    overlap: int = 1
    created_by: str = ""
    created_at: datetime = Field(default_factory=utcnow)

    def items(self) -> list[dict[str, Any]]:
        return [dict(x) for x in json.loads(self.items_json or "[]")]

    def annotators(self) -> list[str]:
        return [str(x) for x in json.loads(self.annotators_json or "[]")]

    def spec(self) -> dict[str, Any]:
        return _object(self.spec_json)


Index("ix_events_run_seq", col(EventRow.run_id), col(EventRow.seq))
