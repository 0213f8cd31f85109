"""Repeated judgements of one graph (``vibesearch score --repeat K``): a score keeps the set it
belongs to (``repeat_set``, shared by the K judgements made together) and its place in it
(``repeat_index``, 1..K). Scores stored before, and single judgements, leave both NULL.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_COLUMNS = ("repeat_set", "repeat_index")


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("scores")}
    if "repeat_set" not in have:
        op.add_column("scores", sa.Column("repeat_set", sa.Text(), nullable=True))
    if "repeat_index" not in have:
        op.add_column("scores", sa.Column("repeat_index", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("scores") as batch:
        for name in _COLUMNS:
            batch.drop_column(name)
