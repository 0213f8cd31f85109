"""A labelling campaign is blind or not (``campaigns.blind``): blind, an annotator sees neither a
judge's verdict nor the run's agent or score before labelling an item; not blind, the campaign is a
judge review and the verdict is on the card. Campaigns stored before were labelled blind, so they
get ``true`` (the column's default, which an older vibesearch writing a campaign also gets).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("campaigns")}  # made by 0002
    if "blind" not in have:
        op.add_column("campaigns", sa.Column("blind", sa.Boolean(), nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("blind")
