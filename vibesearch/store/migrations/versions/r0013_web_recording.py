"""A run's recorded web (``store.web``, docs/web.md): each content a recording keeps — a page's
extracted text, its raw body — stored once by its sha256, zlib-compressed, whichever run fetched
it. The exchanges themselves are the runs' ``web`` events (``run.events.WebEvent``), which name
their contents by sha256.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "web_blobs" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.create_table(
            "web_blobs",
            sa.Column("sha256", sa.String(), nullable=False),
            sa.Column("size", sa.Integer(), nullable=False),
            sa.Column("codec", sa.String(), nullable=False),
            sa.Column("data", sa.LargeBinary(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("sha256"),
        )


def downgrade() -> None:
    op.drop_table("web_blobs")
