"""`Prepared` against SQLAlchemy's own execution, on SQLite and PostgreSQL: the same rows, the
same writes, in the caller's transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import bindparam, insert, select, update
from sqlmodel import col

from renamerd.storage.database import Database
from renamerd.storage.models import JournalEntry
from renamerd.storage.prepared import Prepared, bound

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
_COLUMNS = ("job_id", "connection", "file_id", "old_path", "new_path", "new_file_id", "batch",
            "created_at")
_INSERT = Prepared(insert(JournalEntry).values(bound(_COLUMNS)))
_BY_ID = select(JournalEntry.id, JournalEntry.new_path, JournalEntry.created_at,
                JournalEntry.undone_at).where(col(JournalEntry.id).in_(
                    bindparam("ids", expanding=True))).order_by(col(JournalEntry.id))
_SINCE = (select(JournalEntry.id).where(col(JournalEntry.created_at) >= bindparam("since"),
                                        col(JournalEntry.connection) == "c")
          .order_by(col(JournalEntry.id)).limit(bindparam("limit")))
_UNDO = (update(JournalEntry).where(col(JournalEntry.id) == bindparam("entry"))
         .values(undone_at=bindparam("at")))


def _entries(n: int, created: datetime) -> list[dict[str, object]]:
    return [{"job_id": i, "connection": "c", "file_id": f"f{i}", "old_path": f"/in/{i}.pdf",
             "new_path": f"/lib/{i}.pdf", "new_file_id": f"n{i}", "batch": None,
             "created_at": created} for i in range(n)]


def test_rows_match_sqlalchemys_with_datetimes_and_expanding_in(db: Database) -> None:
    with db.write_session() as s:
        conn = s.connection()
        assert _INSERT.many(conn, _entries(3, T0)) == 3
        assert _INSERT.many(conn, _entries(2, T0 + timedelta(microseconds=1))) == 2
    prepared = Prepared(_BY_ID)
    with db.write_session() as s:
        conn = s.connection()
        ids = [row[0] for row in conn.execute(select(JournalEntry.id).order_by(
            col(JournalEntry.id)))]
        theirs = [tuple(row) for row in conn.execute(_BY_ID, {"ids": ids[1:4]})]
        ours = prepared.rows(conn, {"ids": ids[1:4]})
        assert ours == theirs and len(ours) == 3
        assert ours[0][2] == T0 and ours[0][2].tzinfo is not None  # aware UTC, as the ORM's
        assert prepared.dicts(conn, {"ids": [ids[0]]}) == [
            {"id": ids[0], "new_path": "/lib/0.pdf", "created_at": T0, "undone_at": None}]
        # a bound datetime compares like SQLAlchemy's (same storage format on SQLite)
        since = Prepared(_SINCE)
        assert [r[0] for r in since.rows(conn, {"since": T0 + timedelta(microseconds=1),
                                                 "limit": 10})] == ids[3:]
        assert [r[0] for r in since.rows(conn, {"since": T0, "limit": 2})] == ids[:2]


def test_writes_are_in_the_callers_transaction(db: Database) -> None:
    with db.write_session() as s:
        _INSERT.many(s.connection(), _entries(2, T0))
    undo = Prepared(_UNDO)
    with pytest.raises(RuntimeError), db.write_session() as s:
        conn = s.connection()
        ids = [row[0] for row in conn.execute(select(JournalEntry.id))]
        assert undo.run(conn, {"entry": ids[0], "at": T0}) == 1
        raise RuntimeError("roll back")
    with db.write_session() as s:
        conn = s.connection()
        assert list(conn.execute(select(JournalEntry.undone_at))) == [(None,), (None,)]
        assert undo.many(conn, [{"entry": i, "at": T0 + timedelta(hours=1)} for i in ids]) == 2
    with db.session() as s:
        assert {row[0] for row in s.connection().execute(select(JournalEntry.undone_at))} == {
            T0 + timedelta(hours=1)}


def test_an_empty_in_list_is_refused(db: Database) -> None:
    with db.write_session() as s, pytest.raises(ValueError, match="at least one"):
        Prepared(_BY_ID).rows(s.connection(), {"ids": []})


def test_literal_values_of_the_statement_are_sent(db: Database) -> None:
    with db.write_session() as s:
        conn = s.connection()
        _INSERT.many(conn, _entries(1, T0))
        others = _entries(1, T0)
        others[0]["connection"] = "d"
        _INSERT.many(conn, others)
        # `connection == "c"` is a literal of the statement, not a parameter
        assert len(Prepared(_SINCE).rows(conn, {"since": T0, "limit": 5})) == 1


def test_sqlite_timestamps_read_like_sqlalchemys(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The fast SQLite timestamp reader against SQLAlchemy's, on values with and without
    microseconds and around the date line."""
    db = Database(f"sqlite:///{tmp_path / 't.db'}")
    db.upgrade()
    times = [T0, T0.replace(microsecond=7), datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
             datetime(2026, 6, 1, 0, 0, tzinfo=UTC) + timedelta(hours=-3)]
    with db.write_session() as s:
        conn = s.connection()
        _INSERT.many(conn, [row | {"created_at": when}
                            for row, when in zip(_entries(4, T0), times, strict=True)])
        ids = [row[0] for row in conn.execute(select(JournalEntry.id).order_by(
            col(JournalEntry.id)))]
        ours = [row[2] for row in Prepared(_BY_ID).rows(conn, {"ids": ids})]
        theirs = [row[2] for row in conn.execute(_BY_ID, {"ids": ids})]
    assert ours == theirs == times
    assert all(when.tzinfo is UTC for when in ours)
    db.dispose()


def test_driver_errors_are_raised_as_sqlalchemys(db: Database) -> None:
    """A broken constraint comes out as sqlalchemy's IntegrityError (what callers catch, as
    from `Connection.execute`), and the transaction can still be rolled back and reused."""
    from sqlalchemy.exc import IntegrityError

    from renamerd.service.jobs.rows import INSERT_NEW_JOBS as _INSERT_NEW_JOBS
    from renamerd.service.jobs.rows import NEW_JOB_COLUMNS as _NEW_JOB_COLUMNS
    from renamerd.storage.models import Job

    row = dict.fromkeys(_NEW_JOB_COLUMNS, "x") | {
        "size": 1, "attempts": 0, "lease_generation": 0, "next_attempt_at": T0,
        "created_at": T0, "updated_at": T0, "owner_id": None}
    with pytest.raises(IntegrityError), db.write_session() as s:  # owner_id is NOT NULL
        _INSERT_NEW_JOBS.many(s.connection(), [row])
    with db.write_session() as s:
        assert s.connection().execute(select(Job.id)).first() is None
