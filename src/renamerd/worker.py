"""One job, end to end, exactly once.

    download (temp file in daemon.state_dir, size cap) -> engine -> ensure the folder, pick a free
    name -> ONE transaction: reserve the credit (ref "job:<id>") + record the planned folder and
    name -> move -> ONE transaction: done + commit the charge + journal entry

A job that already has a planned destination (its worker crashed or hit a transient error after
planning) is *reconciled* with the provider instead: the file already at the destination: finish;
still at the source: move it; gone: fail and refund. Every write names the lease it holds, so a
worker whose lease was taken over cannot finish the job (`LeaseLost`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renamerd import jobs as J
from renamerd.config import ConnectionSettings, Settings
from renamerd.connector import (
    AuthError,
    Conflict,
    Connector,
    ConnectorError,
    NotFound,
    RemoteFile,
    TooLarge,
    TransientError,
    free_name,
    join_path,
    open_connector,
)
from renamerd.credits import Credits, InsufficientCredits
from renamerd.db import Database
from renamerd.engine.types import (
    DocumentTooLarge,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)
from renamerd.journal import record_now as journal_record
from renamerd.models import ConnectionState, Job

log = logging.getLogger("renamerd.worker")

EngineFn = Callable[[bytes, str, RenameOptions, Any], RenameResult]
#: outcome of `Worker.run_job` when the lease was lost midway
LOST = "lost"
#: seconds a job waits when its connection was stopped (auth) before it is looked at again
STOPPED_RETRY_S = 300.0


def default_engine() -> EngineFn:
    from renamerd.engine import rename  # type: ignore[attr-defined]

    return rename  # type: ignore[no-any-return]


class ConnectorPool:
    """Opened connectors, one per (connection, thread) since a connector is used from one thread
    at a time. Secrets come from `secrets_store.connector_options` when that module exists."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        self.by_name = {c.name: c for c in settings.connections}
        self._local = threading.local()
        self._all: list[Connector] = []
        self._lock = threading.Lock()

    def config(self, name: str) -> ConnectionSettings | None:
        return self.by_name.get(name)

    def get(self, name: str) -> Connector:
        """This thread's connector for connection `name`. Raises KeyError for an unknown
        connection, ConnectorError (ConfigError, AuthError) when it cannot be opened."""
        cache: dict[str, Connector] = getattr(self._local, "cache", None) or {}
        self._local.cache = cache
        if name not in cache:
            cache[name] = self.open_new(name)
        return cache[name]

    def open_new(self, name: str) -> Connector:
        """A new connector for `name`, closed by `close()`. Same errors as `get`."""
        conf = self.by_name[name]
        state_dir = str(Path(self.settings.daemon.state_dir) / "connections" / name)
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        connector = open_connector(conf.provider, self._options(conf), name=name,
                                   state_dir=state_dir)
        self._keep_rotated_tokens(conf, connector)
        with self._lock:
            self._all.append(connector)
        return connector

    def _options(self, conf: ConnectionSettings) -> dict[str, Any]:
        try:
            from renamerd import secrets_store  # type: ignore[attr-defined]
        except ImportError:
            return dict(conf.options)
        return dict(secrets_store.connector_options(self.db, self.settings, conf))

    def _keep_rotated_tokens(self, conf: ConnectionSettings, connector: Connector) -> None:
        """Providers that rotate refresh tokens (Microsoft: on every refresh) announce the new
        one through `on_token_rotated`; store it encrypted, so a restart months later still
        signs in. Only for tokens that came from the store (the config file is the admin's)."""
        if not hasattr(connector, "on_token_rotated"):
            return
        if "refresh_token" in conf.options or "refresh_token_file" in conf.options:
            return
        from renamerd import secrets_store

        if not secrets_store.has_key(self.settings):
            return

        def store(token: str) -> None:
            try:
                secrets_store.store_refresh_token(self.db, self.settings, conf.name, token)
            except Exception:  # never let bookkeeping break a provider call
                log.warning("could not store the rotated refresh token of %s", conf.name)

        connector.on_token_rotated = store

    def drop(self, name: str) -> None:
        """Forget this thread's connector for `name` (reopened on next use)."""
        cache = getattr(self._local, "cache", {})
        connector = cache.pop(name, None)
        if connector is not None:
            _close(connector)

    def close(self) -> None:
        with self._lock:
            connectors, self._all = self._all, []
        for c in connectors:
            _close(c)


def _close(connector: Connector) -> None:
    try:
        connector.close()
    except Exception:
        log.debug("closing a connector failed", exc_info=True)


def stop_connection(db: Database, name: str, message: str) -> None:
    """Mark connection `name` stopped with `message` (an AuthError: a person must reconnect)."""
    with db.write_session() as s:
        state = s.get(ConnectionState, name) or ConnectionState(name=name)
        state.status = "stopped"
        state.error = message[:2000]
        s.add(state)
    log.error("connection %s stopped: %s", name, message)


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

    @contextlib.contextmanager
    def track(self, queue: J.JobQueue, lease: J.Lease, interval: float) -> Iterator[Heartbeat]:
        beat = Heartbeat(queue, lease, interval)
        with self._lock:
            self._beats[id(beat)] = beat
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="heartbeats", daemon=True)
                self._thread.start()
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
                    self._wake.wait(max(0.05, wait - now))
                    continue
            for beat in due:  # outside the lock: a beat is a database write
                with self._lock:
                    live = id(beat) in self._beats
                if live:
                    beat.beat()


@dataclass
class _Ctx:
    job: Job
    lease: J.Lease
    conf: ConnectionSettings
    connector: Connector
    beat: Heartbeat


class Worker:
    """Runs claimed jobs. One instance can serve many threads (it keeps no per-job state)."""

    def __init__(
        self, settings: Settings, db: Database, queue: J.JobQueue, pool: ConnectorPool,
        engine: EngineFn | None = None, credits: Credits | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.queue = queue
        self.pool = pool
        self._engine = engine
        self.credits = credits or Credits(db, settings.credits)
        self.tmp_dir = Path(settings.daemon.state_dir) / "tmp"
        #: owners whose last reservation failed (checked before the next download)
        self._broke: set[str] = set()
        self.heartbeats = Heartbeats()
        self.tmp_dir.mkdir(parents=True, exist_ok=True)

    def clean_tmp(self, older_than_s: float = 3600.0) -> int:
        """Delete staged downloads left by killed processes (older than `older_than_s`; live
        downloads are younger). Returns how many. Safe to repeat, from any process."""
        removed = 0
        cutoff = time.time() - older_than_s
        for path in self.tmp_dir.glob("job*"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except FileNotFoundError:
                continue
        return removed

    @property
    def uses_default_engine(self) -> bool:
        return self._engine is None or self._engine is default_engine()

    @property
    def engine(self) -> EngineFn:
        if self._engine is None:
            self._engine = default_engine()
        return self._engine

    # -- entry point -----------------------------------------------------------------------

    def run_job(self, job: Job, lease: J.Lease) -> str:
        """Take a claimed job to its next state; return that state (or LOST).

        Never raises for job trouble: errors become retries, failures or skips. Safe to call
        again for a re-claimed job (a recorded plan is reconciled, not redone).
        """
        conf = self.pool.config(job.connection)
        if conf is None:
            return self._safe(lambda: self.queue.retry_later(
                lease, f"connection {job.connection!r} is not configured here",
                retry_after=STOPPED_RETRY_S, count_attempt=False).state)
        interval = max(1.0, self.settings.daemon.lease_s / 3)
        with self.heartbeats.track(self.queue, lease, interval) as beat:
            try:
                connector = self._open(job.connection)
                ctx = _Ctx(job, lease, conf, connector, beat)
                if J.planned_path(job) is not None:
                    return self._reconcile(ctx)
                return self._fresh(ctx)
            except J.LeaseLost:
                log.warning("job %d: lease lost to another worker; dropping it", lease.job_id)
                return LOST
            except AuthError as err:
                stop_connection(self.db, job.connection, str(err))
                self.pool.drop(job.connection)
                return self._retry(lease, f"connection stopped: {err}", STOPPED_RETRY_S, False)
            except TransientError as err:
                self.pool.drop(job.connection)
                return self._retry(lease, f"provider: {err}", err.retry_after)
            except ConnectorError as err:
                return self._retry(lease, f"provider: {type(err).__name__}: {err}", None)
            except Exception as err:  # engine bugs, provider outages of the LLM...
                log.warning("job %d: %s", lease.job_id, type(err).__name__, exc_info=True)
                return self._retry(lease, f"{type(err).__name__}: {err}"[:500], None)

    def _open(self, name: str) -> Connector:
        """The connector, or AuthError when it cannot be opened for good (bad options, an
        undecryptable stored token): the connection is then stopped like on a refused token."""
        try:
            return self.pool.get(name)
        except (TransientError, AuthError):
            raise
        except Exception as err:
            raise AuthError(f"cannot open the connection: {type(err).__name__}: {err}") from err

    def _retry(self, lease: J.Lease, error: str, after: float | None, count: bool = True) -> str:
        def go() -> str:
            job = self.queue.retry_later(lease, error, retry_after=after, count_attempt=count)
            if job.state == J.FAILED and job.charge_ref:
                self.credits.refund(job.owner_id, job.charge_ref, reason="job failed")
            return job.state

        return self._safe(go)

    def _safe(self, fn: Callable[[], str]) -> str:
        try:
            return fn()
        except J.LeaseLost:
            return LOST

    # -- a job seen for the first time -----------------------------------------------------

    def _fresh(self, c: _Ctx) -> str:
        job = c.job
        if self.credits.enabled and job.owner_id in self._broke:
            # the last reservation for this owner failed: check before downloading and reading
            if self.credits.balance(job.owner_id) <= 0:
                return self._pending(c)
            self._broke.discard(job.owner_id)
        data = self._download(c)
        if isinstance(data, str):
            return data
        options = RenameOptions(
            strategy=c.conf.strategy, template_mode=c.conf.template_mode,
            custom_template=c.conf.custom_template, template_id=c.conf.template_id,
            language=c.conf.language,
        )
        try:
            result = self.engine(data, job.name, options, self.settings.engine_config())
        except (UnsupportedDocument, DocumentTooLarge, UnreadableDocument) as err:
            return self._finish(c, J.SKIPPED, error=f"{type(err).__name__}: {err}")
        del data
        c.beat.check()
        folder = _join_folder(c.conf.target_root, result.folder_path)
        folder_id = c.connector.ensure_folder(folder)
        name = free_name(c.connector, folder, result.suggested_filename)
        ref = J.charge_ref(c.lease.job_id)
        pending: Job | None = None
        with self.db.write_session() as s:
            self.queue.check_lease(s, c.lease)
            try:
                self.credits.reserve(job.owner_id, ref, session=s)
            except InsufficientCredits:
                self._broke.add(job.owner_id)
                pending = self.queue.update_fenced(s, c.lease, job, state=J.PENDING_CREDITS,
                                                   error="insufficient credits")
            else:  # the plan, in the reservation's transaction
                self.queue.update_fenced(
                    s, c.lease, job, planned_folder=folder, planned_name=name, charge_ref=ref,
                    result=json.dumps(_result_summary(result)),
                )
        if pending is not None:
            J.emit(pending, J.RUNNING, J.PENDING_CREDITS)
            return J.PENDING_CREDITS
        return self._move(c, folder_id, folder, name, result.suggested_filename)

    def _download(self, c: _Ctx) -> bytes | str:
        cap = self.settings.limits.max_upload_bytes
        fd, tmp = tempfile.mkstemp(prefix=f"job{c.lease.job_id}-", dir=self.tmp_dir)
        try:
            with os.fdopen(fd, "w+b") as fh:
                try:
                    c.connector.download(c.job.file_id, fh, cap)
                except TooLarge:
                    return self._finish(c, J.SKIPPED,
                                        error=f"too large: over {cap // (1024 * 1024)} MB")
                except NotFound:
                    return self._finish(c, J.SKIPPED, error="the file no longer exists")
                fh.seek(0)
                return fh.read()
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    # -- moving and finishing --------------------------------------------------------------

    def _move(self, c: _Ctx, folder_id: str, folder: str, name: str, wanted: str) -> str:
        clashed: list[str] = []
        for _ in range(10):
            c.beat.check()
            try:
                moved = c.connector.move(c.job.file_id, folder_id, name)
            except Conflict:
                clashed.append(name)
                name = free_name(c.connector, folder, wanted, skip=clashed)
                with self.db.write_session() as s:
                    self.queue.update_plan(c.lease, s, planned_name=name)
                c.job.planned_name = name
                continue
            except NotFound:
                return self._reconcile(c, after_move_error=True)
            return self._complete(c, moved)
        raise TransientError(f"names in {folder!r} kept being taken")

    def _complete(self, c: _Ctx, moved: RemoteFile) -> str:
        job = c.job
        with self.db.write_session() as s:  # fenced: nothing is written if the lease is gone
            done = self.queue.update_fenced(
                s, c.lease, job, state=J.DONE, error=None, dest_path=moved.path,
                dest_file_id=moved.id,
            )
            if done.charge_ref:
                self.credits.commit(job.owner_id, done.charge_ref, session=s)
            journal_record(
                s, connection=job.connection, file_id=job.file_id, old_path=job.source_path,
                new_path=moved.path, new_file_id=moved.id, job_id=job.id,
            )
        J.emit(done, J.RUNNING, J.DONE, duration_s=time.time() - done.created_at.timestamp())
        return J.DONE

    def _finish(self, c: _Ctx, state: str, *, error: str | None = None, refund: bool = False) -> str:
        with self.db.write_session() as s:
            job = self.queue.finish(c.lease, state, error=error, session=s)
            if refund and job.charge_ref:
                self.credits.refund(job.owner_id, job.charge_ref, reason=error or state, session=s)
        J.emit(job, J.RUNNING, state, error=error)
        return state

    def _pending(self, c: _Ctx) -> str:
        return self._finish(c, J.PENDING_CREDITS, error="insufficient credits")

    # -- after a crash: ask the provider where the file is ----------------------------------

    def _reconcile(self, c: _Ctx, *, after_move_error: bool = False) -> str:
        job = c.job
        dest = J.planned_path(job)
        assert dest is not None and job.planned_folder is not None and job.planned_name
        at_dest = c.connector.stat_path(dest)
        if at_dest is not None and _same_file(job, at_dest):
            if at_dest.id != job.file_id:
                # a path-id provider (local) may have stopped between link and unlink: the
                # file is at both places; repeating the move completes it
                leftover = c.connector.stat(job.file_id)
                if leftover is not None and leftover.revision == job.revision:
                    folder_id = c.connector.ensure_folder(job.planned_folder)
                    at_dest = c.connector.move(job.file_id, folder_id, job.planned_name)
            return self._complete(c, at_dest)
        source = c.connector.stat(job.file_id)
        if source is None:
            return self._finish(c, J.FAILED, refund=True,
                                error="the file disappeared before it was moved")
        if source.revision != job.revision:
            return self._finish(c, J.SKIPPED, refund=True,
                                error="the file changed; its new version is a new job")
        if after_move_error:
            raise TransientError("the destination folder vanished during the move")
        folder_id = c.connector.ensure_folder(job.planned_folder)
        return self._move(c, folder_id, job.planned_folder, job.planned_name, job.planned_name)


def _same_file(job: Job, found: RemoteFile) -> bool:
    """Whether `found` (at the planned destination) is this job's file: the same id on
    providers with stable ids; on path-id providers (local) the same revision. Ids of path-id
    providers are normalised paths, so they are not compared with the planned path as typed in
    the config (a relative `target` would never match)."""
    return found.id == job.file_id or found.revision == job.revision


def _join_folder(root: str, folder_path: str) -> str:
    """`folder_path` (the engine's "A/B") below `root`, dropping empty, "." and ".." parts."""
    folder = root.rstrip("/") or "/"
    for part in (folder_path or "").split("/"):
        if part and part not in (".", ".."):
            folder = join_path(folder, part)
    return folder


def _result_summary(result: RenameResult) -> dict[str, Any]:
    return {
        "suggestedFilename": result.suggested_filename, "folderPath": result.folder_path,
        "confidence": round(float(result.confidence), 4),
        "extractedInfo": result.extracted_info,
    }
