"""A job seen for the first time: fetch (or reconcile), read with the engine, plan a destination.

Each phase is one loop over the batch's jobs (see `ReadingSteps._prepare_all`)."""

from __future__ import annotations

import functools
import io
import json
import tempfile
from typing import Any

from renamerd.config import ConnectionSettings
from renamerd.connectors import NotFound, TooLarge, free_name
from renamerd.engine.types import (
    DocumentTooLarge,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)
from renamerd.runtime.engine_pool import EngineOutOfMemory, EngineStopped, EngineTimeout
from renamerd.runtime.heartbeats import Heartbeat
from renamerd.runtime.worker.batch import (
    BatchPlans,
    JobContext,
    Plan,
    join_folder,
    result_summary,
    stays_in_place,
)
from renamerd.runtime.worker.filing import FilingSteps
from renamerd.service import jobs as J
from renamerd.service.credits import InsufficientCredits
from renamerd.storage.models import Job

#: downloads up to this size stay in memory; larger ones are staged in daemon.state_dir/tmp
SPOOL_BYTES = 8 * 1024 * 1024
#: the bytes of a batch's documents held at once between download and engine (at least one)
PREFETCH_BYTES = 32 * 1024 * 1024


class ReadingSteps(FilingSteps):
    """Up to the plans; built on the filing steps (a re-claimed job is reconciled, a
    document that will never work is finished as skipped). `Worker` gives `engine` and
    `engine_config`."""

    engine: Any
    engine_config: Any

    def _prepare_all(self, ctxs: list[tuple[Job, J.Lease, ConnectionSettings, Heartbeat]],
                     outcomes: dict[int, str]) -> list[Plan]:
        """Up to the plans, phase by phase over the batch: fetch every job (a recorded plan is
        reconciled at once, a fresh job downloaded), read each with the engine, then plan each
        (folder, free name). Returns the plans; the other jobs' outcomes go to `outcomes`.

        Each phase is one loop over the jobs: run document by document, the engine and the
        rest evicted each other from the CPU caches, which cost about 0.25 ms a document on
        top of the work itself (measured: the download alone took 2.7 times as long).
        Downloads held at once are capped at PREFETCH_BYTES; past that, the jobs go in turns.
        """
        batch = BatchPlans()
        planned: list[Plan] = []
        waiting = list(reversed(ctxs))
        while waiting:
            fetched: list[tuple[JobContext, bytes]] = []
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
            read: list[tuple[JobContext, RenameResult]] = []
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
                if isinstance(plan, Plan):
                    planned.append(plan)
                    batch.taken.setdefault((c.job.connection, plan.folder), []).append(plan.name)
                else:
                    outcomes[c.lease.job_id] = plan
        return planned

    def _fetch(self, job: Job, lease: J.Lease, conf: ConnectionSettings, beat: Heartbeat
               ) -> tuple[JobContext, bytes] | str:
        """A claimed job's context and bytes. A job with a recorded plan (claimed again after
        a crash) is reconciled at once, and one whose owner has no credit left is parked: both
        return the outcome, as do a file too large or gone. Raises like the connector."""
        c = JobContext(job, lease, conf, self._open(job.connection), beat)
        if J.planned_path(job) is not None:
            return self._reconcile(c)
        if self.credits.enabled and job.owner_id in self._broke:
            # the last reservation for this owner failed: check before downloading and reading
            if self.credits.balance(job.owner_id) <= 0:
                return self._pending(c)
            self._broke.discard(job.owner_id)
        data = self._download(c)
        return data if isinstance(data, str) else (c, data)

    def _read(self, c: JobContext, data: bytes) -> RenameResult | str:
        """The engine's reading of a fetched job, or the outcome for a document that will never
        work: skipped (refused by the engine's rules) or failed (past the engine's deadline or
        memory ceiling, with the reason; not retried); done for one the confidence policy keeps
        in place (nothing moved, nothing charged, no journal entry). A rename cut by a shutdown
        is retried without counting an attempt. Raises like the engine otherwise (EngineCrashed:
        retried, counted)."""
        conf = c.conf
        options = RenameOptions(
            strategy=conf.strategy, template_mode=conf.template_mode,
            custom_template=conf.custom_template, template_id=conf.template_id,
            language=conf.language, below_confidence=conf.below_confidence,
            confidence_threshold=conf.confidence_threshold,
        )
        try:
            result = self.engine(data, c.job.name, options, self.engine_config)
        except (UnsupportedDocument, DocumentTooLarge, UnreadableDocument) as err:
            return self._finish(c, J.SKIPPED, error=f"{type(err).__name__}: {err}")
        except (EngineTimeout, EngineOutOfMemory) as err:  # the same again next time
            return self._finish(c, J.FAILED, error=str(err))
        except EngineStopped:  # this process is stopping: another one takes it
            return self._retry(c.lease, "the engine stopped (shutdown)", 1.0, False)
        c.beat.check()
        if stays_in_place(result):
            # the confidence policy "keep": done where it is, under its own name, for free
            return self._finish(c, J.DONE, dest_path=c.job.source_path,
                                dest_file_id=c.job.file_id,
                                result=json.dumps(result_summary(result)))
        if c.conf.dry_run:
            return self._suggest_only(c, result)
        return result

    def _suggest_only(self, c: JobContext, result: RenameResult) -> str:
        """A dry-run connection: record the suggestion, move nothing; the suggestion costs a
        credit, as through the API (none left: the job waits for credits)."""
        where = join_folder(c.conf.target_root, result.folder_path).rstrip("/")
        note = f"suggested: {where}/{result.suggested_filename} (dry run: nothing was moved)"
        charged = result.renamed
        with self.db.write_session() as s:
            if charged:
                try:
                    self.credits.reserve(c.job.owner_id, J.charge_ref(c.lease.job_id), session=s)
                    self.credits.commit(c.job.owner_id, J.charge_ref(c.lease.job_id), session=s)
                except InsufficientCredits:
                    self.queue.finish(c.lease, J.PENDING_CREDITS, error="insufficient credits",
                                      session=s)
                    charged = False
                    note = ""
            if note:
                self.queue.finish(c.lease, J.SKIPPED, error=note, session=s,
                                  result=json.dumps(result_summary(result)),
                                  charge_ref=J.charge_ref(c.lease.job_id) if charged else None)
        state = J.SKIPPED if note else J.PENDING_CREDITS
        J.emit(c.job, J.RUNNING, state, error=note or "insufficient credits")
        return state

    def _plan(self, c: JobContext, result: RenameResult, batch: BatchPlans) -> Plan:
        """A destination for a read job: its folder (made once per batch) and a free name (not
        one planned earlier in the batch). Raises like the connector."""
        folder = join_folder(c.conf.target_root, result.folder_path)
        key = (c.job.connection, folder)
        if key not in batch.folders:
            batch.folders[key] = c.connector.ensure_folder(folder)
        name = free_name(c.connector, folder, result.suggested_filename,
                         skip=batch.taken.get(key, ()))
        return Plan(c, folder, batch.folders[key], name, result.suggested_filename,
                    json.dumps(result_summary(result)), charged=result.renamed)

    def _download(self, c: JobContext) -> bytes | str:
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
