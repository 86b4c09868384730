"""One job, end to end, exactly once.

    download (temp file in daemon.state_dir, size cap) -> engine -> ensure the folder, pick a free
    name -> ONE transaction: reserve the credit (ref "job:<id>") + record the planned folder and
    name -> move -> ONE transaction: done + commit the charge + journal entry

`run_batch` takes several claimed jobs through the same steps and shares the two transactions
among them (each job's plan is still written before its move, its completion after it), which
is what a fast engine (a one-page text PDF in a few ms) needs to not be slowed down by the
database. A job that already has a planned destination (its worker crashed or hit a transient
error after planning) is *reconciled* with the provider instead: the file already at the
destination: finish; still at the source: move it; gone: fail and refund. Every write names the
lease it holds, so a worker whose lease was taken over cannot finish the job (`LeaseLost`).

The steps live beside this module: `reading` (fetch, read, plan), `filing` (record, move,
complete, reconcile), `outcomes` (errors to job states), `batch` (what a batch carries).
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import RemoteFile
from renamerd.engine.types import RenameOptions, RenameResult
from renamerd.runtime.connector_pool import ConnectorPool
from renamerd.runtime.heartbeats import Heartbeat, Heartbeats
from renamerd.runtime.worker.batch import JobContext
from renamerd.runtime.worker.outcomes import LOST, STOPPED_RETRY_S
from renamerd.runtime.worker.reading import ReadingSteps
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import Job

EngineFn = Callable[[bytes, str, RenameOptions, Any], RenameResult]


def default_engine() -> EngineFn:
    from renamerd.engine import rename  # type: ignore[attr-defined]

    return rename  # type: ignore[no-any-return]


class Worker(ReadingSteps):
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
            moved: list[tuple[JobContext, RemoteFile]] = []
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

