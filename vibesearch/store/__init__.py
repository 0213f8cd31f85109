"""Persistence only: the store (an SQLite file or a PostgreSQL database) of runs, their events, graphs, scores, verdicts and labels.

The run's domain model (events, the conversation, ``RunConfig``) lives in ``vibesearch.run``.
"""

from ._engine import make_engine, upgrade_database
from ._labels_bulk import put_labels_bulk
from ._url import DbTarget, db_target
from ._url import is_url as is_db_url
from ._open import DamagedDatabase, DatabaseUnreachable, ReadOnlyDatabase, StoreOpenError
from .campaigns import CampaignExists
from .db import RunNotFound, SchemaError, Store, build_run, new_run_id, open_db
from .leases import LeaseHeld, LeaseLost
from .logins import StoredLogin, login_digest
from .scores import record_score
from .stops import StopRequest
from .votes import VoteCampaignExists, VoteExists
from .tables import (
    SCHEMA_VERSION,
    AdjudicationRow,
    CampaignRow,
    GraphRow,
    LabelRow,
    PredLabelRow,
    Run,
    ScoreRow,
    TaskSnapshotError,
    VerdictRow,
    VoteCampaignRow,
    VoteRow,
    VoteWinner,
)

__all__ = [
    "SCHEMA_VERSION",
    "AdjudicationRow",
    "CampaignExists",
    "CampaignRow",
    "DbTarget",
    "DamagedDatabase",
    "DatabaseUnreachable",
    "GraphRow",
    "LabelRow",
    "LeaseHeld",
    "LeaseLost",
    "PredLabelRow",
    "ReadOnlyDatabase",
    "Run",
    "RunNotFound",
    "SchemaError",
    "ScoreRow",
    "Store",
    "StopRequest",
    "StoredLogin",
    "StoreOpenError",
    "TaskSnapshotError",
    "VerdictRow",
    "VoteCampaignExists",
    "VoteCampaignRow",
    "VoteExists",
    "VoteRow",
    "VoteWinner",
    "build_run",
    "db_target",
    "is_db_url",
    "login_digest",
    "new_run_id",
    "open_db",
    "put_labels_bulk",
    "record_score",
    "upgrade_database",
    "make_engine",
]
