"""Job states and the names a job's life is told in: leases, charge references."""

from __future__ import annotations

from dataclasses import dataclass

from renamerd.connectors import join_path
from renamerd.storage.models import Job

QUEUED = "queued"
RUNNING = "running"
DONE = "done"
FAILED = "failed"
SKIPPED = "skipped"
PENDING_CREDITS = "pending_credits"
#: a done job whose file was moved back by its owner (Undo); the daemon leaves the file alone
UNDONE = "undone"
STATES = (QUEUED, RUNNING, DONE, FAILED, SKIPPED, PENDING_CREDITS, UNDONE)
FINAL = (DONE, FAILED, SKIPPED)
#: states `retry` moves back to queued
RETRYABLE = (FAILED, SKIPPED, PENDING_CREDITS)


class LeaseLost(Exception):
    """The job was claimed by someone else (or finished) since this lease was taken."""


class JobNotFound(Exception):
    pass


#: job ids are 64-bit integers in the database; anything outside cannot name a job
MAX_JOB_ID = 2**63 - 1


def check_job_id(job_id: int) -> None:
    """Raise JobNotFound for an id no job can have (under 1, or past 64 bits: a database
    would refuse to compare with it)."""
    if not 1 <= job_id <= MAX_JOB_ID:
        raise JobNotFound(f"no job with id {job_id}")


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
