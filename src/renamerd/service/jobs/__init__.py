"""Jobs: one document of one connection, processed exactly once.

A job is unique per (connection, file_id, revision)::

    queued -> running -> done | failed | skipped | pending_credits
    pending_credits -> queued   (a grant, for jobs at most credits.resume_max_age_days old;
                                 or `renamerd jobs retry`)
    failed | skipped -> queued  (`renamerd jobs retry`)
    done -> undone -> queued    (Undo moves the file back; Rename again queues it anew)
    running -> queued           (transient error: retried with exponential backoff)

Claiming takes a *lease*: `lease_owner`, `lease_until`, and a `lease_generation` bumped on every
claim. A job whose lease ran out (its worker died) can be claimed again; every later write by a
worker names the generation it holds (`Lease`) and is refused with `LeaseLost` when someone else
has claimed the job since, so a stale worker can never finish a job it no longer owns (fencing).

The modules: `states` (the names), `queue` (enqueue, claim, read, retry: `JobQueue`), `leases`
(what a lease holder may do), `events` (transition listeners and worker wake-ups), `pending`
(the wake-up of a grant), `rows` (the hot path's statements).
"""

from renamerd.service.jobs.events import (
    NOTIFY_CHANNEL,
    TransitionListener,
    add_transition_listener,
    emit,
    emit_many,
    jobs_available,
    notify_others,
)
from renamerd.service.jobs.leases import LeasedJobs
from renamerd.service.jobs.pending import wake_pending
from renamerd.service.jobs.queue import JobQueue
from renamerd.service.jobs.rows import loaded_job
from renamerd.service.jobs.states import (
    DONE,
    FAILED,
    FINAL,
    PENDING_CREDITS,
    QUEUED,
    RETRYABLE,
    RUNNING,
    SKIPPED,
    STATES,
    UNDONE,
    JobNotFound,
    Lease,
    LeaseLost,
    charge_ref,
    planned_path,
)

__all__ = [
    "DONE", "FAILED", "FINAL", "NOTIFY_CHANNEL", "PENDING_CREDITS", "QUEUED", "RETRYABLE",
    "RUNNING", "SKIPPED", "STATES", "UNDONE", "JobNotFound", "JobQueue", "Lease", "LeaseLost",
    "LeasedJobs",
    "TransitionListener", "add_transition_listener", "charge_ref", "emit", "emit_many",
    "jobs_available", "loaded_job", "notify_others", "planned_path", "wake_pending",
]
