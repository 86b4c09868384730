"""What an admin changes about a user: the admin flag, disabled or enabled, deleted.

A **disabled** user cannot sign in (password, invitation, OpenID Connect), their web sessions end
at once, and their API tokens and OAuth access tokens are refused (see `Accounts.authenticate`
and the API's token check). Their connections are not polled (runtime/poller.py) and their
queued jobs are paused: not run, not failed, each resumes where it was on enable. A job already
running finishes. Enabling gives the same tokens back; sessions stay ended.

A **deleted** user is gone except for what the books need: connections they made (with their
stored refresh tokens), tokens, sessions, invitations,
notification state, stored request bodies (idempotency), jobs and their journal are deleted;
the user row stays as an anonymous tombstone (no e-mail, no name, no password, disabled), so
the credit ledger, lots and charges keep adding up without naming anyone. A user still named
as the owner of a connection in the config file cannot be deleted until that connection is
removed from the file (the daemon would create the account again).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session, col, delete, select, update

from renamerd.config import Settings
from renamerd.service.accounts import AccountError, NotFoundError, normalize_email
from renamerd.service.jobs.states import QUEUED
from renamerd.service.web_sessions import WebSessions
from renamerd.storage.database import Database
from renamerd.storage.models import (
    ApiToken,
    ConnectionState,
    IdempotencyRecord,
    Invitation,
    Job,
    JournalEntry,
    NotificationOptOut,
    NotificationSent,
    StoredSecret,
    TeamMember,
    User,
    UserConnection,
    WebSession,
)

#: next_attempt_at of a paused job: never due until its owner is enabled again
PAUSED_UNTIL = datetime(9999, 1, 1, tzinfo=UTC)
PAUSED_REASON = "paused: the account is disabled"
#: the e-mail domain of deleted users' tombstones (reserved: RFC 2606)
DELETED_DOMAIN = "deleted.invalid"


class UserAdmin:
    """Admin operations on users of one database. Each method is safe to repeat."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _find(self, s: Session, email: str) -> User:
        email = normalize_email(email)
        user = s.exec(select(User).where(User.email == email)).first()
        if user is None:
            raise NotFoundError(f"no user with e-mail {email}")
        return user

    def _change(self, email: str, **values: object) -> User:
        with self.db.write_session() as s:
            user = self._find(s, email)
            for key, value in values.items():
                setattr(user, key, value)
            s.add(user)
            return user

    def set_admin(self, email: str, on: bool = True) -> User:
        """Give (or take, `on=False`) the admin flag. Raises NotFoundError."""
        return self._change(email, is_admin=on)

    def set_disabled(self, email: str, disabled: bool = True) -> User:
        """Disable (ending every web session, pausing every queued job) or enable (resuming
        them). Raises NotFoundError."""
        with self.db.write_session() as s:
            user = self._find(s, email)
            user.disabled = disabled
            s.add(user)
            if disabled:
                s.exec(update(Job).where(  # type: ignore[call-overload]
                    col(Job.owner_id) == user.id, col(Job.state) == QUEUED)
                    .values(next_attempt_at=PAUSED_UNTIL, error=PAUSED_REASON))
            else:
                s.exec(update(Job).where(  # type: ignore[call-overload]
                    col(Job.owner_id) == user.id, col(Job.state) == QUEUED,
                    col(Job.error) == PAUSED_REASON)
                    .values(next_attempt_at=col(Job.created_at), error=None))  # due now
        if disabled:
            WebSessions(self.db).end_all(user.id)
        return user

    def delete(self, email: str, settings: Settings | None = None) -> User:
        """Delete the user (see the module's docstring); returns the tombstone. With
        `settings`, the user's connections' sign-ins are revoked at their providers first
        (best effort), and a user owning connections of its config file is refused (raises
        AccountError). Raises NotFoundError. Not undoable."""
        email = normalize_email(email)
        owners = {normalize_email(c.owner) for c in settings.connections} if settings else set()
        if email in owners:
            raise AccountError(f"{email} owns connections in the config file; remove them "
                               "from it (and reload) before deleting the account")
        if settings is not None:
            from renamerd.service.connections import Connections

            with self.db.session() as s:
                found = self._find(s, email)
            store = Connections(self.db, settings)
            for row in store.list_of(found.id):
                store.revoke(row)
        with self.db.write_session() as s:
            user = self._find(s, email)
            uid = user.id
            names = select(UserConnection.name).where(col(UserConnection.owner_id) == uid)
            s.exec(delete(StoredSecret).where(  # type: ignore[call-overload]
                col(StoredSecret.connection).in_(names)))
            s.exec(delete(ConnectionState).where(  # type: ignore[call-overload]
                col(ConnectionState.name).in_(names)))
            s.exec(delete(UserConnection).where(  # type: ignore[call-overload]
                col(UserConnection.owner_id) == uid))
            job_ids = select(Job.id).where(col(Job.owner_id) == uid)
            s.exec(delete(JournalEntry).where(  # type: ignore[call-overload]
                col(JournalEntry.job_id).in_(job_ids)))
            for table, column in ((Job, Job.owner_id), (ApiToken, ApiToken.user_id),
                                  (WebSession, WebSession.user_id),
                                  (Invitation, Invitation.user_id),
                                  (IdempotencyRecord, IdempotencyRecord.user_id),
                                  (NotificationSent, NotificationSent.user_id),
                                  (NotificationOptOut, NotificationOptOut.user_id),
                                  (TeamMember, TeamMember.user_id)):
                s.exec(delete(table).where(col(column) == uid))  # type: ignore[call-overload]
            user.email = f"{uid}@{DELETED_DOMAIN}"
            user.name = ""
            user.password_hash = None
            user.disabled = True
            user.is_admin = False
            s.add(user)
            return user


def is_deleted(user: User) -> bool:
    """Whether `user` is the tombstone of a deleted account."""
    return user.email.endswith("@" + DELETED_DOMAIN)
