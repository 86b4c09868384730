"""Filing: record the plans with their credit reservations, move the files, complete the jobs;
and after a crash, ask the provider where the file is (reconcile)."""

from __future__ import annotations

import logging
import time

from renamerd.connectors import Conflict, NotFound, RemoteFile, TransientError, free_name
from renamerd.runtime.worker.batch import JobContext, Plan, by_owner, reraise, same_file
from renamerd.runtime.worker.outcomes import LOST, WorkerState
from renamerd.service import jobs as J
from renamerd.service.journal import record_now_many as journal_record_many

log = logging.getLogger("renamerd.worker")


class FilingSteps(WorkerState):
    """From recorded plans to done jobs, and the reconciliation of re-claimed jobs."""

    def _record_plans(self, plans: list[Plan], outcomes: dict[int, str]) -> list[Plan]:
        """In ONE transaction: reserve each plan's credit and record its planned destination,
        or park the job as pending_credits when its owner has none left. Returns the plans to
        move; the others' outcomes go to `outcomes`. Nothing is written when it fails."""
        if not plans:
            return []
        try:
            with self.db.write_session() as s:
                live = self.queue.live_leases(s, [p.c.lease for p in plans])
                refused: set[str] = set()
                for owner, mine in by_owner(p for p in plans
                                            if p.c.lease.job_id in live and p.charged):
                    refused.update(self.credits.reserve_many(
                        owner, [J.charge_ref(p.c.lease.job_id) for p in mine], session=s))
                ready = [p for p in plans if p.c.lease.job_id in live
                         and J.charge_ref(p.c.lease.job_id) not in refused]
                pending = [p for p in plans if J.charge_ref(p.c.lease.job_id) in refused]
                self.queue.update_fenced_many(s, [(p.c.lease, p.c.job, {
                    "planned_folder": p.folder, "planned_name": p.name,
                    "charge_ref": J.charge_ref(p.c.lease.job_id) if p.charged else None,
                    "result": p.summary,
                }) for p in ready])
                self.queue.update_fenced_many(s, [(p.c.lease, p.c.job, {
                    "state": J.PENDING_CREDITS, "error": "insufficient credits"})
                    for p in pending])
        except Exception as err:  # rolled back: every job is retried
            for p in plans:
                outcomes[p.c.lease.job_id] = self._guarded(p.c.job, p.c.lease, reraise(err))
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

    def _move(self, c: JobContext, folder_id: str, folder: str, name: str, wanted: str) -> str:
        moved = self._move_file(c, folder_id, folder, name, wanted)
        return moved if isinstance(moved, str) else self._complete(c, moved)

    def _complete(self, c: JobContext, moved: RemoteFile) -> str:
        outcomes: dict[int, str] = {}
        self._complete_all([(c, moved)], outcomes)
        return outcomes[c.lease.job_id]

    def _move_file(self, c: JobContext, folder_id: str, folder: str, name: str,
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

    def _complete_all(self, moved: list[tuple[JobContext, RemoteFile]], outcomes: dict[int, str]) -> None:
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
                for owner, mine in by_owner(c for c, _ in done):
                    self.credits.commit_many(
                        owner, [c.job.charge_ref for c in mine if c.job.charge_ref], session=s)
                journal_record_many(s, [{
                    "job_id": c.job.id, "connection": c.job.connection,
                    "file_id": c.job.file_id, "old_path": c.job.source_path,
                    "new_path": m.path, "new_file_id": m.id} for c, m in done])
        except Exception as err:  # rolled back: the next claim reconciles (moved: done)
            for c, _m in moved:
                outcomes[c.lease.job_id] = self._guarded(c.job, c.lease, reraise(err))
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

    def _finish(self, c: JobContext, state: str, *, error: str | None = None, refund: bool = False,
                **values: object) -> str:
        with self.db.write_session() as s:
            job = self.queue.finish(c.lease, state, error=error, session=s, **values)
            if refund and job.charge_ref:
                self.credits.refund(job.owner_id, job.charge_ref, reason=error or state, session=s)
        J.emit(job, J.RUNNING, state, error=error)
        return state

    def _pending(self, c: JobContext) -> str:
        return self._finish(c, J.PENDING_CREDITS, error="insufficient credits")

    # -- after a crash: ask the provider where the file is ----------------------------------

    def _reconcile(self, c: JobContext, *, after_move_error: bool = False) -> str:
        job = c.job
        dest = J.planned_path(job)
        assert dest is not None and job.planned_folder is not None and job.planned_name
        at_dest = c.connector.stat_path(dest)
        if at_dest is not None and same_file(job, at_dest):
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
