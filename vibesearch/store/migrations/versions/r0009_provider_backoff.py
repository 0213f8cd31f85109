"""A provider's shared back-off after a 429: until when the queue workers of every host send it
nothing (``runner._pacing``).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "provider_backoff" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "provider_backoff",
        sa.Column("provider", sa.String(), nullable=False), sa.Column("until", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("provider"),
    )


def downgrade() -> None:
    op.drop_table("provider_backoff")
