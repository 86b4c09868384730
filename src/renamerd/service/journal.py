"""The journal: every move renamerd made, with enough to undo it.

Daemon moves carry their job id and connection; `renamerd rename --apply` writes entries with
connection "" (plain filesystem paths) grouped by `batch`. Undo never overwrites: if something
now sits at the old place, that entry is refused and reported.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert
from sqlmodel import Session, col, select

from renamerd.connectors import Conflict, Connector, NotFound
from renamerd.storage.database import Database
from renamerd.storage.models import JournalEntry, utcnow


class UndoError(Exception):
    """One entry cannot be undone; the message says why (safe to show)."""


@dataclass(frozen=True)
class UndoOutcome:
    entry_id: int
    old_path: str
    new_path: str
    ok: bool
    message: str = ""


def record(
    session: Session, *, connection: str, file_id: str, old_path: str, new_path: str,
    new_file_id: str | None = None, job_id: int | None = None, batch: str | None = None,
    now: datetime | None = None,
) -> JournalEntry:
    """Add a journal entry in `session` (the caller's transaction) and return it."""
    entry = JournalEntry(
        job_id=job_id, connection=connection, file_id=file_id, old_path=old_path,
        new_path=new_path, new_file_id=new_file_id, batch=batch, created_at=now or utcnow(),
    )
    session.add(entry)
    return entry


def record_now_many(
    session: Session, moves: Sequence[dict[str, object]], *, now: datetime | None = None
) -> None:
    """`record` for many moves as one column-level INSERT executed at once in the caller's
    transaction (no ORM objects: the daemon writes one per document). Each move is a dict with
    the keys job_id, connection, file_id, old_path, new_path, new_file_id. Returns nothing."""
    if not moves:
        return
    created = now or utcnow()
    session.flush()
    session.connection().execute(
        insert(JournalEntry), [{**move, "batch": None, "created_at": created} for move in moves])


class Journal:
    """Reading and undoing journal entries on one database."""

    def __init__(self, db: Database, now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.now = now

    def for_job(self, job_id: int) -> JournalEntry | None:
        """The latest entry of a job that is not undone yet, or None."""
        with self.db.session() as s:
            return s.exec(
                select(JournalEntry)
                .where(JournalEntry.job_id == job_id, col(JournalEntry.undone_at).is_(None))
                .order_by(col(JournalEntry.id).desc())
            ).first()

    def batch(self, batch: str) -> list[JournalEntry]:
        """The not-yet-undone filesystem entries of one `rename --apply` batch, newest first."""
        with self.db.session() as s:
            return list(s.exec(
                select(JournalEntry)
                .where(JournalEntry.batch == batch, JournalEntry.connection == "",
                       col(JournalEntry.undone_at).is_(None))
                .order_by(col(JournalEntry.id).desc())
            ))

    def mark_undone(self, entry_id: int) -> None:
        with self.db.write_session() as s:
            entry = s.get(JournalEntry, entry_id)
            if entry is not None and entry.undone_at is None:
                entry.undone_at = self.now()
                s.add(entry)

    def undo_remote(self, entry: JournalEntry, connector: Connector) -> UndoOutcome:
        """Move the file of a daemon entry back to its old folder and name via `connector`.

        Raises UndoError when the file is gone or the old name is taken (nothing changes then).
        Refunds nothing. Safe to repeat: an entry already undone is refused.
        """
        if entry.undone_at is not None:
            raise UndoError(f"journal entry {entry.id} was already undone")
        current = None
        if entry.new_file_id:
            current = connector.stat(entry.new_file_id)
        if current is None:
            current = connector.stat_path(entry.new_path)
        if current is None:
            raise UndoError(f"the file is no longer at {entry.new_path}")
        folder, name = posixpath.split(entry.old_path)
        occupant = connector.stat_path(entry.old_path)
        if occupant is not None and occupant.id != current.id:
            raise UndoError(f"{entry.old_path} exists; not overwriting it")
        try:
            folder_id = connector.ensure_folder(folder or "/")
            connector.move(current.id, folder_id, name)
        except Conflict as err:
            raise UndoError(f"{entry.old_path} exists; not overwriting it") from err
        except NotFound as err:
            raise UndoError(f"cannot move back: {err}") from err
        self.mark_undone(entry.id or 0)
        return UndoOutcome(entry.id or 0, entry.old_path, entry.new_path, True)

    def undo_batch(self, batch: str) -> list[UndoOutcome]:
        """Move every file of a `rename --apply` batch from new_path back to old_path, newest
        first, never overwriting. Returns one outcome per entry (failed ones with the reason);
        entries already undone are not listed. Safe to repeat."""
        outcomes = []
        for entry in self.batch(batch):
            try:
                move_back_no_replace(entry.new_path, entry.old_path)
            except UndoError as err:
                outcomes.append(UndoOutcome(entry.id or 0, entry.old_path, entry.new_path, False,
                                            str(err)))
                continue
            self.mark_undone(entry.id or 0)
            outcomes.append(UndoOutcome(entry.id or 0, entry.old_path, entry.new_path, True))
        return outcomes


def move_back_no_replace(src: str, dst: str) -> None:
    """Rename `src` to `dst` without ever replacing an existing `dst`; create dst's folder.

    On one filesystem this is atomic (hard link, then unlink); across filesystems it copies.
    Raises UndoError when `src` is missing or `dst` exists.
    """
    if not os.path.lexists(src):
        raise UndoError(f"{src} does not exist any more")
    if os.path.lexists(dst):
        raise UndoError(f"{dst} exists; not overwriting it")
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    try:
        os.link(src, dst)
    except FileExistsError as err:
        raise UndoError(f"{dst} exists; not overwriting it") from err
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EMLINK):
            raise UndoError(f"cannot move {src} back: {err.strerror}") from err
        import shutil

        with open(src, "rb") as fin, open(dst, "xb") as fout:  # "x": never replace
            shutil.copyfileobj(fin, fout)
        shutil.copystat(src, dst)
    os.unlink(src)
