"""Failed logins counted per login name and per client address (``store.login_failures``), so
every app server of one database slows down the same password guesser.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "login_failures" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "login_failures",
        sa.Column("key", sa.String(), nullable=False), sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.Float(), nullable=False), sa.Column("locked_until", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade() -> None:
    op.drop_table("login_failures")
