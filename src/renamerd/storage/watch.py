"""Hearing other processes' writes to a SQLite database, the way LISTEN does on PostgreSQL.

Several `renamerd` processes can share one SQLite file on one machine. An idle worker must learn
that another process queued jobs (its poller found files, an admin granted credits) without
looking every few milliseconds. Every commit in WAL mode writes the `-wal` file next to the
database, so an inotify watch on that file's folder hears every write of every process on this
machine. `SqliteWrites.wait` returns True after such a write; the worker then does its cheap
indexed look for due jobs. Writes come in bursts while jobs run (a few per batch), so a wait
gathers what comes in the next few milliseconds into one wake-up.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from sqlalchemy.engine.url import make_url

from renamerd.storage.database import Database

log = logging.getLogger(__name__)

#: milliseconds a wait gathers the writes that follow the first one
_GATHER_MS = 5


class SqliteWrites:
    """An inotify watch for writes to one SQLite database file. Not thread-safe: one thread
    waits; `close()` from that thread."""

    def __init__(self, inotify: Any, wal_name: str) -> None:
        self._inotify = inotify
        self._wal = wal_name

    @classmethod
    def watch(cls, db: Database) -> SqliteWrites | None:
        """A watch on `db`'s file, or None where there is nothing to watch or no inotify (not a
        SQLite file, not Linux, no inotify watches left): callers then look on a timer."""
        path = make_url(db.url).database or ""
        if not db.is_sqlite or not path or path == ":memory:":
            return None
        try:
            from inotify_simple import INotify
            from inotify_simple import flags as F
        except ImportError:
            return None
        path = os.path.abspath(path)
        try:
            inotify = INotify()
        except OSError:
            return None
        try:
            inotify.add_watch(os.path.dirname(path), F.MODIFY | F.CREATE)
        except OSError as err:
            log.debug("cannot watch %s for writes: %s", path, err.strerror)
            inotify.close()
            return None
        return cls(inotify, os.path.basename(path) + "-wal")

    def wait(self, timeout_s: float) -> bool:
        """Block until the database was written or `timeout_s` pass; True after a write."""
        events = self._inotify.read(timeout=max(0, int(timeout_s * 1000)),
                                    read_delay=_GATHER_MS)
        return any(event.name == self._wal for event in events)

    def close(self) -> None:
        """Release the watch. Safe to repeat."""
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
