"""What came after the first release: runs keep their ``RunConfig``, scores their protocol and
prompt source; validity labels, labelling campaigns and adjudications.

Written to be applied to any file the releases in between made: those added the same tables and
columns on the fly (``create_all`` and ``store._columns``), so each is added only when missing.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_COLUMNS = {"runs": ["run_config_json"], "scores": ["protocol", "prompt_source"]}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    for table, names in _COLUMNS.items():
        have = {c["name"] for c in inspector.get_columns(table)}
        for name in names:
            if name not in have:
                op.add_column(table, sa.Column(name, sa.Text(), nullable=True))
    if "leases" not in tables:  # files from before the first release's leases
        op.create_table(
            "leases",
            sa.Column("key", sa.String(), nullable=False), sa.Column("owner", sa.String(), nullable=False),
            sa.Column("pid", sa.Integer(), nullable=False), sa.Column("host", sa.String(), nullable=False),
            sa.Column("acquired_at", sa.Float(), nullable=False), sa.Column("expires_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("key"),
        )
    if "pred_labels" not in tables:
        op.create_table(
            "pred_labels",
            sa.Column("id", sa.Integer(), nullable=False), sa.Column("run_id", sa.String(), nullable=False),
            sa.Column("pred_index", sa.Integer(), nullable=False), sa.Column("annotator", sa.String(), nullable=False),
            sa.Column("valid", sa.Boolean(), nullable=False), sa.Column("evidence_json", sa.Text(), nullable=False),
            sa.Column("note", sa.String(), nullable=False), sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("run_id", "pred_index", "annotator", name="uq_pred_label"),
            sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
        )
        op.create_index("ix_pred_labels_run_id", "pred_labels", ["run_id"])
    if "campaigns" not in tables:
        op.create_table(
            "campaigns",
            sa.Column("id", sa.Integer(), nullable=False), sa.Column("name", sa.Text(), nullable=False, unique=True),
            *[sa.Column(n, sa.Text(), nullable=False) for n in ("runs_json", "filter_json", "annotators_json", "sides_json")],
            sa.Column("overlap", sa.Integer(), nullable=False), sa.Column("created_by", sa.String(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
    if "adjudications" not in tables:
        op.create_table(
            "adjudications",
            sa.Column("id", sa.Integer(), nullable=False), sa.Column("run_id", sa.String(), nullable=False),
            sa.Column("side", sa.String(), nullable=False), sa.Column("item_index", sa.Integer(), nullable=False),
            sa.Column("label", sa.Boolean(), nullable=False), sa.Column("adjudicator", sa.String(), nullable=False),
            sa.Column("comment", sa.Text(), nullable=False), sa.Column("campaign", sa.String(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("run_id", "side", "item_index", name="uq_adjudication"),
            sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
        )
        op.create_index("ix_adjudications_run_id", "adjudications", ["run_id"])


def downgrade() -> None:
    for table in ("adjudications", "campaigns", "pred_labels"):
        op.drop_table(table)
    op.drop_column("scores", "prompt_source")
    op.drop_column("scores", "protocol")
    op.drop_column("runs", "run_config_json")
