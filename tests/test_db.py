from __future__ import annotations

import threading

from sqlalchemy import text
from sqlmodel import select

from renamerd.db import Database
from renamerd.models import User


def test_migrations_reach_head_and_are_repeatable(db: Database) -> None:
    assert db.current_revision() == "0001"
    db.upgrade()  # a second run is a no-op
    assert db.current_revision() == "0001"


def test_sqlite_runs_in_wal_mode(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'x.db'}")
    db.upgrade()
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000


def test_write_sessions_serialise_without_lost_updates(db: Database) -> None:
    with db.write_session() as s:
        s.add(User(email="count@example.org", name="0"))
    errors: list[BaseException] = []

    def bump() -> None:
        try:
            for _ in range(10):
                with db.write_session() as s:
                    if db.is_postgres:
                        s.exec(text("SELECT 1 FROM users WHERE email='count@example.org' FOR UPDATE"))
                    u = s.exec(select(User).where(User.email == "count@example.org")).one()
                    u.name = str(int(u.name) + 1)
                    s.add(u)
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=bump) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with db.session() as s:
        assert s.exec(select(User)).one().name == "60"
