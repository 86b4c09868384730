"""connections made by users in the web app or the API (user_connections)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 06:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        "user_connections",
        sa.Column("name", text(length=200), primary_key=True),
        sa.Column("owner_id", text(length=40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("provider", text(length=40), nullable=False),
        sa.Column("watch", text(length=1000), nullable=False),
        sa.Column("target", text(length=1000), nullable=False),
        sa.Column("strategy", text(length=40), nullable=False),
        sa.Column("template_mode", text(length=20), nullable=False),
        sa.Column("custom_template", sa.Text(), nullable=True),
        sa.Column("language", text(length=10), nullable=False),
        sa.Column("dry_run", sa.Boolean(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("poll_seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_user_connections_owner_id", "user_connections", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_user_connections_owner_id", "user_connections")
    op.drop_table("user_connections")
