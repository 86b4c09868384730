"""The daemon: poll connections on a schedule, run worker threads, stop cleanly, talk to systemd.

- An APScheduler 3 `BackgroundScheduler` runs one interval job per enabled connection
  (`poll_seconds`); providers with a long poll get a thread of their own (`poller.Poller`).
- Worker threads claim jobs in batches and run them (`worker_threads.WorkerThreads`,
  `worker.Worker`).
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

from apscheduler.schedulers.background import BackgroundScheduler

from renamerd.config import ConnectionSettings, Settings
from renamerd.runtime import notifications
from renamerd.runtime import observability as obs
from renamerd.runtime import reload as reloading
from renamerd.runtime.engine_pool import CLIENT_GRACE_S, EnginePool
from renamerd.runtime.poller import Poller, long_polls
from renamerd.runtime.reservation_sweep import RECONCILE_EVERY_S, StaleReservations
from renamerd.runtime.systemd import sd_notify, watchdog_interval
from renamerd.runtime.worker import ConnectorPool, EngineFn, Worker
from renamerd.runtime.worker_threads import WorkerThreads
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.connections import all_connections
from renamerd.service.processes import BEAT_S, ProcessRegistry
from renamerd.storage.database import Database
from renamerd.storage.models import utcnow

log = logging.getLogger("renamerd.daemon")
#: how often each daemon process reads the connections again (users' edits take effect)
SYNC_S = 3.0

#: longest a stopping daemon waits for a poll's transaction under way (its jobs' insert)
POLL_WRITE_S = 5.0

#: seconds a stopping daemon lets documents being read finish before it kills its engine workers
#: (their jobs are retried; moves in progress still get the whole grace)
ENGINE_GRACE_S = 2.0


class Daemon:
    """Scheduler + workers of one process. `start()`, then `stop(grace)`; `alive()` for /readyz."""

    def __init__(
        self, settings: Settings, db: Database, *, workers: int | None = None, poll: bool = True,
        engine: EngineFn | None = None, engine_pool: EnginePool | None = None,
    ) -> None:
        """`engine` (tests) runs in the worker threads; otherwise the engine runs in
        `engine_pool` (shared with the API by `renamerd run`), or in a pool of the daemon's own,
        started by `start()` and stopped by `stop()`."""
        self.settings = settings
        self.db = db
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.poll_enabled = poll
        self.queue = J.JobQueue(db, settings.daemon, settings.credits)
        self.pool = ConnectorPool(settings, db)
        self._own_pool = (EnginePool.from_settings(settings)
                          if engine is None and engine_pool is None else None)
        self.engine_pool = engine_pool or self._own_pool
        if engine is None and self.engine_pool is not None:
            engine = self.engine_pool.rename
        self.worker = Worker(settings, db, self.queue, self.pool, engine=engine)
        self.reservations = StaleReservations(db, settings)
        self.scheduler = BackgroundScheduler(timezone="UTC")
        self._stopping = threading.Event()
        self.poller = Poller(settings, db, self.queue, self.pool, self.identity, self._stopping)
        self.workers = WorkerThreads(
            self.worker, db, self.identity,
            settings.daemon.workers if workers is None else workers, self._stopping)
        #: the threads that long-poll a provider
        self._pollers: list[threading.Thread] = []
        self.started_at = utcnow()
        self.notifications: notifications.NotificationRelay | None = None

    @property
    def owners(self) -> dict[str, str]:
        """Each connection's owner (user id), known once `start()` ran."""
        return self.poller.owners

    @owners.setter
    def owners(self, value: dict[str, str]) -> None:
        self.poller.owners = value

    @property
    def busy(self) -> int:
        return self.workers.busy

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Ensure connection owners, warm the engine up, start the scheduler and the workers,
        tell systemd READY."""
        obs.install(self.db)
        accounts = Accounts(self.db, self.settings)
        for conf in list(self.pool.by_name.values()):
            self.owners[conf.name] = accounts.ensure_user(conf.owner).id
        self.poller.reset_states()
        self._start_notifications()
        if self.worker.clean_tmp():
            log.info("removed staged downloads left by a killed process")
        if self.workers.count and self._own_pool is not None:
            self._own_pool.start()
        self.reservations.sweep_logged()
        self.scheduler.add_job(self.reservations.sweep_logged, "interval",
                               seconds=RECONCILE_EVERY_S, id="stale-reservations")
        if self.poll_enabled:
            self._schedule_polls()
        interval = watchdog_interval(self.settings)
        if interval:
            self.scheduler.add_job(self._watchdog, "interval", seconds=interval, id="watchdog")
        self._beat()  # the admin's "workers alive"
        self.scheduler.add_job(self._beat, "interval", seconds=BEAT_S, id="process-beat")
        self.scheduler.add_job(self._sync_quietly, "interval", seconds=SYNC_S,
                               id="sync-connections", max_instances=1, coalesce=True)
        self.scheduler.start()
        self.workers.start()
        log.info("daemon %s started: %d worker(s), polling %s", self.identity,
                 self.workers.count, "on" if self.poll_enabled else "off")
        sd_notify("READY=1")

    def _start_notifications(self) -> None:
        self.notifications = notifications.start(self.settings, self.db, self._owner_of)
        self._schedule_digest()

    def _schedule_digest(self) -> None:
        """The weekly digest's job, as [notify] says now (none while `digest` is off)."""
        if self.scheduler.get_job("digest") is not None:
            self.scheduler.remove_job("digest")
        notify, relay = self.settings.notify, self.notifications
        if notify.digest and relay is not None:
            self.scheduler.add_job(relay.digest, "cron", day_of_week=notify.digest_weekday,
                                   hour=notify.digest_hour, id="digest", coalesce=True,
                                   misfire_grace_time=6 * 3600)

    def _owner_of(self, name: str) -> tuple[str, str] | None:
        """A connection's owner (user id) and provider, for notifications."""
        conf = self.pool.config(name)
        owner = self.owners.get(name)
        return (owner, conf.provider) if conf is not None and owner is not None else None

    def _schedule_polls(self) -> None:
        for conf in list(self.pool.by_name.values()):
            self._schedule_poll(conf)

    def _schedule_poll(self, conf: ConnectionSettings) -> None:
        if conf.enabled and long_polls(conf):  # the loop ends once `conf` is not current
            t = threading.Thread(target=self.poller.loop, args=(conf,),
                                 name=f"longpoll-{conf.name}", daemon=True)
            t.start()
            self._pollers.append(t)
        elif conf.enabled:
            self.scheduler.add_job(
                self.poll, "interval", seconds=conf.poll_seconds, args=[conf.name],
                id=f"poll:{conf.name}", max_instances=1, coalesce=True,
                next_run_time=utcnow(), misfire_grace_time=None, replace_existing=True,
            )

    def reload(self, new: Settings) -> reloading.ReloadPlan:
        """Apply a re-read config (runtime/reload.py says what changes live): log each change
        and what needs a restart. Running jobs are not touched. Safe to repeat."""
        what = reloading.plan(self.settings, new)
        reloading.apply(self.settings, new, what)
        if "logging" in what.live:
            obs.setup_logging(self.settings.logging)
        if {"engine", "limits"} & set(what.live):  # the engine's config holds the upload limit
            self.worker.__dict__.pop("engine_config", None)  # rebuilt on next use
            if self.engine_pool is not None:
                self.engine_pool.reconfigure(self.settings)
        if "notify" in what.live and not self._stopping.is_set():
            self._schedule_digest()
        self.sync_connections()  # [providers] too: the users' connections take their options
        for line in reloading.describe(what):
            log.info("reload: %s", line)
        return what

    def sync_connections(self) -> list[str]:
        """Bring the connections in line with the config file's and the users' (made in the
        web app; every few seconds, so an edit takes effect within one poll on every process).
        Returns the names added, removed or changed. Running jobs are not touched."""
        changed = self.pool.reconfigure(all_connections(self.settings, self.db))
        accounts = Accounts(self.db, self.settings)
        for name in changed:
            self.owners.pop(name, None)
            if self.scheduler.get_job(f"poll:{name}") is not None:
                self.scheduler.remove_job(f"poll:{name}")
        self._pollers = [t for t in self._pollers if t.is_alive()]
        for name in changed:
            conf = self.pool.by_name.get(name)
            if conf is None:
                log.info("connection %r removed", name)
                continue
            log.info("connection %r added or changed", name)
            self.owners[name] = accounts.ensure_user(conf.owner).id
            if self.poll_enabled and not self._stopping.is_set():
                self._schedule_poll(conf)
        return changed

    def _sync_quietly(self) -> None:
        try:
            self.sync_connections()
        except Exception:
            log.warning("reading the connections failed; trying again shortly", exc_info=True)

    def stop(self, grace: float | None = None) -> bool:
        """Stop polling first (no job is queued by this process once the stop begins, not even
        by a poll listing its folder at that moment), then claiming; wait up to `grace` seconds
        (server.shutdown_grace_s) for running jobs. Returns True when every worker finished in
        time. Safe to repeat."""
        grace = self.settings.server.shutdown_grace_s if grace is None else grace
        deadline = time.monotonic() + grace
        first = not self._stopping.is_set()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)  # no poll starts; one under way writes nothing
        self.poller.halt(min(grace, POLL_WRITE_S))  # sets _stopping: the workers claim no more
        if first:
            sd_notify("STOPPING=1")
            log.info("stopping: polling stopped; %d job(s) running, %.0fs grace",
                     self.busy, grace)
        self.workers.wake_all()
        clean = self.workers.join(min(deadline, time.monotonic() + ENGINE_GRACE_S))
        if self.engine_pool is not None:  # a rename still reading is cut (its job is retried)
            # (the API's renames on the shared pool get their grace first: a client waits)
            self.engine_pool.wait_for_clients(
                max(0.0, min(deadline, time.monotonic() + CLIENT_GRACE_S) - time.monotonic()))
            self.engine_pool.stop()
        clean = clean or self.workers.join(deadline)
        for t in self._pollers:  # a long poll returns with its provider's answer; no job waits
            t.join(min(0.5, max(0.0, deadline - time.monotonic())))
        if not clean:
            log.warning("grace period over with %d job(s) running; their leases will expire",
                        self.busy)
        self.poller.release_leases()
        try:
            ProcessRegistry(self.db).gone(self.identity)
        except Exception:
            log.warning("could not remove this process from daemon_processes", exc_info=True)
        if self.notifications is not None:
            self.notifications.stop(min(5.0, max(0.0, deadline - time.monotonic())))
        if clean:
            self.pool.close()
        return clean

    def alive(self) -> bool:
        """Whether the scheduler runs and every worker thread is alive (for /readyz)."""
        if self._stopping.is_set():
            return False
        return (self.scheduler.running and self.workers.alive()
                and all(t.is_alive() for t in self._pollers))

    def poll(self, name: str) -> int:
        """Poll connection `name` once (see `Poller.poll`)."""
        return self.poller.poll(name)

    def _beat(self) -> None:
        """Record this process as alive (never raises: a missed beat only ages the row)."""
        try:
            ProcessRegistry(self.db).beat(self.identity, started_at=self.started_at,
                                          workers=self.workers.count, polling=self.poll_enabled)
        except Exception:
            log.warning("process beat failed", exc_info=True)

    def _watchdog(self) -> None:
        if self.alive():
            sd_notify("WATCHDOG=1")


#: set by SIGHUP; run_until_signalled reloads when it sees it
_reload_wanted = threading.Event()


def hold_reloads() -> None:
    """From now on SIGHUP asks for a reload instead of ending the process (its default); the
    reload happens once run_until_signalled runs. Call it first thing in a long-running
    command, from the main thread."""
    import signal

    signal.signal(signal.SIGHUP, lambda _signum, _frame: _reload_wanted.set())


def run_until_signalled(daemon: Daemon, on_stop: Callable[[], None] | None = None,
                        on_reload: Callable[[], None] | None = None) -> bool:
    """Block until SIGTERM or SIGINT, then stop `daemon` within server.shutdown_grace_s and call
    `on_stop` (e.g. stop the HTTP server). SIGHUP calls `on_reload` (re-read the config; it
    must not raise) and goes on. Returns whether the workers finished in time. Call it from
    the main thread."""
    import signal

    stop = threading.Event()
    reload_wanted = _reload_wanted

    def handler(signum: int, _frame: object) -> None:
        log.info("signal %s received", signal.Signals(signum).name)
        (reload_wanted if signum == signal.SIGHUP else stop).set()

    previous = {sig: signal.signal(sig, handler)
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        while not stop.wait(0.2):
            if reload_wanted.is_set():
                reload_wanted.clear()
                if on_reload is not None:
                    on_reload()
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
    clean = daemon.stop()
    if on_stop is not None:
        on_stop()
    return clean
