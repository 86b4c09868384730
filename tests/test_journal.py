"""The journal: undo of a daemon move through a connector and of plain filesystem moves."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from renamerd.service.journal import Journal, UndoError, move_back_no_replace, record
from renamerd.storage.database import Database
from renamerd.storage.models import JournalEntry
from renamerd_connectors import memory


def test_move_back_never_overwrites(tmp_path: Path) -> None:
    src, dst = tmp_path / "new" / "x.pdf", tmp_path / "old" / "x.pdf"
    src.parent.mkdir()
    src.write_bytes(b"mine")
    move_back_no_replace(str(src), str(dst))  # creates the folder
    assert dst.read_bytes() == b"mine" and not src.exists()
    src.write_bytes(b"again")
    with pytest.raises(UndoError, match="exists"):
        move_back_no_replace(str(src), str(dst))
    assert dst.read_bytes() == b"mine" and src.read_bytes() == b"again"
    with pytest.raises(UndoError, match="does not exist"):
        move_back_no_replace(str(tmp_path / "nothing"), str(tmp_path / "y"))


def test_undo_remote_refuses_a_taken_name_and_a_second_undo(db: Database) -> None:
    drive = memory.drive("journal-test")
    try:
        file_id = drive.put("/lib/new.pdf", b"doc")
        conn = memory.MemoryConnector({"drive": "journal-test"})
        with db.write_session() as s:
            record(s, connection="m", file_id=file_id, old_path="/inbox/old.pdf",
                   new_path="/lib/new.pdf", new_file_id=file_id, job_id=7)
        journal = Journal(db)
        entry = journal.for_job(7)
        assert entry is not None
        drive.put("/inbox/old.pdf", b"other")
        with pytest.raises(UndoError, match="not overwriting"):
            journal.undo_remote(entry, conn)
        assert drive.read("/lib/new.pdf") == b"doc"
        drive.delete("/inbox/old.pdf")
        outcome = journal.undo_remote(entry, conn)
        assert outcome.ok and drive.read("/inbox/old.pdf") == b"doc"
        assert journal.for_job(7) is None
        with pytest.raises(UndoError, match="already undone"):
            journal.undo_remote(journal_entry(db), conn)
        with db.write_session() as s:  # another move, whose file was deleted since
            record(s, connection="m", file_id="gone", old_path="/inbox/g.pdf",
                   new_path="/lib/g.pdf", new_file_id="gone", job_id=8)
        lost = journal.for_job(8)
        assert lost is not None
        with pytest.raises(UndoError, match="no longer at /lib/g.pdf"):
            journal.undo_remote(lost, conn)
    finally:
        memory.forget_drive("journal-test")


def journal_entry(db: Database) -> JournalEntry:
    with db.session() as s:
        return s.exec(select(JournalEntry).where(JournalEntry.job_id == 7)).one()
