"""db_watch.SqliteWrites: hearing commits of other connections to a SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from renamerd.storage.database import Database
from renamerd.storage.watch import SqliteWrites


def _quiet(watch: SqliteWrites) -> None:
    while watch.wait(0.2):  # the writes of setting up
        pass


def test_hears_a_commit_of_another_connection(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    db.upgrade()
    watch = SqliteWrites.watch(db)
    assert watch is not None
    try:
        _quiet(watch)
        assert watch.wait(0.1) is False  # nothing written: a quiet timeout
        other = sqlite3.connect(tmp_path / "r.db")  # as another process would
        other.execute("INSERT INTO teams (id, name, created_at) VALUES ('t1', 'T', '2024-01-01')")
        other.commit()
        other.close()
        assert watch.wait(5) is True
        # a file beside it is not the database
        (tmp_path / "notes.txt").write_text("x")
        assert watch.wait(0.2) is False
    finally:
        watch.close()
        watch.close()  # safe to repeat
        db.dispose()


def test_nothing_to_watch_without_a_sqlite_file(postgres_url: str) -> None:
    assert SqliteWrites.watch(Database("sqlite://")) is None
    assert SqliteWrites.watch(Database(postgres_url)) is None
