"""One job, end to end, exactly once.

    download (temp file in daemon.state_dir, size cap) -> engine -> ensure the folder, pick a free
    name -> ONE transaction: reserve the credit (ref "job:<id>") + record the planned folder and
    name -> move -> ONE transaction: done + commit the charge + journal entry

`run_batch` takes several claimed jobs through the same steps and shares the two transactions
among them (each job's plan is still written before its move, its completion after it), which
is what a fast engine (a one-page text PDF in a few ms) needs to not be slowed down by the
database. A job that already has a planned destination (its worker crashed or hit a transient error after
planning) is *reconciled* with the provider instead: the file already at the destination: finish;
still at the source: move it; gone: fail and refund. Every write names the lease it holds, so a
worker whose lease was taken over cannot finish the job (`LeaseLost`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import (
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
from renamerd.engine.types import (
    DocumentTooLarge,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.service.journal import record_now_many as journal_record_many
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState, Job

log = logging.getLogger("renamerd.runtime.worker")

EngineFn = Callable[[bytes, str, RenameOptions, Any], RenameResult]
#: outcome of `Worker.run_job` when the lease was lost midway
LOST = "lost"
#: seconds a job waits when its connection was stopped (auth) before it is looked at again
STOPPED_RETRY_S = 300.0
#: downloads up to this size stay in memory; larger ones are staged in daemon.state_dir/tmp
SPOOL_BYTES = 8 * 1024 * 1024
#: the bytes of a batch's documents held at once between download and engine (at least one)
PREFETCH_BYTES = 32 * 1024 * 1024
_T = TypeVar("_T")


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
            from renamerd.service import secrets as secrets_store  # type: ignore[attr-defined]
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
        from renamerd.service import secrets as secrets_store

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


@dataclass
class _Ctx:
    job: Job
    lease: J.Lease
    conf: ConnectionSettings
    connector: Connector
    beat: Heartbeat


@dataclass
class _Batch:
    """What the jobs of one batch share before their plans are recorded, per (connection,
    folder): the folders ensured, and the names planned (so two jobs never plan one name)."""

    folders: dict[tuple[str, str], str] = field(default_factory=dict)
    taken: dict[tuple[str, str], list[str]] = field(default_factory=dict)


@dataclass
class _Plan:
    """A fresh job, read and given a destination, not yet recorded."""

    c: _Ctx
    folder: str
    folder_id: str
    name: str
    wanted: str
    summary: str


_HasJob = TypeVar("_HasJob", _Plan, _Ctx)


def _by_owner(items: Iterable[_HasJob]) -> list[tuple[str, list[_HasJob]]]:
    """`items` grouped by their job's owner, in first-seen order."""
    groups: dict[str, list[_HasJob]] = {}
    for item in items:
        job = item.c.job if isinstance(item, _Plan) else item.job
        groups.setdefault(job.owner_id, []).append(item)
    return list(groups.items())


def _reraise(err: BaseException) -> Callable[[], NoReturn]:
    def raise_it() -> NoReturn:
        raise err

    return raise_it


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

    @functools.cached_property
    def engine_config(self) -> Any:
        """The engine's configuration, built once (as the API does at start)."""
        return self.settings.engine_config()

    @property
    def uses_default_engine(self) -> bool:
        return self._engine is None or self._engine is default_engine()

    @property
    def engine(self) -> EngineFn:
        if self._engine is None:
            self._engine = default_engine()
        return self._engine

    # -- entry points ----------------------------------------------------------------------

    def run_job(self, job: Job, lease: J.Lease) -> str:
        """Take a claimed job to its next state; return that state (or LOST).

        Never raises for job trouble: errors become retries, failures or skips. Safe to call
        again for a re-claimed job (a recorded plan is reconciled, not redone).
        """
        return self.run_batch([(job, lease)])[0]

    def run_batch(self, claimed: list[tuple[Job, J.Lease]]) -> list[str]:
        """`run_job` for several claimed jobs at once; returns their outcomes in order.

        Each job is downloaded, read and planned on its own; then one transaction records every
        plan with its credit reservation, the files are moved, and one transaction marks them
        done with their charges and journal entries. A job's trouble (a provider error, a lost
        lease, no credits) touches that job only. Same guarantees as `run_job`.
        """
        outcomes: dict[int, str] = {}
        interval = max(1.0, self.settings.daemon.lease_s / 3)
        with contextlib.ExitStack() as stack:
            ctxs: list[tuple[Job, J.Lease, ConnectionSettings, Heartbeat]] = []
            for job, lease in claimed:
                conf = self.pool.config(job.connection)
                if conf is None:
                    outcomes[lease.job_id] = self._safe(functools.partial(
                        self._not_here, job, lease))
                    continue
                beat = stack.enter_context(self.heartbeats.track(self.queue, lease, interval))
                ctxs.append((job, lease, conf, beat))
            planned = self._prepare_all(ctxs, outcomes)
            moved: list[tuple[_Ctx, RemoteFile]] = []
            for plan in self._record_plans(planned, outcomes):
                c = plan.c
                done = self._guarded(c.job, c.lease, functools.partial(
                    self._move_file, c, plan.folder_id, plan.folder, plan.name, plan.wanted))
                if isinstance(done, RemoteFile):
                    moved.append((c, done))
                else:
                    outcomes[c.lease.job_id] = done
            self._complete_all(moved, outcomes)
        return [outcomes.get(lease.job_id, LOST) for _, lease in claimed]

    def _not_here(self, job: Job, lease: J.Lease) -> str:
        return self.queue.retry_later(
            lease, f"connection {job.connection!r} is not configured here",
            retry_after=STOPPED_RETRY_S, count_attempt=False).state

    def _guarded(self, job: Job, lease: J.Lease, step: Callable[[], _T]) -> _T | str:
        """`step()`, with every error turned into the job's next state (retry, stop, lost)."""
        try:
            return step()
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

    def _prepare_all(self, ctxs: list[tuple[Job, J.Lease, ConnectionSettings, Heartbeat]],
                     outcomes: dict[int, str]) -> list[_Plan]:
        """Up to the plans, phase by phase over the batch: fetch every job (a recorded plan is
        reconciled at once, a fresh job downloaded), read each with the engine, then plan each
        (folder, free name). Returns the plans; the other jobs' outcomes go to `outcomes`.

        Each phase is one loop over the jobs: run document by document, the engine and the
        rest evicted each other from the CPU caches, which cost about 0.25 ms a document on
        top of the work itself (measured: the download alone took 2.7 times as long).
        Downloads held at once are capped at PREFETCH_BYTES; past that, the jobs go in turns.
        """
        batch = _Batch()
        planned: list[_Plan] = []
        waiting = list(reversed(ctxs))
        while waiting:
            fetched: list[tuple[_Ctx, bytes]] = []
            held = 0
            while waiting and held < PREFETCH_BYTES:
                job, lease, conf, beat = waiting.pop()
                got = self._guarded(job, lease, functools.partial(
                    self._fetch, job, lease, conf, beat))
                if isinstance(got, str):
                    outcomes[lease.job_id] = got
                else:
                    fetched.append(got)
                    held += len(got[1])
            read: list[tuple[_Ctx, RenameResult]] = []
            fetched.reverse()
            while fetched:  # popped: each document's bytes are freed once it is read
                c, data = fetched.pop()
                result = self._guarded(c.job, c.lease, functools.partial(self._read, c, data))
                del data
                if isinstance(result, str):
                    outcomes[c.lease.job_id] = result
                else:
                    read.append((c, result))
            for c, result in read:
                plan = self._guarded(c.job, c.lease, functools.partial(
                    self._plan, c, result, batch))
                if isinstance(plan, _Plan):
                    planned.append(plan)
                    batch.taken.setdefault((c.job.connection, plan.folder), []).append(plan.name)
                else:
                    outcomes[c.lease.job_id] = plan
        return planned

    def _fetch(self, job: Job, lease: J.Lease, conf: ConnectionSettings, beat: Heartbeat
               ) -> tuple[_Ctx, bytes] | str:
        """A claimed job's context and bytes. A job with a recorded plan (claimed again after
        a crash) is reconciled at once, and one whose owner has no credit left is parked: both
        return the outcome, as do a file too large or gone. Raises like the connector."""
        c = _Ctx(job, lease, conf, self._open(job.connection), beat)
        if J.planned_path(job) is not None:
            return self._reconcile(c)
        if self.credits.enabled and job.owner_id in self._broke:
            # the last reservation for this owner failed: check before downloading and reading
            if self.credits.balance(job.owner_id) <= 0:
                return self._pending(c)
            self._broke.discard(job.owner_id)
        data = self._download(c)
        return data if isinstance(data, str) else (c, data)

    def _read(self, c: _Ctx, data: bytes) -> RenameResult | str:
        """The engine's reading of a fetched job, or the outcome (skipped) for a document that
        will never work. Raises like the engine."""
        conf = c.conf
        options = RenameOptions(
            strategy=conf.strategy, template_mode=conf.template_mode,
            custom_template=conf.custom_template, template_id=conf.template_id,
            language=conf.language,
        )
        try:
            result = self.engine(data, c.job.name, options, self.engine_config)
        except (UnsupportedDocument, DocumentTooLarge, UnreadableDocument) as err:
            return self._finish(c, J.SKIPPED, error=f"{type(err).__name__}: {err}")
        c.beat.check()
        return result

    def _plan(self, c: _Ctx, result: RenameResult, batch: _Batch) -> _Plan:
        """A destination for a read job: its folder (made once per batch) and a free name (not
        one planned earlier in the batch). Raises like the connector."""
        folder = _join_folder(c.conf.target_root, result.folder_path)
        key = (c.job.connection, folder)
        if key not in batch.folders:
            batch.folders[key] = c.connector.ensure_folder(folder)
        name = free_name(c.connector, folder, result.suggested_filename,
                         skip=batch.taken.get(key, ()))
        return _Plan(c, folder, batch.folders[key], name, result.suggested_filename,
                     json.dumps(_result_summary(result)))

    def _record_plans(self, plans: list[_Plan], outcomes: dict[int, str]) -> list[_Plan]:
        """In ONE transaction: reserve each plan's credit and record its planned destination,
        or park the job as pending_credits when its owner has none left. Returns the plans to
        move; the others' outcomes go to `outcomes`. Nothing is written when it fails."""
        if not plans:
            return []
        try:
            with self.db.write_session() as s:
                live = self.queue.live_leases(s, [p.c.lease for p in plans])
                refused: set[str] = set()
                for owner, mine in _by_owner(p for p in plans if p.c.lease.job_id in live):
                    refused.update(self.credits.reserve_many(
                        owner, [J.charge_ref(p.c.lease.job_id) for p in mine], session=s))
                ready = [p for p in plans if p.c.lease.job_id in live
                         and J.charge_ref(p.c.lease.job_id) not in refused]
                pending = [p for p in plans if J.charge_ref(p.c.lease.job_id) in refused]
                self.queue.update_fenced_many(s, [(p.c.lease, p.c.job, {
                    "planned_folder": p.folder, "planned_name": p.name,
                    "charge_ref": J.charge_ref(p.c.lease.job_id), "result": p.summary,
                }) for p in ready])
                self.queue.update_fenced_many(s, [(p.c.lease, p.c.job, {
                    "state": J.PENDING_CREDITS, "error": "insufficient credits"})
                    for p in pending])
        except Exception as err:  # rolled back: every job is retried
            for p in plans:
                outcomes[p.c.lease.job_id] = self._guarded(p.c.job, p.c.lease, _reraise(err))
            return []
        for p in plans:
            if p.c.lease.job_id not in live:
                log.warning("job %d: lease lost to another worker; dropping it", p.c.lease.job_id)
                outcomes[p.c.lease.job_id] = LOST
        for p in pending:
            self._broke.add(p.c.job.owner_id)
            outcomes[p.c.lease.job_id] = J.PENDING_CREDITS
        J.emit_many((p.c.job, J.RUNNING, J.PENDING_CREDITS, {}) for p in pending)
        return ready

    def _download(self, c: _Ctx) -> bytes | str:
        """The file's bytes (staged in memory, or in daemon.state_dir/tmp above a few MB), or
        the outcome when it is too large or gone."""
        cap = self.settings.limits.max_upload_bytes
        small = 0 < c.job.size < SPOOL_BYTES // 2  # known small: no spooling wrapper needed
        with (io.BytesIO() if small else tempfile.SpooledTemporaryFile(
                max_size=SPOOL_BYTES, mode="w+b", prefix=f"job{c.lease.job_id}-",
                dir=str(self.tmp_dir))) as fh:
            try:
                c.connector.download(c.job.file_id, fh, cap)  # type: ignore[arg-type]
            except TooLarge:
                return self._finish(c, J.SKIPPED,
                                    error=f"too large: over {cap // (1024 * 1024)} MB")
            except NotFound:
                return self._finish(c, J.SKIPPED, error="the file no longer exists")
            fh.seek(0)
            return fh.read()

    # -- moving and finishing --------------------------------------------------------------

    def _move(self, c: _Ctx, folder_id: str, folder: str, name: str, wanted: str) -> str:
        moved = self._move_file(c, folder_id, folder, name, wanted)
        return moved if isinstance(moved, str) else self._complete(c, moved)

    def _complete(self, c: _Ctx, moved: RemoteFile) -> str:
        outcomes: dict[int, str] = {}
        self._complete_all([(c, moved)], outcomes)
        return outcomes[c.lease.job_id]

    def _move_file(self, c: _Ctx, folder_id: str, folder: str, name: str,
                   wanted: str) -> RemoteFile | str:
        """Move the planned job's file; on a name clash, plan the next free name and retry.
        Returns where the file now is, or the outcome when reconciling decided otherwise."""
        clashed: list[str] = []
        for _ in range(10):
            c.beat.check()
            try:
                return c.connector.move(c.job.file_id, folder_id, name)
            except Conflict:
                clashed.append(name)
                name = free_name(c.connector, folder, wanted, skip=clashed)
                with self.db.write_session() as s:
                    self.queue.update_plan(c.lease, s, planned_name=name)
                c.job.planned_name = name
                continue
            except NotFound:
                return self._reconcile(c, after_move_error=True)
        raise TransientError(f"names in {folder!r} kept being taken")

    def _complete_all(self, moved: list[tuple[_Ctx, RemoteFile]], outcomes: dict[int, str]) -> None:
        """In ONE transaction: each moved job done (fenced: nothing is written for a job whose
        lease is gone), its charge committed, its move journaled. Nothing is written when it
        fails; the jobs are then retried and their next claim finds the files moved."""
        if not moved:
            return
        try:
            with self.db.write_session() as s:
                live = self.queue.live_leases(s, [c.lease for c, _ in moved])
                done = [(c, m) for c, m in moved if c.lease.job_id in live]
                self.queue.update_fenced_many(s, [(c.lease, c.job, {
                    "state": J.DONE, "error": None, "dest_path": m.path, "dest_file_id": m.id,
                }) for c, m in done])
                for owner, mine in _by_owner(c for c, _ in done):
                    self.credits.commit_many(
                        owner, [c.job.charge_ref for c in mine if c.job.charge_ref], session=s)
                journal_record_many(s, [{
                    "job_id": c.job.id, "connection": c.job.connection,
                    "file_id": c.job.file_id, "old_path": c.job.source_path,
                    "new_path": m.path, "new_file_id": m.id} for c, m in done])
        except Exception as err:  # rolled back: the next claim reconciles (moved: done)
            for c, _m in moved:
                outcomes[c.lease.job_id] = self._guarded(c.job, c.lease, _reraise(err))
            return
        now = time.time()
        for c, _m in moved:
            if c.lease.job_id not in live:
                log.warning("job %d: lease lost to another worker; dropping it", c.lease.job_id)
                outcomes[c.lease.job_id] = LOST
        for c, _m in done:
            outcomes[c.lease.job_id] = J.DONE
        J.emit_many((c.job, J.RUNNING, J.DONE, {"duration_s": now - c.job.created_at.timestamp()})
                    for c, _m in done)

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
