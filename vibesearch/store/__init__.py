"""SQLite storage: typed events, runs, graphs, scores, verdicts and human labels."""

from .conversation import Conversation, Step, Turn
from ._open import DamagedDatabase, ReadOnlyDatabase, StoreOpenError
from .db import RunNotFound, SchemaError, Store, build_run, new_run_id, open_db
from .leases import LeaseHeld, LeaseLost
from .events import (
    CompactionEvent,
    DecidedBy,
    Emit,
    EndEvent,
    ErrorEvent,
    EventData,
    GraphEvent,
    MessageEvent,
    NoteEvent,
    ReplyKind,
    StageEvent,
    StoredEvent,
    Termination,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
    parse_event,
)
from .tables import SCHEMA_VERSION, GraphRow, LabelRow, Run, ScoreRow, VerdictRow

__all__ = [name for name in dir() if not name.startswith("_")]
