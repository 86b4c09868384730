"""Done-when: PostgreSQL + Redis, three `renamerd worker` processes over one emulated Dropbox
(the official SDK against tests/emulators/dropbox.py over TLS, with injected 429/5xx), one killed
with SIGKILL mid-way: every file renamed exactly once and charged exactly once."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from sqlmodel import col, func, select

from emulators.base import Faults
from emulators.dropbox import DropboxEmulator
from renamerd.service import jobs as J
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, CreditLedger, Job, JournalEntry

from .e2e import invoice_pdf, renamerd, sha, stop, wait_for, write_config

N = 60


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_three_workers_one_killed_every_file_once(tmp_path: Path, postgres_url: str,
                                                   redis_url: str) -> None:
    emulator = DropboxEmulator(faults=Faults(rate=0.03, seed=7, retry_after=0)).start()
    emulator.account.add_app("test-app", "test-secret")
    token = emulator.account.issue_refresh_token("test-app")
    originals = set()
    for i in range(N):
        data = invoice_pdf(i)
        originals.add(sha(data))
        emulator.account.put(f"/Inbox/scan {i:03d}.pdf", data)
    config = write_config(
        tmp_path / "config.toml", db_url=postgres_url, state=tmp_path / "state", signup=1000,
        limits_storage=redis_url,
        connections=[{
            "name": "box", "provider": "dropbox", "owner": "owner@example.com", "watch": "/Inbox",
            "target": "/Library", "strategy": "by_issuer", "poll_seconds": 1,
            "options": {"app_key": "test-app", "app_secret": "test-secret", "refresh_token": token,
                        "endpoint": emulator.url, "ca_bundle": emulator.ca_bundle},
        }],
    )
    db = Database(postgres_url)
    db.upgrade()
    procs = [renamerd("worker", config=config, log=tmp_path / f"worker{i}.log") for i in range(3)]
    try:
        wait_for(lambda: _done(db) >= N // 3, 120, "a third done", procs[0])
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(10)
        wait_for(lambda: _done(db) == N, 180, "all done", procs[1])
        for p in procs[1:]:
            assert stop(p) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        emulator.stop()
    assert emulator.account.listing("/Inbox") == []
    filed = _files(emulator, "/Library")
    assert len(filed) == N
    assert {sha(emulator.account.read(p) or b"") for p in filed} == originals
    with db.session() as s:
        assert s.exec(select(func.count()).select_from(Job)).one() == N
        assert s.exec(select(func.count()).select_from(Job).where(Job.state == J.DONE)).one() == N
        # one journal entry (one rename) per file, one charge per job
        moved = list(s.exec(select(JournalEntry.file_id)))
        assert len(moved) == N and len(set(moved)) == N
        charges = list(s.exec(select(CreditCharge.ref, CreditCharge.state)))
        assert sorted(charges) == sorted((J.charge_ref(j), "charged")
                                         for j in s.exec(select(Job.id)))
        consumed = s.exec(select(func.sum(CreditLedger.delta)).where(
            col(CreditLedger.kind).in_(["consume", "refund"]))).one()
        assert consumed == -N
        owners = set(s.exec(select(Job.lease_owner)))
    assert owners == {None}
    db.dispose()
    assert emulator.faults.injected, "faults were injected and survived"


def _done(db: Database) -> int:
    with db.session() as s:
        return int(s.exec(select(func.count()).select_from(Job).where(Job.state == J.DONE)).one())


def _files(emulator: DropboxEmulator, folder: str) -> list[str]:
    out = []
    for name in emulator.account.listing(folder):
        path = f"{folder}/{name}"
        if emulator.account.read(path) is None:
            out.extend(_files(emulator, path))
        else:
            out.append(path)
    return out
