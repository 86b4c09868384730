"""What the holder of a job's lease may do: beat, check, write fenced, finish, retry later.

Every write names the lease generation it holds and is refused with `LeaseLost` when someone
else claimed the job since (fencing), so a stale worker can never finish a job it lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from renamerd.config import CreditsSettings, DaemonSettings
from renamerd.service.jobs import rows
from renamerd.service.jobs.events import emit
from renamerd.service.jobs.states import (
    DONE,
    FAILED,
    FINAL,
    PENDING_CREDITS,
    QUEUED,
    RUNNING,
    SKIPPED,
    Lease,
    LeaseLost,
)
from renamerd.storage.database import Database
from renamerd.storage.models import Job, utcnow


class LeasedJobs:
    """The lease holder's operations on one database (the base of `JobQueue`). Thread-safe;
    `now` is injectable for tests."""

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

    # -- the lease --------------------------------------------------------------------------

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
        found = session.connection().execute(
            rows.LEASES_FOR_UPDATE if self.db.is_postgres else rows.LEASES,
            {"jobs": [lease.job_id for lease in leases]})
        current = {job_id: (generation, state) for job_id, generation, state in found}
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
        written = session.connection().execute(rows.FENCED_UPDATE, [
            {"job": lease.job_id, "gen": lease.generation, **values}
            for (lease, _, _), values in zip(items, stamped, strict=True)]).rowcount
        if 0 <= written != len(items):  # (-1: the driver cannot tell; leases checked)
            raise LeaseLost(f"{len(items) - written} of jobs "
                            f"{[lease.job_id for lease, _, _ in items]} lost their lease")
        for (_, job, _), values in zip(items, stamped, strict=True):
            rows.set_written(job, values)

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
