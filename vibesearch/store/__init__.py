"""Persistence only: the SQLite store of runs, their events, graphs, scores, verdicts and labels.

The run's domain model (events, the conversation, ``RunConfig``) lives in ``vibesearch.run``.
"""

from ._open import DamagedDatabase, ReadOnlyDatabase, StoreOpenError
from .db import RunNotFound, SchemaError, Store, build_run, new_run_id, open_db
from .leases import LeaseHeld, LeaseLost
from .tables import SCHEMA_VERSION, GraphRow, LabelRow, PredLabelRow, Run, ScoreRow, VerdictRow

__all__ = [
    "SCHEMA_VERSION",
    "DamagedDatabase",
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
    "StoreOpenError",
    "VerdictRow",
    "build_run",
    "new_run_id",
    "open_db",
]
