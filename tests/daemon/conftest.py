from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from renamerd.config import Settings
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service.accounts import Accounts
from renamerd.service.jobs import JobQueue
from renamerd.storage.database import Database
from renamerd.storage.models import User
from renamerd_connectors import memory

from .fakes import Clock, fake_engine

_drives = itertools.count()


@dataclass
class Rig:
    settings: Settings
    db: Database
    drive: memory.MemoryDrive
    clock: Clock
    queue: JobQueue
    pool: ConnectorPool
    worker: Worker
    owner: User
    accounts: Accounts

    def poll(self) -> int:
        """Enqueue what the inbox holds (what the daemon's poll does)."""
        conn = self.pool.get("mem")
        changes = conn.changes("/inbox", None, recursive=False)
        return len(self.queue.enqueue_many("mem", self.owner.id, changes.files))

    def run_all(self, owner: str = "w1") -> list[str]:
        out: list[str] = []
        while True:
            claimed = self.queue.claim(owner)
            if not claimed:
                return out
            job, lease = claimed[0]
            out.append(self.worker.run_job(job, lease))


@pytest.fixture
def rig(db: Database, tmp_path: Path) -> Iterator[Rig]:
    name = f"unit{next(_drives)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    settings = Settings(
        database={"url": db.url},
        daemon={"state_dir": str(tmp_path / "state"), "lease_s": 30, "max_attempts": 3,
                "retry_backoff_s": 10},
        credits={"signup_grant": 100},
        connections=[{"name": "mem", "provider": "memory", "owner": "owner@example.com",
                      "watch": "/inbox", "target": "/library", "options": {"drive": name}}],
    )
    clock = Clock()
    accounts = Accounts(db, settings)
    owner = accounts.ensure_user("owner@example.com")
    queue = JobQueue(db, settings.daemon, settings.credits, now=clock)
    pool = ConnectorPool(settings, db)
    worker = Worker(settings, db, queue, pool, engine=fake_engine)
    yield Rig(settings, db, drive, clock, queue, pool, worker, owner, accounts)
    pool.close()
    memory.forget_drive(name)
