"""Database engines, sessions and migrations.

SQLite runs in WAL mode with a busy timeout; `write_session()` opens its transaction with
`BEGIN IMMEDIATE`, so two writers never deadlock on a lock upgrade: one waits for the other.
On a SQLite file, writers first queue on an exclusive `flock` of `<database>.write.lock`
(threads of one process on a lock in front of it): a waiting writer wakes the moment the lock is
free, where SQLite's busy handler sleeps in steps of up to 100 ms (two worker processes spent
most of their time asleep there).
PostgreSQL is used through psycopg 3; `write_session()` is a plain transaction there and row
locks (`SELECT ... FOR UPDATE [SKIP LOCKED]`) do the serialising.

`Database` is the handle the rest of the code passes around; it is safe to share between threads.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.url import make_url
from sqlalchemy.pool import NullPool, QueuePool
from sqlmodel import Session, create_engine

MIGRATIONS = Path(__file__).parent / "migrations"
_PG_MIGRATION_LOCK = 727_314_155  # arbitrary constant for pg_advisory_lock


class Database:
    def __init__(self, url: str, *, busy_timeout_ms: int = 30000, pool_size: int = 10) -> None:
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        kwargs: dict[str, Any] = {}
        if self.dialect == "sqlite":
            database = parsed.database or ""
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout_ms / 1000}
            if database and database != ":memory:":
                # Pooled: opening a connection (and its PRAGMAs) costs more than most queries.
                kwargs["poolclass"] = QueuePool
                kwargs["pool_size"] = pool_size
                kwargs["max_overflow"] = pool_size * 2
            else:
                kwargs["poolclass"] = NullPool
        else:
            kwargs["pool_size"] = pool_size
            kwargs["max_overflow"] = pool_size
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(url, **kwargs)
        if self.dialect == "sqlite":
            _install_sqlite_hooks(self.engine, busy_timeout_ms)
        self._write_engine = self.engine.execution_options(renamerd_immediate=True)
        database = (parsed.database or "") if self.dialect == "sqlite" else ""
        self._write_lock = (_WriterLock(database + ".write.lock")
                            if database and database != ":memory:" else None)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def session(self) -> Session:
        """A session for reading (and occasional writes that cannot conflict)."""
        return Session(self.engine, expire_on_commit=False)

    @contextlib.contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session whose transaction holds the write lock from its start (SQLite) and is
        committed on success, rolled back on error. On a SQLite file, writers of every
        process queue on a file lock first (see the module docstring)."""
        if self._write_lock is not None:
            with self._write_lock.hold(), self._write_session() as session:
                yield session
            return
        with self._write_session() as session:
            yield session

    @contextlib.contextmanager
    def _write_session(self) -> Iterator[Session]:
        with Session(self._write_engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def upgrade(self) -> None:
        """Apply every pending migration. Safe to run from several processes at once."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self._migration_lock(), self.engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()

    def current_revision(self) -> str | None:
        with self.engine.connect() as conn:
            try:
                return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            except Exception:
                return None

    @contextlib.contextmanager
    def _migration_lock(self) -> Iterator[None]:
        if self.is_postgres:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_MIGRATION_LOCK})
                    conn.commit()
            return
        database = make_url(self.url).database or ""
        if not database or database == ":memory:":
            yield
            return
        lock_path = database + ".migrate.lock"
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def dispose(self) -> None:
        self.engine.dispose()


class _WriterLock:
    """An exclusive lock shared by the threads (a reentrant lock) and processes (`flock` of
    `path`, opened once per process) writing one SQLite file. Reentrant within a thread: an
    inner hold is a no-op (SQLite itself then decides, as without the lock)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._thread_lock = threading.RLock()
        self._local = threading.local()
        self._fd: int | None = None
        self._pid = 0

    def _file(self) -> int:
        if self._fd is None or self._pid != os.getpid():  # a forked child opens its own
            self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            self._pid = os.getpid()
        return self._fd

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self._thread_lock:
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            try:
                if depth:
                    yield
                    return
                try:
                    fd = self._file()
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except OSError:  # read-only folder, odd filesystem: SQLite's own locking
                    yield
                    return
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                self._local.depth = depth


def _install_sqlite_hooks(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control from pysqlite so that BEGIN is ours to emit.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get("renamerd_immediate"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def open_database(settings: Any, *, migrate: bool = True) -> Database:
    """The Database for `settings.database`, migrated to head unless `migrate` is false."""
    db = Database(
        settings.database.url,
        busy_timeout_ms=settings.database.sqlite_busy_timeout_ms,
        pool_size=settings.database.pool_size,
    )
    if migrate:
        db.upgrade()
    return db
