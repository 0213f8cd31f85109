"""The adjudications a later adjudication replaced (``adjudication_history``), so that settling an
item again never loses what was decided before (``store.campaigns.put_adjudication``).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "adjudication_history" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "adjudication_history",
        sa.Column("id", sa.Integer(), nullable=False), sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("side", sa.String(), nullable=False), sa.Column("item_index", sa.Integer(), nullable=False),
        sa.Column("label", sa.Boolean(), nullable=False), sa.Column("adjudicator", sa.String(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False), sa.Column("campaign", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("replaced_by", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"), sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
    )
    op.create_index("ix_adjudication_history_item", "adjudication_history", ["run_id", "side", "item_index"])


def downgrade() -> None:
    op.drop_index("ix_adjudication_history_item", table_name="adjudication_history")
    op.drop_table("adjudication_history")
