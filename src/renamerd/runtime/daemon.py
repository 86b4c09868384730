"""The daemon: poll connections on a schedule, run worker threads, stop cleanly, talk to systemd.

- An APScheduler 3 `BackgroundScheduler` runs one interval job per enabled connection
  (`poll_seconds`). A poll first takes the connection's *poll lease* in `connection_states`
  (owner + expiry), so with many processes on one PostgreSQL database a connection is polled by
  one process at a time; the lease is renewed on every poll and handed over when it expires.
  New files and the new cursor are written in one transaction.
- Worker threads claim jobs in batches (`JobQueue.claim`, `Worker.run_batch`). An idle worker
  sleeps on an event with a timeout of `IDLE_S` (1) seconds: set at once by enqueues, grants and
  retries in this process; from other processes through a LISTEN on `renamerd_jobs` on PostgreSQL
  (grants and polls NOTIFY it), and on a SQLite file through an inotify watch of its `-wal` file
  (`db_watch.SqliteWrites`: every commit of every process writes it). Without inotify the
  timeout on SQLite is 0.2 s (a look costs one indexed read, ~0.2 ms). Jobs whose retry time
  comes are seen within the timeout. No loop spins while jobs wait.
- `stop(grace)`: stop polling and claiming, give running jobs `grace` seconds, release the poll
  leases. Jobs still running after the grace keep their lease until it expires and are then
  reconciled by whoever claims them.
- A connection whose connector raises AuthError is marked `stopped` with the message; its poll
  and its jobs wait, the other connections keep running. A restart clears the mark.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy.exc import IntegrityError

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import AuthError, Connector, ConnectorError, TransientError
from renamerd.runtime import observability as obs
from renamerd.runtime.startup import prepare_long_running
from renamerd.runtime.worker import ConnectorPool, EngineFn, Worker, stop_connection
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState, utcnow
from renamerd.storage.watch import SqliteWrites

log = logging.getLogger("renamerd.runtime.daemon")

#: seconds an idle worker sleeps before it looks for due jobs again
IDLE_S = 1.0
#: the same on a SQLite file that cannot be watched for other processes' writes (no inotify)
IDLE_SQLITE_S = 0.2
#: a worker thread claims as many jobs as it runs in about this long (see BatchPace): a
#: batch's three transactions and its claim cost ~3 ms whatever its size (measured: 64 ->
#: 128 text PDFs a batch saved ~0.03 ms of the daemon's CPU a document)
BATCH_TARGET_S = 1.0
BATCH_MAX = 128
#: longest a poller keeps a moved cursor in memory before writing it (when no files are new)
CURSOR_FLUSH_S = 30.0


def sd_notify(message: str) -> bool:
    """Send `message` ("READY=1", "WATCHDOG=1", "STOPPING=1") to systemd's $NOTIFY_SOCKET.

    Returns False (and does nothing) when not run by systemd with Type=notify. Never raises.
    """
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError:
        log.debug("sd_notify %s failed", message, exc_info=True)
        return False


#: least time between two back-to-back polls of a long-polling connection
LONGPOLL_FLOOR_S = 0.2


def _long_polls(conf: ConnectionSettings) -> bool:
    """Whether the connection's provider can wait for changes (a long poll)."""
    from renamerd.connectors import load_connector

    try:
        return hasattr(load_connector(conf.provider), "wait_for_changes")
    except ConnectorError:
        return False


def watchdog_interval(settings: Settings) -> float | None:
    """Seconds between WATCHDOG=1 pings: half of systemd's WatchdogSec (when it asks for
    pings of this process), at most `daemon.watchdog_s`; None when systemd does not ask."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(0.5, min(int(usec) / 2_000_000, settings.daemon.watchdog_s))
    except ValueError:
        return None


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


class Daemon:
    """Scheduler + workers of one process. `start()`, then `stop(grace)`; `alive()` for /readyz."""

    def __init__(
        self, settings: Settings, db: Database, *, workers: int | None = None, poll: bool = True,
        engine: EngineFn | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.n_workers = settings.daemon.workers if workers is None else workers
        self.poll_enabled = poll
        self.queue = J.JobQueue(db, settings.daemon, settings.credits)
        self.pool = ConnectorPool(settings, db)
        self.worker = Worker(settings, db, self.queue, self.pool, engine=engine)
        self.scheduler = BackgroundScheduler(timezone="UTC")
        self.owners: dict[str, str] = {}
        self._stopping = threading.Event()
        #: worker threads, and the threads that long-poll a provider or watch the database
        self._threads: list[threading.Thread] = []
        self._pollers: list[threading.Thread] = []
        self._busy = 0  # jobs running
        self._busy_lock = threading.Lock()
        #: worker threads waiting for jobs, and set while there is one (the SQLite watch
        #: listens only then)
        self._idle_workers = 0
        self._someone_idle = threading.Event()
        self._poll_connectors: dict[str, Connector] = {}
        self._listener: threading.Thread | None = None
        self._db_watch: SqliteWrites | None = None
        #: per connection: the newest cursor and when it was last written to the database
        self._cursors: dict[str, tuple[str, float]] = {}

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Ensure connection owners, warm the engine up, start the scheduler and the workers,
        tell systemd READY."""
        obs.install(self.db)
        accounts = Accounts(self.db, self.settings)
        for conf in self.settings.connections:
            self.owners[conf.name] = accounts.ensure_user(conf.owner).id
        self._reset_connection_states()
        if self.worker.clean_tmp():
            log.info("removed staged downloads left by a killed process")
        if self.n_workers and self.worker.uses_default_engine:
            log.debug("engine warmed up in %.2fs", prepare_long_running())
        if self.poll_enabled:
            for conf in self.settings.connections:
                if conf.enabled and _long_polls(conf):
                    t = threading.Thread(target=self._poll_loop, args=(conf,),
                                         name=f"longpoll-{conf.name}", daemon=True)
                    t.start()
                    self._pollers.append(t)
                elif conf.enabled:
                    self.scheduler.add_job(
                        self.poll, "interval", seconds=conf.poll_seconds, args=[conf.name],
                        id=f"poll:{conf.name}", max_instances=1, coalesce=True,
                        next_run_time=utcnow(), misfire_grace_time=None,
                    )
        interval = watchdog_interval(self.settings)
        if interval:
            self.scheduler.add_job(self._watchdog, "interval", seconds=interval, id="watchdog")
        self.scheduler.start()
        if self.db.is_sqlite and self.n_workers:  # before the workers: it sets their idle timeout
            self._db_watch = SqliteWrites.watch(self.db)
        for i in range(self.n_workers):
            t = threading.Thread(target=self._work, args=(f"{self.identity}/{i}",),
                                 name=f"worker-{i}", daemon=True)
            t.start()
            self._threads.append(t)
        if self.db.is_postgres and self.n_workers:
            self._listener = threading.Thread(target=self._listen, name="pg-listen", daemon=True)
            self._listener.start()
        elif self._db_watch is not None:
            self._listener = threading.Thread(target=self._listen_sqlite, name="sqlite-watch",
                                              daemon=True)
            self._listener.start()
        log.info("daemon %s started: %d worker(s), polling %s", self.identity, self.n_workers,
                 "on" if self.poll_enabled else "off")
        sd_notify("READY=1")

    def stop(self, grace: float | None = None) -> bool:
        """Stop polling and claiming; wait up to `grace` seconds (server.shutdown_grace_s) for
        running jobs. Returns True when every worker finished in time. Safe to repeat."""
        grace = self.settings.server.shutdown_grace_s if grace is None else grace
        if not self._stopping.is_set():
            sd_notify("STOPPING=1")
            log.info("stopping: %d job(s) running, %.0fs grace", self.busy, grace)
        self._stopping.set()
        J.jobs_available.set()
        self._someone_idle.set()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        deadline = time.monotonic() + grace
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        clean = not any(t.is_alive() for t in self._threads)
        for t in self._pollers:  # a long poll returns with its provider's answer; no job waits
            t.join(min(0.5, max(0.0, deadline - time.monotonic())))
        if not clean:
            log.warning("grace period over with %d job(s) running; their leases will expire",
                        self.busy)
        self._release_poll_leases()
        if clean:
            self.pool.close()
        return clean

    def alive(self) -> bool:
        """Whether the scheduler runs and every worker thread is alive (for /readyz)."""
        if self._stopping.is_set():
            return False
        return self.scheduler.running and all(
            t.is_alive() for t in (*self._threads, *self._pollers))

    @property
    def busy(self) -> int:
        return self._busy

    def _watchdog(self) -> None:
        if self.alive():
            sd_notify("WATCHDOG=1")

    # -- polling ---------------------------------------------------------------------------

    def poll(self, name: str) -> int:
        """Poll connection `name` once if this process holds (or takes) its poll lease.

        Returns the number of new jobs (0 when another process holds the lease or the
        connection is stopped). Never raises: provider errors are logged and counted.
        """
        return self._poll_once(name) or 0

    def _poll_once(self, name: str) -> int | None:
        """`poll`, telling apart a poll that reached the provider (the number of new jobs)
        from one that did not (None: stopping, no lease, stopped connection, an error)."""
        if self._stopping.is_set():
            return None
        conf = self.pool.config(name)
        if conf is None:
            return None
        cursor = self._take_poll_lease(conf)
        if cursor is False:
            return None
        try:
            connector = self._poll_connector(conf)
            wait = getattr(connector, "wait_for_changes", None)
            if (callable(wait) and isinstance(cursor, str) and cursor
                    and not wait(cursor, min(conf.poll_seconds, 30.0))):
                return 0  # the provider's long poll says nothing changed
            changes = connector.changes(conf.watch, cursor if isinstance(cursor, str) else None,
                                        recursive=conf.recursive)
        except AuthError as err:
            obs.provider_error(name, "auth")
            stop_connection(self.db, name, str(err))
            self._drop_poll_connector(name)
            return None
        except TransientError as err:
            obs.provider_error(name, "transient")
            log.warning("poll of %s: %s", name, err)
            self._drop_poll_connector(name)
            return None
        except ConnectorError as err:
            obs.provider_error(name, type(err).__name__)
            log.warning("poll of %s: %s: %s", name, type(err).__name__, err)
            return None
        except Exception:
            if self._stopping.is_set():  # its connector was closed under a long poll
                log.debug("poll of %s ended by the stop", name, exc_info=True)
            else:
                log.exception("poll of %s failed", name)
            return None
        return self._record(conf, changes.files, changes.cursor,
                            cursor if isinstance(cursor, str) else None)

    def _poll_loop(self, conf: ConnectionSettings) -> None:
        """Polls back to back for providers with a long poll (Dropbox): each poll blocks in the
        provider's wait until something changes (or `poll_seconds` pass), so a new file is
        picked up at once instead of at the next scheduled poll. After a poll that did not reach
        the provider (no lease, an error), sleeps out the rest of `poll_seconds`: no busy loop."""
        while not self._stopping.is_set():
            started = time.monotonic()
            if self._poll_once(conf.name) is not None:
                # the provider was asked: its next wait blocks until news; the floor keeps a
                # long poll that answers at once (a misbehaving server) from spinning
                self._stopping.wait(max(0.0, LONGPOLL_FLOOR_S - (time.monotonic() - started)))
                continue
            rest = conf.poll_seconds - (time.monotonic() - started)
            if rest > 0:
                self._stopping.wait(rest)

    def _take_poll_lease(self, conf: ConnectionSettings) -> str | None | bool:
        """Take or renew the poll lease; the stored cursor (None: none yet) or False when
        another process holds the lease or the connection is stopped."""
        now = utcnow()
        ttl = max(2 * conf.poll_seconds, 5.0) + 30.0 * hasattr(
            self._poll_connectors.get(conf.name), "wait_for_changes")
        with self.db.session() as s:  # the common cases need no write lock
            seen = s.get(ConnectionState, conf.name)
        if seen is not None:
            if seen.status == "stopped":
                return False
            if seen.poll_lease_until is not None:
                left = (seen.poll_lease_until - now).total_seconds()
                if seen.poll_owner not in (None, self.identity) and left > 0:
                    return False
                if seen.poll_owner == self.identity and left > ttl / 2:
                    return self._cursor_of(conf.name, seen.cursor)
        with self.db.write_session() as s:
            state = self._state_for_update(s, conf.name)
            if state.status == "stopped":
                return False
            if (state.poll_owner not in (None, self.identity) and state.poll_lease_until
                    and state.poll_lease_until > now):
                return False
            if state.poll_owner != self.identity:
                self._cursors.pop(conf.name, None)  # taking over: the stored cursor rules
            state.poll_owner = self.identity
            state.poll_lease_until = now + timedelta(seconds=ttl)
            s.add(state)
            return self._cursor_of(conf.name, state.cursor)

    def _cursor_of(self, name: str, stored: str | None) -> str | None:
        """The newest cursor while this process holds the lease: the one kept in memory
        (written to the database with new files, or every CURSOR_FLUSH_S), else the stored one."""
        cached = self._cursors.get(name)
        return cached[0] if cached is not None else stored

    def _state_for_update(self, s: object, name: str) -> ConnectionState:
        from sqlmodel import Session, select

        assert isinstance(s, Session)
        query = select(ConnectionState).where(ConnectionState.name == name).with_for_update()
        state = s.exec(query).first()
        if state is None:
            try:  # processes starting together all find no row: one insert wins
                with s.begin_nested():
                    s.add(ConnectionState(name=name))
            except IntegrityError:
                pass
            state = s.exec(query.execution_options(populate_existing=True)).one()
        return state

    def _record(self, conf: ConnectionSettings, files: list, cursor: str,  # type: ignore[type-arg]
                old_cursor: str | None = None) -> int:
        if not files and cursor == old_cursor:
            return 0  # an idle poll writes nothing
        written = self._cursors.get(conf.name, (None, 0.0))[1]
        if not files and time.monotonic() - written < CURSOR_FLUSH_S:
            # only the cursor moved (a local folder's settle counters, files leaving): keep it
            # in memory; an older stored cursor only re-reports files, which enqueue ignores
            self._cursors[conf.name] = (cursor, written)
            return 0
        with self.db.write_session() as s:
            state = self._state_for_update(s, conf.name)
            if state.poll_owner != self.identity:
                self._cursors.pop(conf.name, None)
                return 0  # the lease moved on while we listed; the new owner will see them
            new = self.queue.enqueue_many(conf.name, self.owners[conf.name], files, session=s)
            state.cursor = cursor
            state.last_poll_at = utcnow()
            s.add(state)
        self._cursors[conf.name] = (cursor, time.monotonic())
        J.emit_many((job, "new", J.QUEUED, {}) for job in new)
        if new:
            self.queue.notify()
        return len(new)

    def _poll_connector(self, conf: ConnectionSettings) -> Connector:
        connector = self._poll_connectors.get(conf.name)
        if connector is None:
            connector = self.pool.open_new(conf.name)
            self._poll_connectors[conf.name] = connector
        return connector

    def _drop_poll_connector(self, name: str) -> None:
        connector = self._poll_connectors.pop(name, None)
        if connector is not None:
            try:
                connector.close()
            except Exception:
                log.debug("close failed", exc_info=True)

    def _reset_connection_states(self) -> None:
        names = [c.name for c in self.settings.connections]
        with self.db.write_session() as s:
            for name in names:
                state = self._state_for_update(s, name)
                if state.status == "stopped":
                    log.info("connection %s was stopped (%s); trying it again", name, state.error)
                state.status, state.error = "ok", None
                s.add(state)

    def _release_poll_leases(self) -> None:
        try:
            with self.db.write_session() as s:
                for conf in self.settings.connections:
                    state = self._state_for_update(s, conf.name)
                    if state.poll_owner == self.identity:
                        cached = self._cursors.pop(conf.name, None)
                        if cached is not None:
                            state.cursor = cached[0]
                        state.poll_owner, state.poll_lease_until = None, None
                        s.add(state)
        except Exception:
            log.warning("could not release the poll leases", exc_info=True)
        for name in list(self._poll_connectors):
            self._drop_poll_connector(name)

    # -- workers ---------------------------------------------------------------------------

    def _work(self, owner: str) -> None:
        """A worker thread: claim a batch as `owner` (this process's identity and the thread's
        number: its siblings count as other claimers when a burst ends), run it, repeat."""
        busy = False
        # without a way to hear other processes' writes, look for their new jobs more often
        idle_s = IDLE_SQLITE_S if self.db.is_sqlite and self._db_watch is None else IDLE_S
        pace = BatchPace()
        while not self._stopping.is_set():
            try:
                claimed = self.queue.claim(owner, limit=pace.size(), share=True,
                                           look_first=not busy)
                busy = bool(claimed)
            except Exception:
                log.warning("claiming failed; retrying", exc_info=True)
                self._stopping.wait(IDLE_S)
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
            while not self._stopping.is_set():
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
        while not self._stopping.is_set():
            try:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {J.NOTIFY_CHANNEL}")
                    while not self._stopping.is_set():
                        for _ in conn.notifies(timeout=1.0):
                            J.jobs_available.set()
            except Exception:
                log.debug("LISTEN connection lost; reconnecting", exc_info=True)
                self._stopping.wait(5)


def run_until_signalled(daemon: Daemon, on_stop: Callable[[], None] | None = None) -> bool:
    """Block until SIGTERM or SIGINT, then stop `daemon` within server.shutdown_grace_s and call
    `on_stop` (e.g. stop the HTTP server). Returns whether the workers finished in time. Call it
    from the main thread."""
    import signal

    stop = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        log.info("signal %s received", signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stop.wait(1.0):
            pass
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
    clean = daemon.stop()
    if on_stop is not None:
        on_stop()
    return clean
