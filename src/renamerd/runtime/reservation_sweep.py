"""The periodic refund of credits reserved by killed processes (`service.stale_reservations`),
run by the daemon and the API at start and then every `RECONCILE_EVERY_S` seconds.

A reservation is stale once it is older than `credits.reservation_grace_s` plus
`engine.deadline_seconds`: no live request holds one that long (the engine is killed at its
deadline, and the charge or refund follows within milliseconds).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from renamerd.config import Settings
from renamerd.service.stale_reservations import refund_stale
from renamerd.storage.database import Database
from renamerd.storage.models import utcnow

log = logging.getLogger("renamerd.credits")

#: seconds between two sweeps
RECONCILE_EVERY_S = 60.0


class StaleReservations:
    """`sweep()` once; `start()`/`stop()` a thread that sweeps every `every_s` seconds."""

    def __init__(self, db: Database, settings: Settings,
                 every_s: float = RECONCILE_EVERY_S) -> None:
        self.db = db
        self.settings = settings
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def age(self) -> timedelta:
        """How old a reservation must be to be stale (read at each sweep: reloads apply)."""
        return timedelta(seconds=self.settings.credits.reservation_grace_s
                         + self.settings.engine.deadline_seconds)

    @property
    def enabled(self) -> bool:
        return self.settings.credits.enabled

    def sweep(self) -> int:
        """Refund the stale reservations now; returns how many. Raises database errors."""
        if not self.enabled:
            return 0
        return len(refund_stale(self.db, utcnow() - self.age))

    def sweep_logged(self) -> int:
        """`sweep()`, logging what it did; never raises (the next sweep tries again)."""
        try:
            count = self.sweep()
        except Exception:
            log.warning("refunding stale credit reservations failed", exc_info=True)
            return 0
        if count:
            log.info("refunded %d credit reservation(s) left by an interrupted process", count)
        return count

    def start(self) -> None:
        """Sweep now, then every `every_s` seconds in a daemon thread, until `stop()`."""
        self.sweep_logged()
        self._thread = threading.Thread(target=self._loop, name="stale-reservations",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            self.sweep_logged()
