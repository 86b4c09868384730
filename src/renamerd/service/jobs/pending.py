"""The pending-credits wake-up: a grant queues its owner's recent `pending_credits` jobs.

Called by `Credits.grant` inside the granting transaction (the credits service knows how old a
pending job may be to wake: `credits.resume_max_age_days`); the job queue never calls credits.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import bindparam, literal_column, update
from sqlmodel import Session, col

from renamerd.service.jobs.events import jobs_available, notify_others
from renamerd.service.jobs.states import PENDING_CREDITS, QUEUED
from renamerd.storage.models import Job

log = logging.getLogger("renamerd.jobs")

#: written out, not a parameter: the query planners then see that the partial index of pending
#: jobs (ix_jobs_owner_pending) applies
IS_PENDING = col(Job.state) == literal_column(f"'{PENDING_CREDITS}'")
#: an owner's pending jobs created since `oldest` queued again
_WAKE = (update(Job)
         .where(col(Job.owner_id) == bindparam("user"), IS_PENDING,
                col(Job.created_at) >= bindparam("oldest"))
         .values(state=QUEUED, attempts=0, next_attempt_at=bindparam("now"),
                 updated_at=bindparam("now"), error=None))


def wake_pending(session: Session, user_id: str, now: datetime, max_age_days: int) -> int:
    """Queue every `pending_credits` job of `user_id` created at most `max_age_days` ago, in
    `session` (the grant's transaction). Returns how many. Older pending jobs stay pending
    (manual retry only). Safe to repeat."""
    oldest = now - timedelta(days=max_age_days)
    result = session.exec(  # type: ignore[call-overload]
        _WAKE, params={"user": user_id, "oldest": oldest, "now": now})
    woken = int(result.rowcount or 0)
    if woken:
        notify_others(session)
        jobs_available.set()
        log.info("credits granted: %d pending job(s) of user %s queued", woken, user_id)
    return woken
