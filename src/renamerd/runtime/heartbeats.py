"""Lease heartbeats: one thread extends the leases of every running job of a worker."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator

from renamerd.service import jobs as J

log = logging.getLogger("renamerd.worker")


class Heartbeat:
    """One running job's lease as seen by the `Heartbeats` thread: `.lost` turns true once the
    lease is gone; `check()` raises LeaseLost then."""

    def __init__(self, queue: J.JobQueue, lease: J.Lease, interval: float) -> None:
        self.queue, self.lease, self.interval = queue, lease, interval
        self.lost = False
        self.next_beat = time.monotonic() + interval

    def beat(self) -> None:
        """Extend the lease once (marks `lost` when it is gone). Never raises."""
        try:
            if not self.queue.heartbeat(self.lease):
                self.lost = True
        except Exception:  # database hiccup: try again next beat
            log.warning("heartbeat of job %d failed", self.lease.job_id, exc_info=True)
        self.next_beat = time.monotonic() + self.interval

    def check(self) -> None:
        if self.lost:
            raise J.LeaseLost(f"job {self.lease.job_id}: lease lost")


class Heartbeats:
    """Extends the leases of every running job of one Worker from a single thread (started on
    first use), each every `interval` seconds. Starting a thread per job cost more than a
    one-page PDF's database writes. `track(...)` is a context manager giving the job's
    Heartbeat; leaving it stops the beats for that lease. Thread-safe."""

    def __init__(self) -> None:
        self._beats: dict[int, Heartbeat] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        #: when the thread wakes next by itself (it is told about beats due sooner only)
        self._wakes_at = 0.0

    @contextlib.contextmanager
    def track(self, queue: J.JobQueue, lease: J.Lease, interval: float) -> Iterator[Heartbeat]:
        beat = Heartbeat(queue, lease, interval)
        with self._lock:
            self._beats[id(beat)] = beat
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="heartbeats", daemon=True)
                self._thread.start()
            elif beat.next_beat < self._wakes_at:
                self._wake.notify()
        try:
            yield beat
        finally:
            with self._lock:
                self._beats.pop(id(beat), None)

    def _run(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                due = [b for b in self._beats.values() if b.next_beat <= now]
                if not due:
                    wait = min((b.next_beat for b in self._beats.values()), default=now + 60)
                    self._wakes_at = max(now + 0.05, wait)
                    self._wake.wait(self._wakes_at - now)
                    continue
            for beat in due:  # outside the lock: a beat is a database write
                with self._lock:
                    live = id(beat) in self._beats
                if live:
                    beat.beat()
