"""Logins shared by the app servers of one database (``store.logins``): the sha256 of each login
token, never the token.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "logins" in set(sa.inspect(op.get_bind()).get_table_names()):
        return
    op.create_table(
        "logins",
        sa.Column("token_sha256", sa.String(), nullable=False), sa.Column("username", sa.String(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False), sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("token_sha256"),
    )
    op.create_index("ix_logins_username", "logins", ["username"])


def downgrade() -> None:
    op.drop_index("ix_logins_username", table_name="logins")
    op.drop_table("logins")
