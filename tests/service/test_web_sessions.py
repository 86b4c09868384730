"""Server-side web sessions: only a hash stored, idle and absolute ends, sign out, disabled."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from daemon.fakes import Clock
from renamerd.config import Settings, WebSettings
from renamerd.service.accounts import Accounts
from renamerd.service.user_admin import UserAdmin
from renamerd.service.web_sessions import WebSessions, hash_session_id
from renamerd.storage.database import Database
from renamerd.storage.models import WebSession


def test_a_session_is_stored_as_a_hash_and_resolves_to_its_user(db: Database, settings: Settings) -> None:
    user = Accounts(db, settings).create_user("ada@example.org")
    sessions = WebSessions(db, WebSettings())
    sid = sessions.start(user.id, method="password", address="127.0.0.1", user_agent="test")
    with db.session() as s:
        rows = list(s.exec(select(WebSession)))
    assert len(rows) == 1 and rows[0].id_hash == hash_session_id(sid) and sid not in rows[0].id_hash
    found = sessions.resolve(sid)
    assert found is not None and found.user.id == user.id and len(found.csrf_token) >= 32
    assert sessions.resolve(sid + "x") is None and sessions.resolve("") is None
    assert sessions.resolve(None) is None


def test_idle_and_absolute_ends(db: Database, settings: Settings) -> None:
    user = Accounts(db, settings).create_user("ada@example.org")
    clock = Clock()
    sessions = WebSessions(db, WebSettings(session_idle_minutes=30, session_max_hours=2), now=clock)
    sid = sessions.start(user.id)
    clock.advance(29 * 60)
    assert sessions.resolve(sid) is not None  # used: the idle time starts again
    clock.advance(29 * 60)
    assert sessions.resolve(sid) is not None
    clock.advance(31 * 60)
    assert sessions.resolve(sid) is None  # idle for 31 minutes
    busy = sessions.start(user.id)
    for _ in range(5):  # used every 25 minutes, still ends 2 hours after sign-in
        clock.advance(25 * 60)
    assert sessions.resolve(busy) is None
    assert sessions.purge() == 2


def test_sign_out_and_disabling_end_sessions(db: Database, settings: Settings) -> None:
    accounts = Accounts(db, settings)
    ada = accounts.create_user("ada@example.org")
    bob = accounts.create_user("bob@example.org")
    sessions = WebSessions(db)
    first, second, bobs = sessions.start(ada.id), sessions.start(ada.id), sessions.start(bob.id)
    assert sessions.end(first) is True
    assert sessions.end(first) is False
    assert sessions.resolve(first) is None and sessions.resolve(second) is not None
    UserAdmin(db).set_disabled("ada@example.org")
    assert sessions.resolve(second) is None
    assert sessions.resolve(bobs) is not None
    assert sessions.end_all(ada.id) == 0  # disabling ended it already
    assert timedelta(minutes=WebSettings().session_idle_minutes) == sessions.idle
