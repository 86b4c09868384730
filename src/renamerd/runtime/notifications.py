"""Where notifications come from in a daemon process, handed to a thread of their own so that no
worker or poller waits for a mail server.

- a job going to `pending_credits` (a transition listener): "pending_credits" for its owner;
- a connection stopped by an AuthError (`connector_pool.add_stop_listener`):
  "connection_stopped" for its owner;
- `notify.poll_failures` failed polls of a connection in a row (`poll_failed`, told by the
  poller): "connection_failing";
- the weekly digest, a scheduled job of the daemon (`digest`).

The Notifier makes sure each kind reaches a user at most once a day, across processes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from renamerd.config import Settings
from renamerd.runtime.connector_pool import add_stop_listener
from renamerd.service import jobs as J
from renamerd.service.notify import Notifier
from renamerd.storage.database import Database
from renamerd.storage.models import Job

log = logging.getLogger("renamerd.notify")

#: (connection name) -> its owner's user id and provider, or None when unknown
OwnerLookup = Callable[[str], tuple[str, str] | None]


class NotificationRelay:
    """The events of one process, turned into notifications in a background thread."""

    def __init__(self, notifier: Notifier, owner_of: OwnerLookup) -> None:
        self.notifier = notifier
        self.owner_of = owner_of
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="notify")

    def submit(self, user_id: str, kind: str, facts: dict[str, Any] | None = None) -> None:
        """Notify in the background (a no-op for kinds switched off)."""
        if self.notifier.wants(kind):
            self._executor.submit(self._run, self.notifier.notify, user_id, kind, facts)

    def digest(self) -> None:
        """Send the weekly digests in the background (the daemon's scheduled job)."""
        if self.notifier.wants("digest"):
            self._executor.submit(self._run, self.notifier.send_digests)

    @staticmethod
    def _run(fn: Callable[..., object], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:  # a notification must never take the process down
            log.exception("notification failed")

    def job_changed(self, job: Job, _old: str, new: str, _fields: dict[str, object]) -> None:
        if new == J.PENDING_CREDITS:
            self.submit(job.owner_id, "pending_credits")

    def connection_stopped(self, name: str, message: str) -> None:
        owner = self.owner_of(name)
        if owner is not None:
            self.submit(owner[0], "connection_stopped",
                        {"connection": name, "provider": owner[1], "error": message})

    def poll_failed(self, name: str, error: str) -> None:
        """A poll of `name` failed; the `notify.poll_failures`-th in a row notifies."""
        with self._lock:
            count = self._failures[name] = self._failures.get(name, 0) + 1
        owner = self.owner_of(name)
        if count == self.notifier.settings.notify.poll_failures and owner is not None:
            self.submit(owner[0], "connection_failing",
                        {"connection": name, "provider": owner[1], "error": error,
                         "failures": count})

    def poll_succeeded(self, name: str) -> None:
        with self._lock:
            self._failures.pop(name, None)

    def stop(self, wait_s: float = 5.0) -> None:
        """Stop taking events; deliveries under way get `wait_s` seconds to finish."""
        global _current
        if _current is self:
            _current = None
        done = threading.Thread(target=self._executor.shutdown, kwargs={"wait": True},
                                daemon=True)
        done.start()
        done.join(wait_s)


#: the relay of this process (one daemon per process); the module-level hooks forward to it
_current: NotificationRelay | None = None


def start(settings: Settings, db: Database, owner_of: OwnerLookup) -> NotificationRelay:
    """The relay of this process, listening to job transitions and stopped connections."""
    global _current
    if _current is not None:
        _current.stop(0)
    _current = NotificationRelay(Notifier(db, settings), owner_of)
    J.add_transition_listener(_job_changed)
    add_stop_listener(_connection_stopped)
    return _current


def _job_changed(job: Job, old: str, new: str, fields: dict[str, object]) -> None:
    if _current is not None:
        _current.job_changed(job, old, new, fields)


def _connection_stopped(name: str, message: str) -> None:
    if _current is not None:
        _current.connection_stopped(name, message)


def poll_failed(name: str, error: str) -> None:
    """Told by the poller after a poll of `name` failed (a provider or connector error)."""
    if _current is not None:
        _current.poll_failed(name, error)


def poll_succeeded(name: str) -> None:
    """Told by the poller after a poll of `name` reached its provider."""
    if _current is not None:
        _current.poll_succeeded(name)
