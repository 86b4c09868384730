"""Server-side web sessions: a random session id in an HttpOnly cookie, its SHA-256 in the
database with the user, the CSRF token, and two ends: idle (`web.session_idle_minutes` without
a request) and absolute (`web.session_max_hours` after sign-in).

Signing out deletes the row, so the old cookie is worth nothing afterwards; so does disabling
the user (`end_all`). A session of a disabled user is refused even before that.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import col, select

from renamerd.config import WebSettings
from renamerd.storage.database import Database
from renamerd.storage.models import User, WebSession, utcnow

#: last_seen_at is written at most this often per session (saves a write per page)
TOUCH_GRANULARITY = timedelta(seconds=60)


def hash_session_id(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


@dataclass(frozen=True)
class SignedIn:
    """A live session: who, its CSRF token, and how it began."""

    user: User
    csrf_token: str
    id_hash: str
    method: str
    created_at: datetime
    expires_at: datetime


class WebSessions:
    """Session operations on one database. Thread-safe; `now` is injectable for tests."""

    def __init__(self, db: Database, settings: WebSettings | None = None,
                 now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.settings = settings or WebSettings()
        self.now = now

    @property
    def idle(self) -> timedelta:
        return timedelta(minutes=self.settings.session_idle_minutes)

    def start(self, user_id: str, *, method: str = "password", address: str = "",
              user_agent: str = "") -> str:
        """A new session for the user; returns its id (the cookie value, never stored)."""
        session_id = secrets.token_urlsafe(32)
        now = self.now()
        row = WebSession(
            id_hash=hash_session_id(session_id), user_id=user_id,
            csrf_token=secrets.token_urlsafe(32), created_at=now, last_seen_at=now,
            expires_at=now + timedelta(hours=self.settings.session_max_hours),
            method=method, address=address[:64], user_agent=user_agent[:300],
        )
        with self.db.write_session() as s:
            s.add(row)
        return session_id

    def resolve(self, session_id: str | None) -> SignedIn | None:
        """The live session with this id, or None (unknown, ended, idle or past its end, or
        the user is disabled). Notes the use (at most once a minute)."""
        if not session_id or len(session_id) > 200:
            return None
        id_hash = hash_session_id(session_id)
        now = self.now()
        with self.db.session() as s:
            found = s.exec(select(WebSession, User).join(
                User, col(User.id) == col(WebSession.user_id)).where(
                WebSession.id_hash == id_hash)).first()
        if found is None:
            return None
        row, user = found
        if user.disabled or now >= row.expires_at or now - row.last_seen_at >= self.idle:
            return None
        if now - row.last_seen_at > TOUCH_GRANULARITY:
            with self.db.write_session() as s:
                fresh = s.get(WebSession, id_hash)
                if fresh is not None:
                    fresh.last_seen_at = now
                    s.add(fresh)
        return SignedIn(user, row.csrf_token, id_hash, row.method, row.created_at, row.expires_at)

    def end(self, session_id: str | None) -> bool:
        """End the session (sign out). True when there was one. Safe to repeat."""
        if not session_id:
            return False
        with self.db.write_session() as s:
            result = s.exec(delete(WebSession).where(  # type: ignore[call-overload]
                col(WebSession.id_hash) == hash_session_id(session_id)))
            return bool(result.rowcount)

    def end_all(self, user_id: str) -> int:
        """End every session of the user (disabled, password changed); how many ended."""
        with self.db.write_session() as s:
            result = s.exec(delete(WebSession).where(  # type: ignore[call-overload]
                col(WebSession.user_id) == user_id))
            return int(result.rowcount or 0)

    def purge(self) -> int:
        """Delete sessions past their absolute end or idle for longer than the idle limit."""
        now = self.now()
        with self.db.write_session() as s:
            result = s.exec(delete(WebSession).where(  # type: ignore[call-overload]
                (col(WebSession.expires_at) <= now)
                | (col(WebSession.last_seen_at) <= now - self.idle)))
            return int(result.rowcount or 0)
