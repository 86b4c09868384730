"""Daemon processes: each `renamerd run` / `renamerd worker` records itself and beats every
`BEAT_S` seconds; a process whose last beat is younger than `ALIVE_S` counts as alive (the
Admin page's "workers alive"). A clean stop removes the row; a killed process's row ages out.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import col, select

from renamerd.storage.database import Database
from renamerd.storage.models import DaemonProcess, utcnow

#: seconds between two beats of a process
BEAT_S = 15.0
#: a process that has not beaten for this long is taken for dead
ALIVE_S = 60.0
#: rows of processes silent for this long are deleted at the next beat of any process
FORGET_AFTER = timedelta(days=1)


class ProcessRegistry:
    """The daemon processes of one database. Thread-safe; `now` injectable for tests."""

    def __init__(self, db: Database, now: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.now = now

    def beat(self, identity: str, *, started_at: datetime, workers: int, polling: bool) -> None:
        """Record that process `identity` is alive now (creating its row). Safe to repeat."""
        now = self.now()
        with self.db.write_session() as s:
            row = s.get(DaemonProcess, identity) or DaemonProcess(
                identity=identity, started_at=started_at)
            row.last_beat_at = now
            row.workers = workers
            row.polling = polling
            s.add(row)
            s.exec(delete(DaemonProcess).where(  # type: ignore[call-overload]
                col(DaemonProcess.last_beat_at) < now - FORGET_AFTER))

    def gone(self, identity: str) -> None:
        """Remove the process's row (a clean stop). Safe to repeat."""
        with self.db.write_session() as s:
            s.exec(delete(DaemonProcess).where(  # type: ignore[call-overload]
                col(DaemonProcess.identity) == identity))

    def alive(self, within_s: float = ALIVE_S) -> list[DaemonProcess]:
        """The processes that beat within the last `within_s` seconds, oldest first."""
        since = self.now() - timedelta(seconds=within_s)
        with self.db.session() as s:
            return list(s.exec(select(DaemonProcess)
                               .where(col(DaemonProcess.last_beat_at) >= since)
                               .order_by(col(DaemonProcess.started_at))))
