"""Invitations: a one-time link (`renamerd users invite`, the Admin page) where a user picks a
password. Only the SHA-256 of the token is stored; a link is valid `web.invite_days` (7) and
works once. A new invitation for the same user voids the older ones.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from renamerd.config import Settings
from renamerd.service.accounts import AccountError
from renamerd.service.passwords import hash_password
from renamerd.storage.database import Database
from renamerd.storage.models import Invitation, User, utcnow

TOKEN_PREFIX = "inv_"  # noqa: S105  (a prefix, not a secret)


class InviteError(AccountError):
    """The link is unknown, used, expired, or its user is disabled."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Invites:
    """Invitation operations on one database; `now` is injectable for tests."""

    def __init__(self, db: Database, settings: Settings,
                 now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.settings = settings
        self.now = now

    def create(self, user_id: str) -> str:
        """A new invitation for the user; returns its token (shown once, not stored). Voids
        the user's older unused invitations. Not idempotent: each call makes a new link."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = self.now()
        with self.db.write_session() as s:
            s.exec(update(Invitation).where(  # type: ignore[call-overload]
                col(Invitation.user_id) == user_id, col(Invitation.used_at).is_(None),
            ).values(used_at=now))
            s.add(Invitation(token_hash=_digest(token), user_id=user_id, created_at=now,
                             expires_at=now + timedelta(days=self.settings.web.invite_days)))
        return token

    def link(self, token: str) -> str:
        """The address of the invitation page, under `server.public_url`."""
        return f"{self.settings.server.base_url}/invite/{token}"

    def user_for(self, token: str) -> User:
        """The user a valid invitation is for. Raises InviteError. Read-only."""
        with self.db.session() as s:
            found = self._find(s, token)
        return found[1]

    def redeem(self, token: str, password: str) -> User:
        """Set the user's password and use the invitation up, at once. Raises InviteError, or
        PasswordError (the invitation stays valid then)."""
        digest = hash_password(password)
        with self.db.write_session() as s:
            invitation, user = self._find(s, token, lock=True)
            invitation.used_at = self.now()
            user.password_hash = digest
            s.add(invitation)
            s.add(user)
        return user

    def _find(self, s: Session, token: str, lock: bool = False) -> tuple[Invitation, User]:
        if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            raise InviteError("this invitation link is not valid")
        query = select(Invitation).where(Invitation.token_hash == _digest(token))
        invitation = s.exec(query.with_for_update() if lock else query).first()
        if invitation is None:
            raise InviteError("this invitation link is not valid")
        if invitation.used_at is not None:
            raise InviteError("this invitation link was used already; ask for a new one")
        if invitation.expires_at <= self.now():
            raise InviteError("this invitation link has expired; ask for a new one")
        user = s.get(User, invitation.user_id)
        if user is None or user.disabled:
            raise InviteError("this account is disabled")
        return invitation, user
