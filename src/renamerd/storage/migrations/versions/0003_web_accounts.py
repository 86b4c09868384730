"""web accounts: passwords and the admin flag, web sessions, invitations, daemon processes

The web app signs users in with a password (argon2id hash on `users`) or an invitation link,
keeps server-side sessions (only the SHA-256 of the session id is stored), lists an owner's jobs
newest first (`ix_jobs_owner_id`: written at a job's insert only, its columns never change) and
shows admins which daemon processes are alive (each beats in `daemon_processes`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_STR = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("password_hash", _STR(length=200), nullable=True))
        batch_op.add_column(sa.Column("is_admin", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    op.create_table(
        "web_sessions",
        sa.Column("id_hash", _STR(length=64), nullable=False),
        sa.Column("user_id", _STR(length=40), nullable=False),
        sa.Column("csrf_token", _STR(length=64), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("last_seen_at", _TIME(), nullable=False),
        sa.Column("expires_at", _TIME(), nullable=False),
        sa.Column("method", _STR(length=20), nullable=False),
        sa.Column("address", _STR(length=64), nullable=False),
        sa.Column("user_agent", _STR(length=300), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id_hash"),
    )
    op.create_index("ix_web_sessions_user_id", "web_sessions", ["user_id"], unique=False)
    op.create_index("ix_web_sessions_expires_at", "web_sessions", ["expires_at"], unique=False)
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", _STR(length=64), nullable=False),
        sa.Column("user_id", _STR(length=40), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("expires_at", _TIME(), nullable=False),
        sa.Column("used_at", _TIME(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_invitations_user_id", "invitations", ["user_id"], unique=False)
    op.create_table(
        "daemon_processes",
        sa.Column("identity", _STR(length=200), nullable=False),
        sa.Column("started_at", _TIME(), nullable=False),
        sa.Column("last_beat_at", _TIME(), nullable=False),
        sa.Column("workers", sa.Integer(), nullable=False),
        sa.Column("polling", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("identity"),
    )
    op.create_index("ix_daemon_processes_last_beat_at", "daemon_processes", ["last_beat_at"],
                    unique=False)
    op.create_index("ix_jobs_owner_id", "jobs", ["owner_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_jobs_owner_id", table_name="jobs")
    op.drop_index("ix_daemon_processes_last_beat_at", table_name="daemon_processes")
    op.drop_table("daemon_processes")
    op.drop_index("ix_invitations_user_id", table_name="invitations")
    op.drop_table("invitations")
    op.drop_index("ix_web_sessions_expires_at", table_name="web_sessions")
    op.drop_index("ix_web_sessions_user_id", table_name="web_sessions")
    op.drop_table("web_sessions")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("is_admin")
        batch_op.drop_column("password_hash")
