"""The schema of the first release (what ``tests/data/prev_release.db`` holds).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _text(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.Text(), nullable=nullable)


def _str(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(), nullable=nullable)


def upgrade() -> None:
    op.create_table("meta", _str("key"), _str("value"), sa.PrimaryKeyConstraint("key"))
    op.create_table(
        "runs",
        _str("id"), _str("task_id"), _str("kind"), _str("status"), _str("termination", True), _str("agent"),
        _str("agent_model", True), _str("user"), _str("simulator_model", True), _str("search_backend"),
        _str("batch_id", True), sa.Column("run_index", sa.Integer(), nullable=False), _str("owner", True),
        _str("source"), _text("config_json"), _text("task_json"), _text("meta_json"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False), sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_runs_task_id", "runs", ["task_id"])
    op.create_index("ix_runs_batch_id", "runs", ["batch_id"])
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_table(
        "leases",
        _str("key"), _str("owner"), sa.Column("pid", sa.Integer(), nullable=False), _str("host"),
        sa.Column("acquired_at", sa.Float(), nullable=False), sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False), _str("run_id"), sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False), _str("kind"), _text("data_json"),
        sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("run_id", "seq", name="uq_event_run_seq"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
    )
    op.create_index("ix_events_run_seq", "events", ["run_id", "seq"])
    op.create_table(
        "graphs",
        sa.Column("id", sa.Integer(), nullable=False), _str("run_id"), _str("source"), _text("triples_json"),
        _text("raw_text"), _text("repaired_json"), _text("dropped_json"), sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"), sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
    )
    op.create_index("ix_graphs_run_id", "graphs", ["run_id"])
    op.create_table(
        "labels",
        sa.Column("id", sa.Integer(), nullable=False), _str("run_id"), sa.Column("gt_index", sa.Integer(), nullable=False),
        _str("annotator"), sa.Column("covered", sa.Boolean(), nullable=False), _text("evidence_json"), _str("note"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("run_id", "gt_index", "annotator", name="uq_label"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
    )
    op.create_index("ix_labels_run_id", "labels", ["run_id"])
    ints = [sa.Column(n, sa.Integer(), nullable=False) for n in ("n_gt", "n_pred", "n_covered", "n_valid", "n_unscored")]
    op.create_table(
        "scores",
        sa.Column("id", sa.Integer(), nullable=False), _str("run_id"), sa.Column("graph_id", sa.Integer(), nullable=True),
        _str("judge"), *[sa.Column(n, sa.Float(), nullable=False) for n in ("precision", "recall", "f1")], *ints,
        _text("details_json"), sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"), sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
        sa.ForeignKeyConstraint(["graph_id"], ["graphs.id"]),
    )
    op.create_index("ix_scores_run_id", "scores", ["run_id"])
    op.create_table(
        "verdicts",
        sa.Column("id", sa.Integer(), nullable=False), sa.Column("score_id", sa.Integer(), nullable=False), _str("run_id"),
        sa.Column("gt_index", sa.Integer(), nullable=False), sa.Column("covered", sa.Boolean(), nullable=True),
        _str("rule", True), _text("evidence_json"), _text("rationale"),
        sa.PrimaryKeyConstraint("id"), sa.ForeignKeyConstraint(["score_id"], ["scores.id"]),
    )
    op.create_index("ix_verdicts_run_id", "verdicts", ["run_id"])
    op.create_index("ix_verdicts_score_id", "verdicts", ["score_id"])
    # an older vibesearch reads this row (it refuses a file whose number is higher than its own)
    op.bulk_insert(sa.table("meta", sa.column("key", sa.String()), sa.column("value", sa.String())), [{"key": "schema_version", "value": "1"}])


def downgrade() -> None:
    for table in ("verdicts", "scores", "labels", "graphs", "events", "leases", "runs", "meta"):
        op.drop_table(table)
