"""Stop requests: a person asks, on one app server, to stop a run another server drives.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "stop_requests" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "stop_requests",
        sa.Column("run_id", sa.String(), nullable=False), sa.Column("requested_by", sa.String(), nullable=False),
        sa.Column("requested_at", sa.Float(), nullable=False), sa.Column("done_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("run_id"),
    )


def downgrade() -> None:
    op.drop_table("stop_requests")
