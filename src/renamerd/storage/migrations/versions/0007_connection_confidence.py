"""the confidence policy of user connections (below_confidence, confidence_threshold)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 06:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL: the server's [engine] below_confidence / confidence_threshold apply
    op.add_column("user_connections", sa.Column(
        "below_confidence", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=True))
    op.add_column("user_connections", sa.Column("confidence_threshold", sa.Float(),
                                                nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("user_connections") as batch:
        batch.drop_column("confidence_threshold")
        batch.drop_column("below_confidence")
