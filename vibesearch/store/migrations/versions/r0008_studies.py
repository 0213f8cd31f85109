"""Studies for outside players (``store.studies``): a study's configuration and the one-time
codes of its links (only each code's sha256), with the player and run each used code made.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "studies" not in present:
        op.create_table(
            "studies",
            sa.Column("id", sa.String(), nullable=False), sa.Column("name", sa.Text(), nullable=False),
            sa.Column("config_json", sa.Text(), nullable=False), sa.Column("created_by", sa.String(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("name"),
        )
    if "study_codes" not in present:
        op.create_table(
            "study_codes",
            sa.Column("code_sha256", sa.String(), nullable=False), sa.Column("study_id", sa.String(), nullable=False),
            sa.Column("slot", sa.Integer(), nullable=False), sa.Column("task_id", sa.String(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False), sa.Column("used_at", sa.Float(), nullable=True),
            sa.Column("player", sa.String(), nullable=True), sa.Column("run_id", sa.String(), nullable=True),
            sa.ForeignKeyConstraint(["study_id"], ["studies.id"]), sa.PrimaryKeyConstraint("code_sha256"),
        )
        op.create_index("ix_study_codes_study_id", "study_codes", ["study_id"])
        op.create_index("ix_study_codes_player", "study_codes", ["player"])


def downgrade() -> None:
    op.drop_index("ix_study_codes_player", table_name="study_codes")
    op.drop_index("ix_study_codes_study_id", table_name="study_codes")
    op.drop_table("study_codes")
    op.drop_table("studies")
