"""Issue 14, item 1: every rename has a wall-clock deadline, enforced by killing its worker
process. Through the API (413 DOCUMENT_TOO_COSTLY, the credit refunded) and through the daemon
(the job failed with the reason, not retried), each within 2 s; the next rename still works.

The slow document is real: 70,000 dates on one line (1.9 MB of page content, under the content
limit) take the engine 0.6-2.5 s to read, depending on the machine; with a deadline of 0.25 s
(`engine.deadline_seconds`) it is cut, where an invoice takes 10-30 ms."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from daemon.e2e import invoice_pdf
from renamerd.api.app import create_app
from renamerd.config import Settings
from renamerd.engine.types import RenameOptions
from renamerd.runtime.daemon import Daemon
from renamerd.runtime.engine_pool import EnginePool
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from renamerd.storage.models import Job
from renamerd_connectors import memory
from runtime import engine_hooks as hooks
from security import hostile as h

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("engine-bounds")]

_ids = itertools.count()
#: answered (or failed) within this, the issue's bound
BOUND_S = 2.0
DEADLINE_S = 0.25


@pytest.fixture(scope="module")
def slow_pdf() -> bytes:
    return h.pdf_dates_line(70_000)


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'renamerd.db'}")
    db.upgrade()
    yield db
    db.dispose()


def settings_for(db: Database, tmp_path: Path, **extra: object) -> Settings:
    return Settings(database={"url": db.url}, daemon={"state_dir": str(tmp_path / "state")},
                    # (tesseract: no PP-OCR models loading beside the killed worker's successor's
                    # first rename, which on a loaded machine pushed a text PDF past 0.25 s)
                    engine={"workers": 1, "deadline_seconds": DEADLINE_S, "memory_limit_mb": 1024,
                            "ocr": "tesseract"},
                    **extra)  # type: ignore[arg-type]


def test_api_answers_slow_and_hostile_documents_within_2_s_and_refunds(
        sqlite_db: Database, tmp_path: Path, slow_pdf: bytes) -> None:
    settings = settings_for(sqlite_db, tmp_path)
    accounts = Accounts(sqlite_db, settings)
    user = accounts.create_user("victim@example.org", "Victim")
    _, token = accounts.create_token(user.email)
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(settings, sqlite_db)) as client:
        def rename(data: bytes, name: str) -> tuple[int, dict[str, str], float]:
            started = time.monotonic()
            r = client.post("/api/v1/rename", headers=auth,
                            files={"file": (name, data, "application/pdf")})
            return r.status_code, r.json(), time.monotonic() - started

        assert rename(invoice_pdf(1), "warm.pdf")[0] == 200  # the workers are up
        balance = accounts.credits.balance(user.id)

        status, body, took = rename(slow_pdf, "slow.pdf")
        assert (status, body["code"]) == (413, "DOCUMENT_TOO_COSTLY"), body
        assert "longer than 0.25 s" in body["error"]
        assert took < BOUND_S

        status, body, took = rename(h.pdf_dates_line(), "dates.pdf")  # the 1.6 M dates
        assert status == 413, body
        assert took < BOUND_S
        assert accounts.credits.balance(user.id) == balance  # both refunded

        status, body, took = rename(invoice_pdf(2), "next.pdf")  # the killed worker's successor
        assert status == 200, body
        assert body["suggestedFilename"].startswith("2024-03-03_Blue-Harbor-Ltd")
        assert accounts.credits.balance(user.id) == balance - 1


def test_daemon_fails_a_job_past_the_deadline_with_the_reason_and_goes_on(
        sqlite_db: Database, tmp_path: Path, slow_pdf: bytes) -> None:
    name = f"deadline{os.getpid()}_{next(_ids)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    settings = settings_for(sqlite_db, tmp_path, connections=[{
        "name": name, "provider": "memory", "owner": "owner@example.com", "watch": "/inbox",
        "target": "/lib", "poll_seconds": 0.2, "options": {"drive": name}}])
    daemon = Daemon(settings, sqlite_db, workers=1)
    daemon.start()
    try:
        drive.put("/inbox/slow.pdf", slow_pdf)
        running_at = wait_for_state(sqlite_db, "slow.pdf", J.RUNNING)
        failed_at = wait_for_state(sqlite_db, "slow.pdf", J.FAILED)
        assert failed_at - running_at < BOUND_S
        job = job_named(sqlite_db, "slow.pdf")
        assert job is not None and job.attempts <= 1
        assert job.error == "reading the document took longer than 0.25 s (engine.deadline_seconds)"
        assert job.charge_ref is None or Accounts(sqlite_db, settings).credits.charge_state(
            job.owner_id, job.charge_ref) != "reserved"
        # the daemon goes on: the next invoice is renamed (on a machine loaded by the rest of
        # the suite, the killed worker's successor has read one past 0.25 s: then the next)
        for attempt in range(3):
            drive.put(f"/inbox/next{attempt}.pdf", invoice_pdf(3 + attempt))
            wait_for_state(sqlite_db, f"next{attempt}.pdf", (J.DONE, J.FAILED))
            job = job_named(sqlite_db, f"next{attempt}.pdf")
            if job is not None and job.state == J.DONE:
                break
            assert "longer than 0.25 s" in str(job)
        else:
            raise AssertionError("no invoice was renamed after the deadline's kill")
    finally:
        started = time.monotonic()
        daemon.stop(5)
        assert time.monotonic() - started < 5
        memory.forget_drive(name)
    assert drive.listing("/inbox") == ["slow.pdf"]  # left where it was


def test_sigterm_does_not_wait_for_a_stuck_rename(
        sqlite_db: Database, tmp_path: Path) -> None:
    """A rename stuck for good (an engine looping, no deadline at all): stop() kills the worker
    after 2 s and the job goes back to the queue (uncounted), for the next process."""
    name = f"stuck{os.getpid()}_{next(_ids)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    settings = Settings(
        database={"url": sqlite_db.url}, daemon={"state_dir": str(tmp_path / "state")},
        engine={"workers": 1, "deadline_seconds": 0}, server={"shutdown_grace_s": 30},
        connections=[{"name": name, "provider": "memory", "owner": "o@example.com",
                      "watch": "/inbox", "target": "/lib", "poll_seconds": 0.2,
                      "options": {"drive": name}}])
    pool = EnginePool(workers=1, deadline_s=0, memory_limit_mb=0, fn=hooks.spin)
    daemon = Daemon(settings, sqlite_db, workers=1, engine_pool=pool)
    daemon.start()
    try:
        drive.put("/inbox/slow.pdf", invoice_pdf(4))
        wait_for_state(sqlite_db, "slow.pdf", J.RUNNING)
        time.sleep(0.3)
    finally:
        started = time.monotonic()
        daemon.stop()
        took = time.monotonic() - started
        memory.forget_drive(name)
    assert took < 4, took
    job = job_named(sqlite_db, "slow.pdf")
    assert job is not None and job.state == J.QUEUED and job.attempts == 0, job


def test_stop_lets_an_api_rename_on_the_shared_engine_finish(
        sqlite_db: Database, tmp_path: Path) -> None:
    """`renamerd run`: the API's renames share the daemon's engine workers. SIGTERM stops
    the daemon first; a rename a client waits for gets its grace (10 s) before the workers
    are killed (it was answered 500 "the engine is stopping" at once)."""
    settings = Settings(
        database={"url": sqlite_db.url}, daemon={"state_dir": str(tmp_path / "state")},
        engine={"workers": 1}, server={"shutdown_grace_s": 30})
    pool = EnginePool(workers=1, deadline_s=10, memory_limit_mb=0, fn=hooks.pid)
    daemon = Daemon(settings, sqlite_db, workers=1, engine_pool=pool)
    daemon.start()
    outcome: list[object] = []

    def client() -> None:
        try:
            outcome.append(asyncio.run(pool.rename_async(b"1.5", "x", RenameOptions(), None)))
        except Exception as err:  # noqa: BLE001  (what the client was answered)
            outcome.append(err)

    thread = threading.Thread(target=client)
    thread.start()
    time.sleep(0.5)  # the rename is being read
    started = time.monotonic()
    daemon.stop()
    thread.join(10)
    assert isinstance(outcome[0], tuple), outcome  # the worker's (pid, limit): it finished
    assert time.monotonic() - started < 5


def job_named(db: Database, name: str) -> Job | None:
    with db.session() as s:
        return s.exec(select(Job).where(Job.name == name)).first()


def wait_for_state(db: Database, name: str, state: str | tuple[str, ...],
                   timeout: float = 30) -> float:
    """Poll until the job for `name` is in `state` (or one of them); returns when it was first
    seen so."""
    states = (state,) if isinstance(state, str) else state
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = job_named(db, name)
        if job is not None and job.state in states:
            return time.monotonic()
        time.sleep(0.02)
    raise AssertionError(f"{name} not {state} after {timeout} s: {job_named(db, name)}")


def test_api_refuses_a_rename_past_the_memory_ceiling_and_refunds(
        sqlite_db: Database, tmp_path: Path) -> None:
    """An engine allocating 2 GB under a 300 MB ceiling (a test hook: the engine's own bounds
    keep every known hostile document far below any ceiling)."""
    settings = settings_for(sqlite_db, tmp_path)
    accounts = Accounts(sqlite_db, settings)
    user = accounts.create_user("big@example.org", "Big")
    _, token = accounts.create_token(user.email)
    pool = EnginePool(workers=1, deadline_s=10, memory_limit_mb=300, fn=hooks.allocate_pdf)
    try:
        with TestClient(create_app(settings, sqlite_db, engine_pool=pool)) as client:
            balance = accounts.credits.balance(user.id)
            r = client.post("/api/v1/rename", headers={"Authorization": f"Bearer {token}"},
                            files={"file": ("big.pdf", invoice_pdf(5), "application/pdf")})
            assert (r.status_code, r.json()["code"]) == (413, "DOCUMENT_TOO_COSTLY"), r.text
            assert "memory_limit_mb" in r.json()["error"]
            assert accounts.credits.balance(user.id) == balance
    finally:
        pool.stop()


def test_daemon_fails_a_job_past_the_memory_ceiling_with_the_reason(
        sqlite_db: Database, tmp_path: Path) -> None:
    name = f"memory{os.getpid()}_{next(_ids)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    settings = settings_for(sqlite_db, tmp_path, connections=[{
        "name": name, "provider": "memory", "owner": "owner@example.com", "watch": "/inbox",
        "target": "/lib", "poll_seconds": 0.2, "options": {"drive": name}}])
    pool = EnginePool(workers=1, deadline_s=10, memory_limit_mb=300, fn=hooks.allocate_pdf)
    daemon = Daemon(settings, sqlite_db, workers=1, engine_pool=pool)
    daemon.start()
    try:
        drive.put("/inbox/big.pdf", invoice_pdf(6))
        wait_for_state(sqlite_db, "big.pdf", J.FAILED)
        job = job_named(sqlite_db, "big.pdf")
        assert job is not None and job.attempts <= 1
        assert job.error is not None and "engine.memory_limit_mb" in job.error
    finally:
        daemon.stop(5)
        memory.forget_drive(name)
