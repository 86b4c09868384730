"""operations: API tokens expire; notifications sent (one per kind, user and day) and opt-outs

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-25 03:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0005"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.create_table(
        "notifications_sent",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sqlmodel.sql.sqltypes.AutoString(length=40),
                  sa.ForeignKey("users.id"), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("day", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.UniqueConstraint("user_id", "kind", "day", name="uq_notifications_day"),
    )
    op.create_table(
        "notification_optouts",
        sa.Column("user_id", sqlmodel.sql.sqltypes.AutoString(length=40),
                  sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), primary_key=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("notification_optouts")
    op.drop_table("notifications_sent")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("expires_at")
