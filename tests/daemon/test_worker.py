"""The worker on the memory connector, on both databases: the happy path, skips, pending
credits, retries, a stopped connection, and reconciliation after a crash at each point."""

from __future__ import annotations

import pytest

from renamerd.connectors import AuthError, TransientError
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.service.journal import Journal
from renamerd.storage.models import ConnectionState

from .conftest import Rig
from .fakes import doc


class Crash(BaseException):
    """Stands for the process dying: not caught by the worker's error handling."""


def charge(rig: Rig, job_id: int) -> str | None:
    return Credits(rig.db).charge_state(rig.owner.id, J.charge_ref(job_id))


def test_renames_moves_charges_and_journals(rig: Rig) -> None:
    rig.drive.put("/inbox/scan1.pdf", doc("2024-03-01", "Acme"))
    rig.drive.put("/inbox/scan2.pdf", doc("2024-03-01", "Acme"))  # same name: "(2)"
    assert rig.poll() == 2
    assert rig.run_all() == [J.DONE, J.DONE]
    assert rig.drive.listing("/inbox") == []
    assert rig.drive.listing("/library/2024/invoice") == [
        "2024-03-01_Acme (2).pdf", "2024-03-01_Acme.pdf"]
    jobs = rig.queue.find()
    assert all(charge(rig, j.id or 0) == "charged" for j in jobs)
    assert Credits(rig.db).balance(rig.owner.id) == 98
    entry = Journal(rig.db).for_job(jobs[0].id or 0)
    assert entry is not None and entry.new_path == jobs[0].dest_path
    assert rig.poll() == 0  # nothing new, nothing redone


def test_skips_with_reason_and_charges_nothing(rig: Rig) -> None:
    rig.drive.put("/inbox/a.bin", b"BIN\x00\x01")
    rig.drive.put("/inbox/b.pdf", b"BROKEN")
    rig.drive.put("/inbox/c.pdf", b"x" * 2048)
    rig.settings.limits.max_upload_mb = 1 / 1024  # 1 KiB cap: c.pdf is too large
    rig.poll()
    assert rig.run_all() == [J.SKIPPED] * 3
    errors = sorted(j.error or "" for j in rig.queue.find())
    assert errors[0].startswith("UnreadableDocument")
    assert errors[1].startswith("UnsupportedDocument")
    assert errors[2].startswith("too large")
    assert Credits(rig.db).balance(rig.owner.id) == 100
    assert len(rig.drive.listing("/inbox")) == 3  # left where they were


def test_pending_credits_then_grant_resumes(rig: Rig) -> None:
    credits = Credits(rig.db, now=rig.clock)  # the queue's clock: the grant queues them "now"
    lot = credits.lots(rig.owner.id)[0]
    with rig.db.write_session() as s:  # leave 2 credits
        lot.remaining = 2
        s.add(lot)
    for i in range(4):
        rig.drive.put(f"/inbox/{i}.pdf", doc(f"2024-01-0{i + 1}", "Acme"))
    rig.poll()
    assert sorted(rig.run_all()) == [J.DONE] * 2 + [J.PENDING_CREDITS] * 2
    assert rig.queue.claim("w") == []  # pending jobs are not claimable
    credits.grant(rig.owner.id, 5)
    assert rig.run_all() == [J.DONE, J.DONE]
    assert credits.balance(rig.owner.id) == 3


def test_transient_errors_retry_with_backoff_then_fail(rig: Rig) -> None:
    rig.drive.put("/inbox/a.pdf", doc("2024-01-01", "Acme"))
    rig.poll()
    # the connector's pacer retries 10 times inside; 11 failures per attempt escape it
    rig.drive.inject("download", TransientError("503 after retries", retry_after=0.0), times=33)
    assert rig.run_all() == [J.QUEUED]
    rig.clock.advance(10)
    assert rig.run_all() == [J.QUEUED]
    rig.clock.advance(20)
    assert rig.run_all() == [J.FAILED]
    (job,) = rig.queue.find()
    assert "503" in (job.error or "") and job.attempts == 3
    assert Credits(rig.db).balance(rig.owner.id) == 100
    # an engine failure that is not the document's fault is retried the same way
    rig.drive.put("/inbox/b.pdf", b"BOOM")
    rig.poll()
    assert rig.run_all() == [J.QUEUED]


def test_auth_error_stops_the_connection_without_spending_attempts(rig: Rig) -> None:
    rig.drive.put("/inbox/a.pdf", doc("2024-01-01", "Acme"))
    rig.poll()
    rig.drive.inject("download", AuthError("refresh token revoked"))
    assert rig.run_all() == [J.QUEUED]
    with rig.db.session() as s:
        state = s.get(ConnectionState, "mem")
        assert state is not None and state.status == "stopped"
        assert state.error == "refresh token revoked"
    (job,) = rig.queue.find()
    assert job.attempts == 0 and job.error and "connection stopped" in job.error


def _crash_before_move(rig: Rig) -> int:
    rig.drive.put("/inbox/a.pdf", doc("2024-05-05", "Acme"))
    rig.poll()
    rig.drive.inject("move", Crash())
    ((job, lease),) = rig.queue.claim("w1")
    with pytest.raises(Crash):
        rig.worker.run_job(job, lease)
    job = rig.queue.get(lease.job_id)
    assert job.state == J.RUNNING and job.planned_name == "2024-05-05_Acme.pdf"
    assert charge(rig, lease.job_id) == "reserved"
    rig.clock.advance(31)  # the lease runs out
    return lease.job_id


def test_reconcile_crash_after_plan_before_move_moves(rig: Rig) -> None:
    job_id = _crash_before_move(rig)
    assert rig.run_all("w2") == [J.DONE]
    assert rig.drive.listing("/library/2024/invoice") == ["2024-05-05_Acme.pdf"]
    assert charge(rig, job_id) == "charged"
    assert Credits(rig.db).balance(rig.owner.id) == 99


def test_reconcile_crash_after_move_before_done_finishes(rig: Rig) -> None:
    job_id = _crash_before_move(rig)
    job = rig.queue.get(job_id)
    folder = rig.drive.mkdir("/library/2024/invoice")
    rig.drive.move(job.file_id, folder.id, job.planned_name or "")  # the move that happened
    calls = rig.drive.faults.calls["move"]
    assert rig.run_all("w2") == [J.DONE]
    assert rig.drive.faults.calls["move"] == calls  # finished without moving again
    assert charge(rig, job_id) == "charged"
    assert rig.drive.listing("/library/2024/invoice") == ["2024-05-05_Acme.pdf"]


def test_reconcile_file_gone_fails_and_refunds(rig: Rig) -> None:
    job_id = _crash_before_move(rig)
    rig.drive.delete("/inbox/a.pdf")
    assert rig.run_all("w2") == [J.FAILED]
    assert charge(rig, job_id) == "refunded"
    assert Credits(rig.db).balance(rig.owner.id) == 100


def test_stale_worker_cannot_finish(rig: Rig) -> None:
    rig.drive.put("/inbox/a.pdf", doc("2024-05-05", "Acme"))
    rig.poll()
    ((job, stale),) = rig.queue.claim("w1")
    rig.clock.advance(31)
    ((job2, fresh),) = rig.queue.claim("w2")
    assert rig.worker.run_job(job, stale) == "lost"  # refused at its first fenced write
    assert rig.drive.listing("/inbox") == ["a.pdf"]
    assert rig.worker.run_job(job2, fresh) == J.DONE
    assert Credits(rig.db).balance(rig.owner.id) == 99


def test_undo_moves_back_and_refunds_nothing(rig: Rig) -> None:
    rig.drive.put("/inbox/a.pdf", doc("2024-05-05", "Acme"))
    rig.poll()
    rig.run_all()
    (job,) = rig.queue.find()
    journal = Journal(rig.db)
    entry = journal.for_job(job.id or 0)
    assert entry is not None
    journal.undo_remote(entry, rig.pool.get("mem"))
    assert rig.drive.listing("/inbox") == ["a.pdf"]
    assert journal.for_job(job.id or 0) is None
    assert Credits(rig.db).balance(rig.owner.id) == 99
    assert rig.poll() == 0  # the same file and revision: not renamed again


def test_clean_tmp_removes_only_old_leftovers(rig: Rig) -> None:
    import os
    import time

    old = rig.worker.tmp_dir / "job7-left"
    new = rig.worker.tmp_dir / "job8-live"
    old.write_bytes(b"x")
    new.write_bytes(b"y")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert rig.worker.clean_tmp() == 1
    assert not old.exists() and new.exists()
