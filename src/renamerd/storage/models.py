"""SQLModel tables. Every schema change goes through an Alembic migration in migrations/versions.

Times are timezone-aware UTC datetimes (`utcnow()`); sqlmodel stores them as UTC on both
SQLite and PostgreSQL and refuses naive ones.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str, length: int = 20) -> str:
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: str = Field(default_factory=lambda: new_id("usr_"), primary_key=True, max_length=40)
    email: str = Field(index=True, unique=True, max_length=320)
    name: str = Field(default="", max_length=200)
    created_at: datetime = Field(default_factory=utcnow)
    disabled: bool = Field(default=False)
    #: argon2id hash of the web password (None: signs in by invitation or OpenID Connect only)
    password_hash: str | None = Field(default=None, max_length=200)
    #: may use the Admin page (users, credits, health)
    is_admin: bool = Field(default=False)


class Team(SQLModel, table=True):
    __tablename__ = "teams"

    id: str = Field(default_factory=lambda: new_id("team_"), primary_key=True, max_length=40)
    name: str = Field(unique=True, max_length=200)
    created_at: datetime = Field(default_factory=utcnow)


class TeamMember(SQLModel, table=True):
    """A user is in at most one team: user_id is the primary key."""

    __tablename__ = "team_members"

    user_id: str = Field(foreign_key="users.id", primary_key=True, max_length=40)
    team_id: str = Field(foreign_key="teams.id", index=True, max_length=40)
    joined_at: datetime = Field(default_factory=utcnow)


class ApiToken(SQLModel, table=True):
    """An API token, stored only as the SHA-256 of its full text."""

    __tablename__ = "api_tokens"

    id: str = Field(default_factory=lambda: new_id("tok_", 16), primary_key=True, max_length=40)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=40)
    label: str = Field(default="", max_length=200)
    token_hash: str = Field(unique=True, max_length=64)
    #: first characters of the token, for recognising it in lists ("rt_AbC1…")
    hint: str = Field(default="", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None
    #: refused from this time on, like a revoked token (None: never expires)
    expires_at: datetime | None = None


class CreditLot(SQLModel, table=True):
    __tablename__ = "credit_lots"
    __table_args__ = (Index("ix_credit_lots_user_expires", "user_id", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(foreign_key="users.id", max_length=40)
    amount: int
    remaining: int
    source: str = Field(max_length=20)  # signup | grant | purchase
    reason: str = Field(default="", max_length=500)
    granted_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class CreditLedger(SQLModel, table=True):
    """Every change of a balance: grant, consume, refund, deduct (negative deltas take)."""

    __tablename__ = "credit_ledger"

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=40)
    lot_id: int | None = Field(default=None, foreign_key="credit_lots.id")
    delta: int
    kind: str = Field(max_length=20)  # grant | consume | refund | deduct
    reason: str = Field(default="", max_length=500)
    #: what the change is for (job id, request id); consume is unique per (user, ref)
    ref: str | None = Field(default=None, index=True, max_length=200)
    created_at: datetime = Field(default_factory=utcnow)


class CreditCharge(SQLModel, table=True):
    """One consumption of one credit for one ref: the idempotency anchor of charging.

    state: reserved (taken, outcome open) -> charged | refunded.
    """

    __tablename__ = "credit_charges"
    __table_args__ = (UniqueConstraint("user_id", "ref", name="uq_credit_charges_user_ref"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(foreign_key="users.id", max_length=40)
    ref: str = Field(max_length=200)
    lot_id: int | None = Field(default=None, foreign_key="credit_lots.id")
    amount: int = 1
    state: str = Field(default="reserved", max_length=20)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class IdempotencyRecord(SQLModel, table=True):
    """A finished rename request replayed for a repeated Idempotency-Key (24 h)."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("user_id", "key", name="uq_idempotency_user_key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(foreign_key="users.id", max_length=40)
    key: str = Field(max_length=255)
    request_hash: str = Field(max_length=64)
    status_code: int = 0  # 0 while the first request is still running
    body: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utcnow, index=True)


class ConnectionState(SQLModel, table=True):
    """Per configured connection: its cursor and who polls it now."""

    __tablename__ = "connection_states"

    name: str = Field(primary_key=True, max_length=200)
    cursor: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    poll_owner: str | None = Field(default=None, max_length=200)
    poll_lease_until: datetime | None = None
    last_poll_at: datetime | None = None
    status: str = Field(default="ok", max_length=20)  # ok | stopped
    error: str | None = Field(default=None, max_length=2000)


class UserConnection(SQLModel, table=True):
    """A folder of a user's drive watched by renamerd, made in the web app or through
    `/api/v1/connections` (the config file's `[[connections]]` are not stored here). Its
    refresh token is a StoredSecret under the same name; the provider's app settings come
    from `[providers.<provider>]`."""

    __tablename__ = "user_connections"

    name: str = Field(primary_key=True, max_length=200)
    owner_id: str = Field(foreign_key="users.id", index=True, max_length=40)
    provider: str = Field(max_length=40)
    watch: str = Field(default="", max_length=1000)
    target: str = Field(default="", max_length=1000)
    strategy: str = Field(default="by_date_type", max_length=40)
    template_mode: str = Field(default="auto", max_length=20)
    custom_template: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    language: str = Field(default="auto", max_length=10)
    #: the confidence policy ("keep" | "review" | "rename") and threshold (0..1); None: the
    #: server's [engine] below_confidence / confidence_threshold (migration 0007)
    below_confidence: str | None = Field(default=None, max_length=10)
    confidence_threshold: float | None = None
    #: suggest only: each document's suggested name is recorded, nothing is moved
    dry_run: bool = Field(default=False)
    paused: bool = Field(default=False)
    poll_seconds: float = 60.0
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Job(SQLModel, table=True):
    """One document of one connection: unique per (connection, file_id, revision)."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("connection", "file_id", "revision", name="uq_jobs_file_revision"),
        Index("ix_jobs_state_next", "state", "next_attempt_at"),
        # the grant hook's look-up of an owner's pending jobs; partial, so that the state
        # changes of every other job leave it alone (migration 0002)
        Index("ix_jobs_owner_pending", "owner_id", "created_at",
              sqlite_where=text("state = 'pending_credits'"),
              postgresql_where=text("state = 'pending_credits'")),
        # a poll looks its files up by revision (its own moves have other ids, same revision)
        Index("ix_jobs_connection_revision", "connection", "revision"),
        # an owner's jobs, newest first (the Jobs page, GET /api/v1/jobs); written once per
        # job, at its insert: neither column ever changes (migration 0003)
        Index("ix_jobs_owner_id", "owner_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    connection: str = Field(max_length=200)
    owner_id: str = Field(foreign_key="users.id", max_length=40)
    file_id: str = Field(max_length=1000)
    revision: str = Field(max_length=200)
    source_path: str = Field(max_length=4000)
    name: str = Field(max_length=1000)
    size: int = 0
    # queued | running | done | failed | skipped | pending_credits | undone
    state: str = Field(default="queued", max_length=20)
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)
    lease_owner: str | None = Field(default=None, max_length=200)
    lease_until: datetime | None = None
    lease_generation: int = 0
    planned_folder: str | None = Field(default=None, max_length=4000)
    planned_name: str | None = Field(default=None, max_length=1000)
    dest_path: str | None = Field(default=None, max_length=4000)
    dest_file_id: str | None = Field(default=None, max_length=1000)
    charge_ref: str | None = Field(default=None, max_length=200)
    result: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    error: str | None = Field(default=None, max_length=4000)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class JournalEntry(SQLModel, table=True):
    """A move made by renamerd: enough to undo it."""

    __tablename__ = "journal"

    id: int | None = Field(default=None, primary_key=True)
    job_id: int | None = Field(default=None, index=True)
    connection: str = Field(max_length=200)
    file_id: str = Field(max_length=1000)
    old_path: str = Field(max_length=4000)
    new_path: str = Field(max_length=4000)
    new_file_id: str | None = Field(default=None, max_length=1000)
    #: groups the moves of one `renamerd rename --apply` run (undo --batch)
    batch: str | None = Field(default=None, index=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    undone_at: datetime | None = None


class StoredSecret(SQLModel, table=True):
    """A refresh token from `renamerd connect`, encrypted with the configured key."""

    __tablename__ = "stored_secrets"

    connection: str = Field(primary_key=True, max_length=200)
    kind: str = Field(primary_key=True, max_length=50)
    ciphertext: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)


class WebSession(SQLModel, table=True):
    """A signed-in browser. Only the SHA-256 of the session id (the cookie) is stored."""

    __tablename__ = "web_sessions"

    id_hash: str = Field(primary_key=True, max_length=64)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=40)
    #: the token every state-changing form and fetch() of this session carries
    csrf_token: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    #: the absolute end (created_at + web.session_max_hours)
    expires_at: datetime = Field(index=True)
    #: how the user signed in: password | invite | oidc
    method: str = Field(default="password", max_length=20)
    address: str = Field(default="", max_length=64)
    user_agent: str = Field(default="", max_length=300)


class Invitation(SQLModel, table=True):
    """A one-time link where a user picks a password. Only the token's SHA-256 is stored."""

    __tablename__ = "invitations"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(unique=True, max_length=64)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=40)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class DaemonProcess(SQLModel, table=True):
    """A running `renamerd run` / `renamerd worker` process, beating while it lives (the
    admin's "workers alive")."""

    __tablename__ = "daemon_processes"

    identity: str = Field(primary_key=True, max_length=200)
    started_at: datetime = Field(default_factory=utcnow)
    last_beat_at: datetime = Field(default_factory=utcnow, index=True)
    workers: int = 0
    polling: bool = True


class NotificationSent(SQLModel, table=True):
    """One notification of one kind to one user on one day (UTC): the row is claimed before
    sending, so processes and restarts never send the same kind twice a day."""

    __tablename__ = "notifications_sent"
    __table_args__ = (UniqueConstraint("user_id", "kind", "day", name="uq_notifications_day"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(foreign_key="users.id", max_length=40)
    #: pending_credits | connection_stopped | connection_failing | digest
    kind: str = Field(max_length=40)
    #: the UTC day, YYYY-MM-DD
    day: str = Field(max_length=10)
    #: sending | sent | failed
    status: str = Field(default="sending", max_length=20)
    error: str | None = Field(default=None, max_length=2000)
    created_at: datetime = Field(default_factory=utcnow)


class NotificationOptOut(SQLModel, table=True):
    """A user who does not want notifications of one kind."""

    __tablename__ = "notification_optouts"

    user_id: str = Field(foreign_key="users.id", primary_key=True, max_length=40)
    kind: str = Field(primary_key=True, max_length=40)
    created_at: datetime = Field(default_factory=utcnow)
