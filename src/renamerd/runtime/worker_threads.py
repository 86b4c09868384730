"""The worker threads of one process: claim a batch, run it, repeat; sleep while nothing is due.

An idle worker sleeps on an event with a timeout of `IDLE_S` (1) seconds: set at once by
enqueues, grants and retries in this process; from other processes through a LISTEN on
`renamerd_jobs` on PostgreSQL (grants and polls NOTIFY it), and on a SQLite file through an
inotify watch of its `-wal` file (`storage.watch.SqliteWrites`: every commit of every process
writes it). Without inotify the timeout on SQLite is 0.2 s (a look costs one indexed read,
~0.2 ms). Jobs whose retry time comes are seen within the timeout. No loop spins while jobs wait.
"""

from __future__ import annotations

import logging
import threading
import time

from renamerd.runtime import observability as obs
from renamerd.runtime.worker import Worker
from renamerd.service import jobs as J
from renamerd.storage.database import Database
from renamerd.storage.watch import SqliteWrites

log = logging.getLogger("renamerd.daemon")

#: seconds an idle worker sleeps before it looks for due jobs again
IDLE_S = 1.0
#: the same on a SQLite file that cannot be watched for other processes' writes (no inotify)
IDLE_SQLITE_S = 0.2
#: a worker thread claims as many jobs as it runs in about this long (see BatchPace): a
#: batch's three transactions and its claim cost ~3 ms whatever its size (measured: 64 ->
#: 128 text PDFs a batch saved ~0.03 ms of the daemon's CPU a document)
BATCH_TARGET_S = 1.0
BATCH_MAX = 128


class BatchPace:
    """How many jobs one worker thread claims at once: as many as it runs in about
    `target_s` seconds, judged from the time its recent jobs took (1 to `most`). Quick
    documents (a text PDF in a few ms) then share their claim and their two transactions;
    slow ones (OCR, a second or more) go one by one, so idle workers elsewhere get them."""

    def __init__(self, target_s: float = BATCH_TARGET_S, most: int = BATCH_MAX) -> None:
        self.target_s, self.most = target_s, most
        self.per_job_s: float | None = None

    def size(self) -> int:
        if self.per_job_s is None:
            return 1
        return max(1, min(self.most, int(self.target_s / max(self.per_job_s, 1e-4) + 1e-6)))

    def learn(self, elapsed_s: float, jobs: int) -> None:
        """Record that `jobs` jobs took `elapsed_s` seconds: a moving average over jobs (each
        job weighs alike, so a batch of 40 outweighs the one slow first document of a
        process, where a per-batch average needed many batches to forget it)."""
        per_job = elapsed_s / max(jobs, 1)
        keep = 0.9 ** max(jobs, 1)
        self.per_job_s = per_job if self.per_job_s is None else (
            keep * self.per_job_s + (1 - keep) * per_job)


class WorkerThreads:
    """`count` worker threads running `worker`'s batches, and the thread that hears other
    processes' new jobs. `start()`, then set `stopping` and `join(deadline)`."""

    def __init__(self, worker: Worker, db: Database, identity: str, count: int,
                 stopping: threading.Event) -> None:
        self.worker = worker
        self.queue = worker.queue
        self.db = db
        self.identity = identity
        self.count = count
        self.stopping = stopping
        self.threads: list[threading.Thread] = []
        self._busy = 0  # jobs running
        self._busy_lock = threading.Lock()
        #: worker threads waiting for jobs, and set while there is one (the SQLite watch
        #: listens only then)
        self._idle_workers = 0
        self._someone_idle = threading.Event()
        self._listener: threading.Thread | None = None
        self._db_watch: SqliteWrites | None = None

    @property
    def busy(self) -> int:
        """Jobs running now."""
        return self._busy

    def start(self) -> None:
        """Start the worker threads and, where other processes can be heard, the listener."""
        if not self.count:
            return
        if self.db.is_sqlite:  # before the workers: it sets their idle timeout
            self._db_watch = SqliteWrites.watch(self.db)
        for i in range(self.count):
            t = threading.Thread(target=self._work, args=(f"{self.identity}/{i}",),
                                 name=f"worker-{i}", daemon=True)
            t.start()
            self.threads.append(t)
        if self.db.is_postgres:
            self._listener = threading.Thread(target=self._listen, name="pg-listen", daemon=True)
            self._listener.start()
        elif self._db_watch is not None:
            self._listener = threading.Thread(target=self._listen_sqlite, name="sqlite-watch",
                                              daemon=True)
            self._listener.start()

    def wake_all(self) -> None:
        """Wake every waiting thread (they see `stopping`)."""
        J.jobs_available.set()
        self._someone_idle.set()

    def join(self, deadline: float) -> bool:
        """Wait until `deadline` (time.monotonic()) for the worker threads; True when all ended."""
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self.threads)

    def alive(self) -> bool:
        return all(t.is_alive() for t in self.threads)

    def _work(self, owner: str) -> None:
        """A worker thread: claim a batch as `owner` (this process's identity and the thread's
        number: its siblings count as other claimers when a burst ends), run it, repeat."""
        busy = False
        # without a way to hear other processes' writes, look for their new jobs more often
        idle_s = IDLE_SQLITE_S if self.db.is_sqlite and self._db_watch is None else IDLE_S
        pace = BatchPace()
        while not self.stopping.is_set():
            try:
                claimed = self.queue.claim(owner, limit=pace.size(), share=True,
                                           look_first=not busy)
                busy = bool(claimed)
            except Exception:
                log.warning("claiming failed; retrying", exc_info=True)
                self.stopping.wait(IDLE_S)
                continue
            if not claimed:
                self._wait_for_jobs(idle_s)
                continue
            with self._busy_lock:
                self._busy += len(claimed)
            started = time.monotonic()
            outcomes = ["error"] * len(claimed)
            try:
                outcomes = self.worker.run_batch(claimed)
            except Exception:
                log.exception("jobs %s: unexpected error", [lease.job_id for _, lease in claimed])
            finally:
                elapsed = time.monotonic() - started
                pace.learn(elapsed, len(claimed))
                for outcome in outcomes:  # each job took the batch's time from claim to end
                    obs.observe_run(outcome, elapsed)
                with self._busy_lock:
                    self._busy -= len(claimed)

    def _wait_for_jobs(self, idle_s: float) -> None:
        """An idle worker thread: wait until jobs may be claimable (a poll here, a grant, a
        write by another process) or `idle_s` pass."""
        with self._busy_lock:
            self._idle_workers += 1
            self._someone_idle.set()
        try:
            if J.jobs_available.wait(idle_s):
                J.jobs_available.clear()
        finally:
            with self._busy_lock:
                self._idle_workers -= 1
                if not self._idle_workers:
                    self._someone_idle.clear()

    def _listen_sqlite(self) -> None:
        """SQLite: wake idle workers whenever another process writes the database (new jobs,
        grants, retries), as LISTEN does on PostgreSQL. Listens only while a worker waits for
        jobs: a busy worker claims again when its batch ends, and this process's own commits
        would wake this thread a few times per batch (each wake-up takes the GIL from the
        engine)."""
        watch = self._db_watch
        assert watch is not None
        try:
            while not self.stopping.is_set():
                if self._someone_idle.wait(IDLE_S) and watch.wait(1.0):
                    J.jobs_available.set()
        finally:
            watch.close()

    def _listen(self) -> None:
        """PostgreSQL: wake idle workers on NOTIFY renamerd_jobs (grants in other processes)."""
        import psycopg
        from sqlalchemy.engine.url import make_url

        url = make_url(self.db.url).set(drivername="postgresql")
        dsn = url.render_as_string(hide_password=False)
        while not self.stopping.is_set():
            try:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {J.NOTIFY_CHANNEL}")
                    while not self.stopping.is_set():
                        for _ in conn.notifies(timeout=1.0):
                            J.jobs_available.set()
            except Exception:
                log.debug("LISTEN connection lost; reconnecting", exc_info=True)
                self.stopping.wait(5)
