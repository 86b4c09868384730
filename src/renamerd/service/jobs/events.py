"""Telling the rest of the process about jobs: transition listeners (logs, metrics), and the
wake-ups of idle workers (this process: an event; other processes: PostgreSQL NOTIFY)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from sqlalchemy import text
from sqlmodel import Session

from renamerd.storage.models import Job

log = logging.getLogger("renamerd.jobs")

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


def notify_others(session: Session) -> None:
    """On PostgreSQL, NOTIFY the other processes' idle workers when `session` commits (jobs
    became claimable). Elsewhere nothing: SQLite processes hear every commit (db_watch)."""
    if session.get_bind().dialect.name == "postgresql":
        session.exec(text(f"NOTIFY {NOTIFY_CHANNEL}"))  # type: ignore[call-overload]
