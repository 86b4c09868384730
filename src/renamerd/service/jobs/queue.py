"""The job queue: enqueue new files, claim due jobs under a lease, read, retry by hand.

See the package docstring for the states. Claims use `SELECT ... FOR UPDATE SKIP LOCKED` on
PostgreSQL (concurrent claimers skip each other's rows) and a `BEGIN IMMEDIATE` transaction on
SQLite (claimers queue on the write lock).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from renamerd.connectors import RemoteFile, join_path
from renamerd.service.jobs import rows
from renamerd.service.jobs.events import emit, emit_many, jobs_available, notify_others
from renamerd.service.jobs.leases import LeasedJobs
from renamerd.service.jobs.states import (
    QUEUED,
    RETRYABLE,
    RUNNING,
    STATES,
    JobNotFound,
    Lease,
    check_job_id,
)
from renamerd.storage.models import Job


class JobQueue(LeasedJobs):
    """Job operations on one database. Thread-safe; `now` is injectable for tests."""

    # -- reading ---------------------------------------------------------------------------

    def get(self, job_id: int) -> Job:
        """The job with `job_id`; raises JobNotFound."""
        check_job_id(job_id)
        with self.db.session() as s:
            job = s.get(Job, job_id)
            if job is None:
                raise JobNotFound(f"no job with id {job_id}")
            return job

    def find(
        self, *, state: str | None = None, connection: str | None = None, limit: int = 1000
    ) -> list[Job]:
        """Jobs, newest first, filtered by state and connection."""
        query = select(Job)
        if state:
            query = query.where(Job.state == state)
        if connection:
            query = query.where(Job.connection == connection)
        with self.db.session() as s:
            return list(s.exec(query.order_by(col(Job.id).desc()).limit(limit)))

    def counts(self) -> dict[str, int]:
        """Number of jobs per state (every state present, zero included)."""
        out = dict.fromkeys(STATES, 0)
        with self.db.session() as s:
            for state, n in s.exec(select(Job.state, func.count()).group_by(Job.state)):
                out[state] = int(n)
        return out

    # -- enqueueing ------------------------------------------------------------------------

    def enqueue_many(
        self, connection: str, owner_id: str, files: Sequence[RemoteFile],
        session: Session | None = None,
    ) -> list[Job]:
        """Create a queued job for every file not seen before; return the new jobs.

        Idempotent: a (connection, id, revision) that already has a job is left alone, and so is a
        file the daemon itself put where it is (the destination of one of this connection's jobs
        with the same revision), so a target folder inside the watched one is never re-processed.
        `session`, when given, must be a `Database.write_session()` (SQLite: the write lock is
        held from its start); it is committed by the caller.
        """
        if session is None:
            with self.db.write_session() as s:
                jobs = self.enqueue_many(connection, owner_id, files, session=s)
            if jobs:
                self.notify()
            emit_many((job, "new", QUEUED, {}) for job in jobs)
            return jobs
        wanted = {(f.id, f.revision): f for f in files}
        if not wanted:
            return []
        known_ids, own_paths = _seen(session, connection, {f.revision for f in files})
        now = self.now()
        new_rows: list[dict[str, object]] = [
            {"connection": connection, "owner_id": owner_id, "file_id": f.id,
             "revision": f.revision, "source_path": f.path, "name": f.name, "size": f.size,
             "state": QUEUED, "attempts": 0, "lease_generation": 0, "next_attempt_at": now,
             "created_at": now, "updated_at": now}
            for (file_id, rev), f in wanted.items()
            if (file_id, rev) not in known_ids and (f.path, rev) not in own_paths
        ]
        if not new_rows:
            return []
        session.flush()
        try:  # all at once: the poll lease makes a concurrent insert rare
            with session.begin_nested():
                ids = self._insert(session, connection, new_rows)
            notify_others(session)
            return [rows.loaded_job({**row, "id": job_id})
                    for row, job_id in zip(new_rows, ids, strict=True)]
        except IntegrityError:
            pass
        created: list[Job] = []
        for row in new_rows:  # someone else inserted some of them: one by one
            try:
                with session.begin_nested():
                    job_id = session.connection().execute(rows.INSERT_JOBS, [row]).scalar_one()
            except IntegrityError:
                continue
            created.append(rows.loaded_job({**row, "id": job_id}))
        if created:
            notify_others(session)
        return created

    def _insert(self, session: Session, connection: str, new_rows: list[dict[str, object]]
                ) -> list[int]:
        """INSERT `new_rows` (jobs of `connection`) at once; their ids, in order. Raises
        IntegrityError (nothing inserted) when one exists already."""
        conn = session.connection()
        if not self.db.is_sqlite:
            return [int(i or 0) for i in conn.execute(rows.INSERT_JOBS, new_rows).scalars()]
        # SQLite cannot return ids in parameter order from one multi-row INSERT, so RETURNING
        # would cost one statement per row; the write lock is ours: the rows past the highest
        # id are exactly these
        last = conn.execute(rows.LAST_JOB_ID).scalar() or 0
        conn.execute(rows.INSERT_NEW_JOBS, new_rows)
        ids = {(file_id, rev): job_id for job_id, file_id, rev in conn.execute(
            rows.JOBS_AFTER, {"connection": connection, "after": last})}
        return [ids[(row["file_id"], row["revision"])] for row in new_rows]  # type: ignore[index]

    def enqueue(self, connection: str, owner_id: str, file: RemoteFile) -> Job | None:
        """`enqueue_many` for one file: the new job, or None if it was known already."""
        jobs = self.enqueue_many(connection, owner_id, [file])
        return jobs[0] if jobs else None

    # -- claiming and leases ---------------------------------------------------------------

    def claim(
        self, owner: str, *, limit: int = 1, look_first: bool = True, share: bool = False
    ) -> list[tuple[Job, Lease]]:
        """Claim up to `limit` claimable jobs for `owner`: queued ones that are due, and running
        ones whose lease expired (their worker died). Each gets a new lease generation.

        Returns [] when nothing is due. Never hands the same job to two live claimers.
        `look_first` checks with a plain read before taking the write lock (cheap when the queue
        is idle; a busy worker passes False). `share`: when fewer than 2 x `limit` jobs are due
        and another claimer is at work (some other owner holds a live lease), take half of them
        (at least one) and leave the rest to the others, so that at the end of a burst every
        worker gets a share instead of one taking a whole batch; a claimer alone takes them all.
        """
        now = self.now()
        until = now + timedelta(seconds=self.settings.lease_s)
        out: list[tuple[Job, Lease]] = []
        old_states: dict[int, str] = {}  # the claimed jobs that were running (lease expired)
        if look_first:  # an idle queue costs one prepared read, not a write lock
            with self.db.engine.connect() as conn:
                if conn.execute(rows.CLAIMABLE_PROBE, {"now": now}).first() is None:
                    return out
        with self.db.write_session() as s:
            conn = s.connection()
            # expired leases first (their jobs waited longest), then due queued jobs in index
            # order: two indexed reads of ids only, where one query with OR had to sort the
            # whole queue (and whole rows cost more to read than the claim's own write)
            look = 2 * limit if share else limit
            expired = list(conn.execute(rows.EXPIRED, {"now": now, "limit": look}).scalars())
            ids = expired
            if len(ids) < look:
                ids = ids + list(conn.execute(
                    rows.QUEUED_DUE, {"now": now, "limit": look - len(ids)}).scalars())
            if share and len(ids) < look and conn.execute(
                    rows.OTHERS_AT_WORK, {"owner": owner, "now": now}).first():
                ids = ids[:max(1, (len(ids) + 1) // 2)]  # the end of a burst: share it
            ids = ids[:limit]
            if ids:
                # the rows are ours (under the write lock / row locks): one UPDATE that
                # returns them as they now are
                claimed = {row["id"]: dict(row) for row in conn.execute(rows.CLAIM, {
                    "jobs": ids, "owner": owner, "until": until, "now": now}).mappings()}
                for job_id in ids:
                    job = rows.loaded_job(claimed[job_id])
                    out.append((job, Lease(job_id, owner, job.lease_generation)))
                old_states.update(dict.fromkeys(expired, RUNNING))
        emit_many((job, old_states.get(lease.job_id, QUEUED), RUNNING, {
            "attempt": job.attempts, **({"recovered": True} if lease.job_id in old_states else {})})
            for job, lease in out)
        return out

    # -- manual operations and the pending-credits wake-up ---------------------------------

    def retry(self, job_id: int) -> Job:
        """Queue a failed, skipped or pending job again now, with a fresh attempt count.

        Raises JobNotFound, or ValueError for a job in another state. Safe to repeat only
        while the job is in one of those states.
        """
        check_job_id(job_id)
        with self.db.write_session() as s:
            job = s.exec(select(Job).where(Job.id == job_id).with_for_update()).first()
            if job is None:
                raise JobNotFound(f"no job with id {job_id}")
            if job.state not in RETRYABLE:
                raise ValueError(f"job {job_id} is {job.state}; only {', '.join(RETRYABLE)} "
                                 "jobs can be retried")
            old = job.state
            self._requeue(job)
            s.add(job)
            notify_others(s)
        self.notify()
        emit(job, old, QUEUED, manual=True)
        return job

    def retry_state(self, state: str) -> list[Job]:
        """`retry` every job in `state` (one of failed, skipped, pending_credits)."""
        if state not in RETRYABLE:
            raise ValueError(f"only {', '.join(RETRYABLE)} jobs can be retried")
        with self.db.session() as s:
            ids = list(s.exec(select(Job.id).where(Job.state == state)))
        out = []
        for job_id in ids:
            try:
                out.append(self.retry(int(job_id or 0)))
            except ValueError:  # changed state meanwhile
                continue
        return out

    def _requeue(self, job: Job) -> None:
        now = self.now()
        job.state = QUEUED
        job.attempts = 0
        job.next_attempt_at = now
        job.finished_at = None
        job.error = None
        job.updated_at = now

    def notify(self) -> None:
        """Wake idle workers in this process. Those of other processes hear the commit (NOTIFY
        on PostgreSQL, `db_watch` on SQLite) or look again within their idle interval."""
        jobs_available.set()


def _seen(session: Session, connection: str, revisions: set[str]
          ) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """What `connection`'s jobs already cover among `revisions`: the (file id, revision) pairs
    that have a job (its source, or the file it became), and the (path, revision) pairs the
    daemon wrote or planned to write."""
    known_ids: set[tuple[str, str]] = set()
    own_paths: set[tuple[str, str]] = set()
    for chunk in _chunks(sorted(revisions), 500):
        found = session.exec(  # type: ignore[call-overload]
            select(Job.file_id, Job.revision, Job.dest_path, Job.dest_file_id,  # type: ignore[call-overload]
                   Job.planned_folder, Job.planned_name)
            .where(Job.connection == connection, col(Job.revision).in_(chunk))
        )
        for file_id, rev, dest_path, dest_id, folder, name in found:
            known_ids.add((file_id, rev))
            if dest_id:
                known_ids.add((dest_id, rev))
            if dest_path:
                own_paths.add((dest_path, rev))
            if folder is not None and name is not None:
                own_paths.add((join_path(folder, name), rev))
    return known_ids, own_paths


def _chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
