"""jobs: the owner's pending jobs get a partial index instead of (owner_id, state)

The grant hook looks up one owner's `pending_credits` jobs by age. An index over every job's
(owner_id, state) served it, but every job changes state twice on its way to `done` (queued ->
running -> done), and each change rewrote an entry of that index: about a third of the cost of
the claim's UPDATE on SQLite. The partial index holds the pending jobs only, so the usual path
never touches it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 03:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_PENDING = sa.text("state = 'pending_credits'")


def upgrade() -> None:
    op.create_index("ix_jobs_owner_pending", "jobs", ["owner_id", "created_at"], unique=False,
                    sqlite_where=_PENDING, postgresql_where=_PENDING)
    op.drop_index("ix_jobs_owner_state", table_name="jobs")


def downgrade() -> None:
    op.create_index("ix_jobs_owner_state", "jobs", ["owner_id", "state"], unique=False)
    op.drop_index("ix_jobs_owner_pending", table_name="jobs")
