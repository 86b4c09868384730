from __future__ import annotations

import threading

from sqlalchemy import text
from sqlmodel import select

from renamerd.storage.database import Database
from renamerd.storage.health import head_revision
from renamerd.storage.models import User


def test_migrations_reach_head_and_are_repeatable(db: Database) -> None:
    head = head_revision()
    assert head is not None and db.current_revision() == head
    db.upgrade()  # a second run is a no-op
    assert db.current_revision() == head


def test_the_models_match_the_migrations(db: Database) -> None:
    """What the migrations build is what the models declare (no change left for autogenerate)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_migration_0005_goes_down_and_up(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Token expiry and the notification tables come and go with their migration."""
    from alembic import command
    from alembic.config import Config

    from renamerd.storage.database import MIGRATIONS

    db = Database(f"sqlite:///{tmp_path / 'x.db'}")
    db.upgrade()
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", db.url)

    def tables() -> set[str]:
        with db.engine.connect() as conn:
            return {row[0] for row in conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}

    assert {"notifications_sent", "notification_optouts"} <= tables()
    command.downgrade(cfg, "0002")
    assert not {"notifications_sent", "notification_optouts"} & tables()
    db.upgrade()
    assert db.current_revision() == head_revision()


def test_the_grant_hook_finds_pending_jobs_by_the_partial_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Migration 0002: an owner's pending jobs have an index of their own, which the grant
    hook's UPDATE uses (and the jobs' other state changes do not touch); it goes back down to
    0001's index and up again."""
    from alembic import command
    from alembic.config import Config

    from renamerd.service.jobs.pending import _WAKE
    from renamerd.storage.database import MIGRATIONS

    db = Database(f"sqlite:///{tmp_path / 'x.db'}")
    db.upgrade()

    def indexes() -> set[str]:
        with db.engine.connect() as conn:
            return {row[0] for row in conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE tbl_name = 'jobs' AND type = 'index'")}

    assert "ix_jobs_owner_pending" in indexes() and "ix_jobs_owner_state" not in indexes()
    sql = str(_WAKE.compile(dialect=db.engine.dialect))
    with db.engine.connect() as conn:
        plan = " ".join(str(row) for row in conn.exec_driver_sql(
            f"EXPLAIN QUERY PLAN {sql}", (None,) * sql.count("?")))
    assert "ix_jobs_owner_pending" in plan
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", db.url)
    command.downgrade(cfg, "0001")
    assert "ix_jobs_owner_state" in indexes() and "ix_jobs_owner_pending" not in indexes()
    db.upgrade()
    assert db.current_revision() == head_revision() and "ix_jobs_owner_pending" in indexes()


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


def test_migration_0003_goes_down_and_up_again(db: Database) -> None:
    """0003 (web accounts) adds password and admin columns and three tables, and removes them
    again; existing users keep their rows (is_admin false, no password)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect

    from renamerd.storage.database import MIGRATIONS

    with db.write_session() as s:
        s.add(User(email="old@example.org"))
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", db.url.replace("%", "%%"))
    with db.engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002")
        conn.commit()
    tables = set(inspect(db.engine).get_table_names())
    assert not tables & {"web_sessions", "invitations", "daemon_processes"}
    assert "is_admin" not in {c["name"] for c in inspect(db.engine).get_columns("users")}
    db.upgrade()
    with db.session() as s:
        old = s.exec(select(User).where(User.email == "old@example.org")).one()
    assert old.is_admin is False and old.password_hash is None
