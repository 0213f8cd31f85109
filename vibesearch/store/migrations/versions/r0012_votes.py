"""Pairwise preference votes (``store.votes``): one person's pick between two finished runs of one
task (side A's run, side B's run, a tie or both bad), with an optional reason, the side an
attention item expects, and the vote campaign it was cast in.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_INDEXED = ("run_a", "run_b", "voter", "campaign")


def upgrade() -> None:
    if "votes" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_a", sa.String(), nullable=False), sa.Column("run_b", sa.String(), nullable=False),
        sa.Column("winner", sa.String(), nullable=False), sa.Column("voter", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False), sa.Column("attention", sa.String(), nullable=True),
        sa.Column("campaign", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_a"], ["runs.id"]), sa.ForeignKeyConstraint(["run_b"], ["runs.id"]),
        sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("run_a", "run_b", "voter", name="uq_vote"),
    )
    for column in _INDEXED:
        op.create_index(f"ix_votes_{column}", "votes", [column])


def downgrade() -> None:
    for column in _INDEXED:
        op.drop_index(f"ix_votes_{column}", table_name="votes")
    op.drop_table("votes")
