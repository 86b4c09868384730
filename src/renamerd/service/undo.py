"""What an owner does to their jobs: Undo, Rename again, Retry. The Jobs page and the v1 API
(`POST /api/v1/jobs/{id}/undo`, `/rename-again`, `/retry`) call these.

**Undo** moves a done job's file back to its original folder and name through the connection's
connector (never overwriting), then marks the journal entry undone and the job `undone`, in one
transaction. The folders the move left empty below the connection's target (`2024/invoice`)
are removed where the connector can remove a folder only if it is empty
(`SupportsRemoveEmptyFolder`: local folders); on cloud drives they stay.

The daemon leaves the file alone afterwards: a job is unique per (connection, file
id, revision) and a move keeps the revision on every provider (Drive md5/headRevisionId, Dropbox
content_hash, Graph cTag, local size+mtime) and the id on providers with stable ids; on path-id
providers (local) the file is back at the path that was its id. So the next poll that sees it
finds its job and makes no new one. No credit is refunded.

**Rename again** queues an undone job anew (its plan and destination cleared): the worker reads
the file where it now is, files it again, and journals the new move. The job's credit was spent
once; renaming it again costs nothing more (its charge `job:<id>` is already final).

**Retry** queues a failed, skipped or pending-credits job again (`JobQueue.retry`).

Every operation is scoped to the owner: another user's job is `JobNotFound`, and nothing changes.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col

from renamerd.config import Settings
from renamerd.connectors import Connector, ConnectorError, SupportsRemoveEmptyFolder
from renamerd.service import jobs as J
from renamerd.service.job_views import JobView, JobViews
from renamerd.service.journal import Journal, UndoError
from renamerd.storage.database import Database
from renamerd.storage.models import Job, JournalEntry, utcnow

log = logging.getLogger("renamerd.service.jobs")

#: opens connection `name`'s connector for the duration of a `with` (the runtime's pool),
#: with the connection's target folder (where its filing folders are made)
ConnectorOpener = Callable[[str], AbstractContextManager[tuple[Connector, str]]]


class JobActionError(Exception):
    """The job cannot do that now (its state, or its file); the message says why (409)."""


class JobActions:
    """Undo, Rename again and Retry on one database, for jobs of their owner only."""

    def __init__(self, db: Database, settings: Settings, open_connector: ConnectorOpener,
                 now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.settings = settings
        self.open_connector = open_connector
        self.now = now
        self.views = JobViews(db, settings.credits)
        self.queue = J.JobQueue(db, settings.daemon, settings.credits, now=now)

    def undo(self, owner_id: str, job_id: int) -> JobView:
        """Move the done job's file back and mark the job undone; its view. Raises
        JobNotFound, JobActionError (not done, no move recorded, the file is gone, the old
        name is taken, the drive failed). Safe to repeat: an undone job is refused."""
        job = self.views.row(owner_id, job_id)
        if job.state == J.UNDONE:
            raise JobActionError(f"job {job_id} is already undone")
        if job.state != J.DONE:
            raise JobActionError(f"job {job_id} is {job.state}; only renamed (done) jobs can be undone")
        entry = Journal(self.db).for_job(job_id)
        if entry is None:
            raise JobActionError(f"job {job_id} has no recorded move to undo")
        try:
            with self.open_connector(job.connection) as (connector, root):
                self._move_back(job, entry, connector)
                self._remove_emptied(root, entry, connector)
        except KeyError as err:
            raise JobActionError(f"connection {job.connection!r} is not configured") from err
        except UndoError as err:
            current = self.views.row(owner_id, job_id)
            if current.state == J.UNDONE:  # someone else undid it meanwhile
                return self.views.get(owner_id, job_id)
            raise JobActionError(str(err)) from err
        except ConnectorError as err:
            raise JobActionError(f"the drive refused the move: {err}") from err
        self._mark_undone(job, entry)
        return self.views.get(owner_id, job_id)

    def _move_back(self, job: Job, entry: JournalEntry, connector: Connector) -> None:
        journal = Journal(self.db, now=self.now)
        try:
            journal.undo_remote(entry, connector)
        except UndoError:
            # moved back already (a crash after the move, before it was recorded): on a
            # path-id provider the file is then at its old path with its revision
            back = connector.stat_path(entry.old_path)
            if back is None or back.revision != job.revision:
                raise

    def _remove_emptied(self, root: str, entry: JournalEntry, connector: Connector) -> None:
        """Remove the folders below the connection's target `root` that the move back emptied;
        a folder still holding anything, and every error, ends the walk (the undo is done)."""
        if not isinstance(connector, SupportsRemoveEmptyFolder):
            return
        for folder in emptied_folders(entry.new_path, entry.old_path, root):
            try:
                if not connector.remove_empty_folder(folder):
                    return
            except ConnectorError as err:
                log.info("undo: left folder %s: %s", folder, err)
                return

    def _mark_undone(self, job: Job, entry: JournalEntry) -> None:
        now = self.now()
        with self.db.write_session() as s:
            s.exec(update(JournalEntry).where(  # type: ignore[call-overload]
                col(JournalEntry.id) == entry.id, col(JournalEntry.undone_at).is_(None),
            ).values(undone_at=now))
            changed = s.exec(update(Job).where(  # type: ignore[call-overload]
                col(Job.id) == job.id, col(Job.state) == J.DONE,
            ).values(state=J.UNDONE, updated_at=now)).rowcount
        if changed:
            job.state = J.UNDONE
            J.emit(job, J.DONE, J.UNDONE, manual=True)

    def rename_again(self, owner_id: str, job_id: int) -> JobView:
        """Queue an undone job anew (plan and destination cleared). Raises JobNotFound,
        JobActionError when the job is not undone. Safe to repeat only while it is undone."""
        job = self.views.row(owner_id, job_id)
        now = self.now()
        with self.db.write_session() as s:
            changed = s.exec(update(Job).where(  # type: ignore[call-overload]
                col(Job.id) == job_id, col(Job.state) == J.UNDONE,
            ).values(state=J.QUEUED, attempts=0, next_attempt_at=now, updated_at=now,
                     planned_folder=None, planned_name=None, dest_path=None,
                     dest_file_id=None, error=None, finished_at=None)).rowcount
            if changed:
                J.notify_others(s)
        if not changed:
            raise JobActionError(f"job {job_id} is {job.state}; only undone jobs can be "
                                 "renamed again")
        self.queue.notify()
        J.emit(job, J.UNDONE, J.QUEUED, manual=True)
        return self.views.get(owner_id, job_id)

    def retry(self, owner_id: str, job_id: int) -> JobView:
        """Queue a failed, skipped or pending-credits job again now. Raises JobNotFound,
        JobActionError for a job in another state."""
        self.views.row(owner_id, job_id)
        try:
            self.queue.retry(job_id)
        except ValueError as err:
            raise JobActionError(str(err)) from err
        return self.views.get(owner_id, job_id)


def emptied_folders(new_path: str, old_path: str, root: str) -> list[str]:
    """The folders an undone move may have emptied, deepest first: those holding `new_path`
    strictly below `root` that do not hold `old_path` (the file is back there). Pure."""
    root = root.rstrip("/") or "/"
    out = []
    folder = posixpath.dirname(new_path)
    while folder.startswith(root.rstrip("/") + "/") and folder != root:
        if (old_path + "/").startswith(folder.rstrip("/") + "/"):
            break
        out.append(folder)
        folder = posixpath.dirname(folder)
    return out
