"""Job states, transitions, leases and the pending-credits wake-up.

A job is one document of one connection, unique per (connection, file_id, revision)::

    queued -> running -> done | failed | skipped | pending_credits
    pending_credits -> queued   (a grant, for jobs at most credits.resume_max_age_days old;
                                 or `renamerd jobs retry`)
    failed | skipped -> queued  (`renamerd jobs retry`)
    running -> queued           (transient error: retried with exponential backoff)

Claiming takes a *lease*: `lease_owner`, `lease_until`, and a `lease_generation` bumped on every
claim. A job whose lease ran out (its worker died) can be claimed again; every later write by a
worker names the generation it holds (`Lease`) and is refused with `LeaseLost` when someone else
has claimed the job since, so a stale worker can never finish a job it no longer owns (fencing).

Claims use `SELECT ... FOR UPDATE SKIP LOCKED` on PostgreSQL (concurrent claimers skip each
other's rows) and a `BEGIN IMMEDIATE` transaction on SQLite (claimers queue on the write lock).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, func, insert, literal_column, or_, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from renamerd import credits as credits_module
from renamerd.config import CreditsSettings, DaemonSettings
from renamerd.connector import RemoteFile, join_path
from renamerd.db import Database
from renamerd.db_prepared import Prepared, bound
from renamerd.models import Job, utcnow

log = logging.getLogger("renamerd.jobs")

QUEUED = "queued"
RUNNING = "running"
DONE = "done"
FAILED = "failed"
SKIPPED = "skipped"
PENDING_CREDITS = "pending_credits"
STATES = (QUEUED, RUNNING, DONE, FAILED, SKIPPED, PENDING_CREDITS)
FINAL = (DONE, FAILED, SKIPPED)
#: states `retry` moves back to queued
RETRYABLE = (FAILED, SKIPPED, PENDING_CREDITS)
#: PostgreSQL NOTIFY channel raised whenever jobs become claimable
NOTIFY_CHANNEL = "renamerd_jobs"

#: called with (job, old_state, new_state, fields) after a transition commits (logs, metrics)
TransitionListener = Callable[[Job, str, str, dict[str, object]], None]
_listeners: list[TransitionListener] = []
#: in-process wake-up for idle workers (set by grants, retries, enqueues)
jobs_available = threading.Event()


#: context managers entered around a burst of transitions (`emit_many`)
_bursts: list[Callable[[], AbstractContextManager[object]]] = []


def add_transition_listener(
    listener: TransitionListener,
    burst: Callable[[], AbstractContextManager[object]] | None = None,
) -> None:
    """Call `listener` after every committed transition in this process, and enter `burst()`
    (when given) around the transitions `emit_many` tells at once: the log writes a burst's
    lines with one flush. Idempotent."""
    if listener not in _listeners:
        _listeners.append(listener)
    if burst is not None and burst not in _bursts:
        _bursts.append(burst)


def emit(job: Job, old: str, new: str, **fields: object) -> None:
    """Tell the transition listeners about a committed transition."""
    for listener in list(_listeners):
        try:
            listener(job, old, new, fields)
        except Exception:  # a listener must never break a transition
            log.exception("transition listener failed")


def emit_many(transitions: Iterable[tuple[Job, str, str, dict[str, object]]]) -> None:
    """`emit` for each (job, old, new, fields) of a batch, in order, as one burst."""
    with contextlib.ExitStack() as stack:
        for burst in list(_bursts):
            stack.enter_context(burst())
        for job, old, new, fields in transitions:
            emit(job, old, new, **fields)


class LeaseLost(Exception):
    """The job was claimed by someone else (or finished) since this lease was taken."""


class JobNotFound(Exception):
    pass


@dataclass(frozen=True)
class Lease:
    """Proof of ownership of a running job: its id, the claimer, and the generation claimed."""

    job_id: int
    owner: str
    generation: int


def charge_ref(job_id: int) -> str:
    """The credit reference of a job: one reservation per job, whatever the attempts."""
    return f"job:{job_id}"


def planned_path(job: Job) -> str | None:
    if job.planned_folder is None or job.planned_name is None:
        return None
    return join_path(job.planned_folder, job.planned_name)


class JobQueue:
    """Job operations on one database. Thread-safe; `now` is injectable for tests."""

    def __init__(
        self,
        db: Database,
        daemon: DaemonSettings | None = None,
        credits: CreditsSettings | None = None,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.settings = daemon or DaemonSettings()
        self.credits_settings = credits or CreditsSettings()
        self.now = now

    # -- reading ---------------------------------------------------------------------------

    def get(self, job_id: int) -> Job:
        """The job with `job_id`; raises JobNotFound."""
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
        revisions = sorted({f.revision for f in files})
        known_ids: set[tuple[str, str]] = set()
        own_paths: set[tuple[str, str]] = set()
        for chunk in _chunks(revisions, 500):
            rows = session.exec(  # type: ignore[call-overload]
                select(Job.file_id, Job.revision, Job.dest_path, Job.dest_file_id,  # type: ignore[call-overload]
                       Job.planned_folder, Job.planned_name)
                .where(Job.connection == connection, col(Job.revision).in_(chunk))
            )
            for file_id, rev, dest_path, dest_id, folder, name in rows:
                known_ids.add((file_id, rev))
                if dest_id:
                    known_ids.add((dest_id, rev))
                if dest_path:
                    own_paths.add((dest_path, rev))
                if folder is not None and name is not None:
                    own_paths.add((join_path(folder, name), rev))
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
            return [loaded_job({**row, "id": job_id})
                    for row, job_id in zip(new_rows, ids, strict=True)]
        except IntegrityError:
            pass
        created: list[Job] = []
        for row in new_rows:  # someone else inserted some of them: one by one
            try:
                with session.begin_nested():
                    job_id = session.connection().execute(_INSERT_JOBS, [row]).scalar_one()
            except IntegrityError:
                continue
            created.append(loaded_job({**row, "id": job_id}))
        if created:
            notify_others(session)
        return created

    def _insert(self, session: Session, connection: str, rows: list[dict[str, object]]
                ) -> list[int]:
        """INSERT `rows` (jobs of `connection`) at once; their ids, in order. Raises
        IntegrityError (nothing inserted) when one exists already."""
        conn = session.connection()
        if not self.db.is_sqlite:
            return [int(i or 0) for i in conn.execute(_INSERT_JOBS, rows).scalars()]
        # SQLite cannot return ids in parameter order from one multi-row INSERT, so RETURNING
        # would cost one statement per row; the write lock is ours: the rows past the highest
        # id are exactly these
        last = conn.execute(_LAST_JOB_ID).scalar() or 0
        _INSERT_NEW_JOBS.many(conn, rows)
        ids = {(file_id, rev): job_id for job_id, file_id, rev in conn.execute(
            _JOBS_AFTER, {"connection": connection, "after": last})}
        return [ids[(row["file_id"], row["revision"])] for row in rows]  # type: ignore[index]

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
                if conn.execute(_CLAIMABLE_PROBE, {"now": now}).first() is None:
                    return out
        with self.db.write_session() as s:
            conn = s.connection()
            # expired leases first (their jobs waited longest), then due queued jobs in index
            # order: two indexed reads of ids only, where one query with OR had to sort the
            # whole queue (and whole rows cost more to read than the claim's own write)
            look = 2 * limit if share else limit
            expired = [row[0] for row in _EXPIRED.rows(conn, {"now": now, "limit": look})]
            ids = expired
            if len(ids) < look:
                ids = ids + [row[0] for row in _QUEUED_DUE.rows(
                    conn, {"now": now, "limit": look - len(ids)})]
            if share and len(ids) < look and _OTHERS_AT_WORK.rows(
                    conn, {"owner": owner, "now": now}):
                ids = ids[:max(1, (len(ids) + 1) // 2)]  # the end of a burst: share it
            ids = ids[:limit]
            if ids:
                # the rows are ours (under the write lock / row locks): one UPDATE that
                # returns them as they now are
                claimed = {row["id"]: row for row in _CLAIM.dicts(conn, {
                    "jobs": ids, "owner": owner, "until": until, "now": now})}
                for job_id in ids:
                    job = loaded_job(claimed[job_id])
                    out.append((job, Lease(job_id, owner, job.lease_generation)))
                old_states.update(dict.fromkeys(expired, RUNNING))
        emit_many((job, old_states.get(lease.job_id, QUEUED), RUNNING, {
            "attempt": job.attempts, **({"recovered": True} if lease.job_id in old_states else {})})
            for job, lease in out)
        return out

    def heartbeat(self, lease: Lease) -> bool:
        """Extend the lease by `lease_s`. False when the lease was lost (stop working)."""
        now = self.now()
        with self.db.write_session() as s:
            result = s.exec(  # type: ignore[call-overload]
                update(Job)
                .where(col(Job.id) == lease.job_id, col(Job.lease_generation) == lease.generation,
                       col(Job.state) == RUNNING)
                .values(lease_until=now + timedelta(seconds=self.settings.lease_s))
            )
            return bool(result.rowcount)

    def guard(self, session: Session, lease: Lease) -> Job:
        """The job, row-locked for this transaction, if `lease` still holds it; else LeaseLost."""
        job = session.exec(
            select(Job).where(Job.id == lease.job_id).with_for_update()
        ).first()
        if job is None or job.lease_generation != lease.generation or job.state != RUNNING:
            raise LeaseLost(f"job {lease.job_id}: lease generation {lease.generation} lost")
        return job

    # -- transitions by the lease holder ---------------------------------------------------

    def live_leases(self, session: Session, leases: Sequence[Lease]) -> set[int]:
        """The ids of the jobs among `leases` whose lease still holds, in one query, row-locked
        for this transaction on PostgreSQL (SQLite's write transaction excludes other
        writers), so `update_fenced_many` on them cannot fail. Never raises LeaseLost."""
        if not leases:
            return set()
        session.flush()
        rows = (_LEASES_FOR_UPDATE if self.db.is_postgres else _LEASES).rows(
            session.connection(), {"jobs": [lease.job_id for lease in leases]})
        current = {job_id: (generation, state) for job_id, generation, state in rows}
        return {lease.job_id for lease in leases
                if current.get(lease.job_id) == (lease.generation, RUNNING)}

    def update_fenced_many(
        self, session: Session, items: Sequence[tuple[Lease, Job, dict[str, object]]]
    ) -> None:
        """For every (lease, job, values) item, set the columns `values` of the running job
        under `lease`, in one `UPDATE ... WHERE id, generation, running` (the fence and the
        write at once; every item's values must name the same columns), and the same attributes
        on `job` (the caller's copy). Sets updated_at; a final state also sets finished_at and
        clears the lease. Check the leases with `live_leases` in the same transaction first: if
        one was lost anyway this raises LeaseLost and the caller must roll back (the others'
        rows were written)."""
        if not items:
            return
        now = self.now()
        stamped = [self._stamped(values, now) for _, _, values in items]
        session.flush()
        written = _fenced_update(tuple(stamped[0])).many(session.connection(), [
            {"job": lease.job_id, "gen": lease.generation, **values}
            for (lease, _, _), values in zip(items, stamped, strict=True)])
        if 0 <= written != len(items):  # (-1: the driver cannot tell; leases checked)
            raise LeaseLost(f"{len(items) - written} of jobs "
                            f"{[lease.job_id for lease, _, _ in items]} lost their lease")
        for (_, job, _), values in zip(items, stamped, strict=True):
            _set_written(job, values)

    def _stamped(self, values: dict[str, object], now: datetime | None = None
                 ) -> dict[str, object]:
        """`values` with updated_at, and for a final state finished_at and no lease."""
        now = now or self.now()
        values = {**values, "updated_at": now}
        if values.get("state") in (*FINAL, PENDING_CREDITS):
            values.update(lease_owner=None, lease_until=None)
            if values["state"] in FINAL:
                values["finished_at"] = now
        return values

    def finish(
        self, lease: Lease, state: str, *, error: str | None = None,
        session: Session | None = None, **values: object,
    ) -> Job:
        """Move a running job to `state` (done, failed, skipped, pending_credits) under `lease`.

        `values` are further Job columns to set (dest_path, result...). Raises LeaseLost.
        Repeating it after success raises LeaseLost (the job is no longer running).
        """
        if state not in (DONE, FAILED, SKIPPED, PENDING_CREDITS):
            raise ValueError(f"cannot finish a job as {state!r}")
        if session is None:
            with self.db.write_session() as s:
                job = self.finish(lease, state, error=error, session=s, **values)
            emit(job, RUNNING, state, error=error)
            return job
        job = self.guard(session, lease)
        now = self.now()
        job.state = state
        job.error = error
        job.lease_owner = None
        job.lease_until = None
        job.updated_at = now
        if state in FINAL:
            job.finished_at = now
        for key, value in values.items():
            setattr(job, key, value)
        session.add(job)
        return job

    def retry_later(
        self, lease: Lease, error: str, *, retry_after: float | None = None,
        count_attempt: bool = True,
    ) -> Job:
        """After a transient error: queue again after an exponential backoff
        (retry_backoff_s * 2^(attempts-1), at least `retry_after`), or `failed` with the error once
        `max_attempts` are spent. `count_attempt=False` gives the attempt back (not the job's
        fault, e.g. the connection was stopped). Raises LeaseLost.
        """
        with self.db.write_session() as s:
            job = self.guard(s, lease)
            now = self.now()
            if not count_attempt:
                job.attempts = max(0, job.attempts - 1)
            if count_attempt and job.attempts >= self.settings.max_attempts:
                job.state = FAILED
                job.finished_at = now
                job.error = f"{error} (after {job.attempts} attempts)"
            else:
                delay = self.backoff(max(job.attempts, 1))
                if retry_after is not None:
                    delay = max(delay, retry_after)
                job.state = QUEUED
                job.error = error
                job.next_attempt_at = now + timedelta(seconds=delay)
            job.lease_owner = None
            job.lease_until = None
            job.updated_at = now
            s.add(job)
        emit(job, RUNNING, job.state, error=error, attempt=job.attempts)
        return job

    def backoff(self, attempt: int) -> float:
        """Seconds before retry number `attempt` (1-based): retry_backoff_s doubled per attempt,
        capped at one hour."""
        return float(min(self.settings.retry_backoff_s * (2 ** (attempt - 1)), 3600.0))

    def update_plan(self, lease: Lease, session: Session, **values: object) -> Job:
        """Set planning columns of a running job under `lease` in `session`. Raises LeaseLost."""
        job = self.guard(session, lease)
        for key, value in values.items():
            setattr(job, key, value)
        job.updated_at = self.now()
        session.add(job)
        return job

    # -- manual operations and the pending-credits wake-up ---------------------------------

    def retry(self, job_id: int) -> Job:
        """Queue a failed, skipped or pending job again now, with a fresh attempt count.

        Raises JobNotFound, or ValueError for a job in another state. Safe to repeat only
        while the job is in one of those states.
        """
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


_INSERT_JOBS = insert(Job).returning(col(Job.id), sort_by_parameter_order=True)
_LAST_JOB_ID = select(func.max(Job.id))
_JOBS_AFTER = select(Job.id, Job.file_id, Job.revision).where(
    col(Job.id) > bindparam("after"), col(Job.connection) == bindparam("connection"))
#: every column of a job row, None where the row has no value
_NO_VALUES: dict[str, object] = dict.fromkeys(Job.model_fields)
_mapped = False


def _configure() -> None:
    global _mapped
    configure_mappers()  # attribute access on new instances needs configured mappers
    _mapped = True


#: the columns a new job's row is written with (enqueue_many's rows)
_NEW_JOB_COLUMNS = ("connection", "owner_id", "file_id", "revision", "source_path", "name",
                    "size", "state", "attempts", "lease_generation", "next_attempt_at",
                    "created_at", "updated_at")


#: the INSERT of new jobs on SQLite (their ids are read back after it: see `_insert`)
_INSERT_NEW_JOBS = Prepared(insert(Job).values(bound(_NEW_JOB_COLUMNS)))


def _set_written(job: Job, values: dict[str, object]) -> None:
    """Give `job` (the caller's copy) the values just written to its row: straight into a
    detached copy (what `claim` hands out), as committed values into one a session holds (so
    the session has nothing to flush)."""
    if job._sa_instance_state.session_id is None:  # type: ignore[attr-defined]
        job.__dict__.update(values)
    else:
        for key, value in values.items():
            set_committed_value(job, key, value)


def loaded_job(values: dict[str, object]) -> Job:
    """A detached Job holding `values` (columns of a row just written or read), made the way
    the ORM makes the objects it loads: no validation, which is what makes `Job(**values)`
    ~30 times slower (it cost more than a poll's whole INSERT). Columns not in `values` are
    None. The object belongs to no session; do not `session.add` it."""
    if not _mapped:
        _configure()
    job: Job = Job._sa_class_manager.new_instance()  # type: ignore[attr-defined]
    job.__dict__.update(_NO_VALUES)
    job.__dict__.update(values)
    return job


_DUE = or_(  # queued and due, or running with a lease that ran out (its worker died)
    and_(col(Job.state) == QUEUED, col(Job.next_attempt_at) <= bindparam("now")),
    and_(col(Job.state) == RUNNING, col(Job.lease_until) < bindparam("now")),
)
_CLAIMABLE_PROBE = select(Job.id).where(_DUE).limit(1)
#: written out, not a parameter: the query planners then see that the partial index of pending
#: jobs (ix_jobs_owner_pending) applies
_IS_PENDING = col(Job.state) == literal_column(f"'{PENDING_CREDITS}'")
#: the grant hook's UPDATE: an owner's pending jobs created since `oldest` queued again
_WAKE = (update(Job)
         .where(col(Job.owner_id) == bindparam("user"), _IS_PENDING,
                col(Job.created_at) >= bindparam("oldest"))
         .values(state=QUEUED, attempts=0, next_attempt_at=bindparam("now"),
                 updated_at=bindparam("now"), error=None))
#: another claimer's live lease (few jobs run at a time: the state index finds them)
_OTHERS_AT_WORK = Prepared(select(Job.id).where(
    col(Job.state) == RUNNING, col(Job.lease_owner) != bindparam("owner"),
    col(Job.lease_until) >= bindparam("now")).limit(1))
_JOBS = Job.__table__  # type: ignore[attr-defined]
_EXPIRED = Prepared(
    select(Job.id).where(col(Job.state) == RUNNING, col(Job.lease_until) < bindparam("now"))
    .order_by(col(Job.lease_until)).limit(bindparam("limit")).with_for_update(skip_locked=True))
_QUEUED_DUE = Prepared(
    select(Job.id).where(col(Job.state) == QUEUED, col(Job.next_attempt_at) <= bindparam("now"))
    .order_by(col(Job.next_attempt_at), col(Job.id)).limit(bindparam("limit"))
    .with_for_update(skip_locked=True))
#: UPDATE of the running job under a lease; the columns set are the parameters given
_FENCED_UPDATE = update(Job).where(col(Job.id) == bindparam("job"),
                                   col(Job.lease_generation) == bindparam("gen"),
                                   col(Job.state) == RUNNING)
_CLAIM = Prepared(update(Job).where(col(Job.id).in_(bindparam("jobs", expanding=True))).values(
    state=RUNNING, lease_owner=bindparam("owner"), lease_until=bindparam("until"),
    lease_generation=col(Job.lease_generation) + 1, attempts=col(Job.attempts) + 1,
    updated_at=bindparam("now")).returning(*_JOBS.c))
_LEASES_QUERY = select(Job.id, Job.lease_generation, Job.state).where(
    col(Job.id).in_(bindparam("jobs", expanding=True)))
_LEASES = Prepared(_LEASES_QUERY)
_LEASES_FOR_UPDATE = Prepared(_LEASES_QUERY.with_for_update())
_fenced_updates: dict[tuple[str, ...], Prepared] = {}


def _fenced_update(columns: tuple[str, ...]) -> Prepared:
    """`_FENCED_UPDATE` setting `columns` (one prepared statement per set of columns)."""
    found = _fenced_updates.get(columns)
    if found is None:
        found = _fenced_updates[columns] = Prepared(
            _FENCED_UPDATE.values(bound(columns)))
    return found


def notify_others(session: Session) -> None:
    """On PostgreSQL, NOTIFY the other processes' idle workers when `session` commits (jobs
    became claimable). Elsewhere nothing: SQLite processes hear every commit (db_watch)."""
    if session.get_bind().dialect.name == "postgresql":
        session.exec(text(f"NOTIFY {NOTIFY_CHANNEL}"))  # type: ignore[call-overload]


def wake_pending(session: Session, user_id: str, now: datetime) -> int:
    """Grant hook: queue every `pending_credits` job of `user_id` created at most
    `credits.resume_max_age_days` ago, in the grant's transaction. Returns how many.

    Older pending jobs stay pending (manual retry only). Safe to repeat.
    """
    max_age = _resume_max_age_days
    if max_age is None:
        max_age = _cli_resume_max_age_days()
    oldest = now - timedelta(days=max_age)
    result = session.exec(  # type: ignore[call-overload]
        _WAKE, params={"user": user_id, "oldest": oldest, "now": now})
    woken = int(result.rowcount or 0)
    if woken:
        notify_others(session)
        jobs_available.set()
        log.info("credits granted: %d pending job(s) of user %s queued", woken, user_id)
    return woken


#: set by the daemon from its settings; None: read from the config file when a grant happens
_resume_max_age_days: int | None = None


def configure(credits: CreditsSettings) -> None:
    """Use these credit settings for the grant hook in this process."""
    global _resume_max_age_days
    _resume_max_age_days = credits.resume_max_age_days


def _cli_resume_max_age_days() -> int:
    """The setting of the running CLI command's config (e.g. `renamerd credits grant --config
    F`), else the default."""
    try:
        import click

        ctx = click.get_current_context(silent=True)
        from renamerd.context import AppContext

        app = ctx.find_object(AppContext) if ctx is not None else None
        if app is not None:
            return int(app.settings.credits.resume_max_age_days)
    except Exception:  # no CLI, or its config cannot be read: the default
        log.debug("no CLI settings for the grant hook", exc_info=True)
    return CreditsSettings().resume_max_age_days


def _chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _grant_hook(session: Session, user_id: str, now: datetime) -> None:
    wake_pending(session, user_id, now)


credits_module.register_grant_hook(_grant_hook)
