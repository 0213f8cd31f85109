"""Vote campaigns (``store.votes``): the pairs of runs a campaign's voters vote on, its voters and
the votes each pair needs.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "vote_campaigns" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "vote_campaigns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False), sa.Column("items_json", sa.Text(), nullable=False),
        sa.Column("spec_json", sa.Text(), nullable=False), sa.Column("annotators_json", sa.Text(), nullable=False),
        sa.Column("overlap", sa.Integer(), nullable=False), sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("vote_campaigns")
