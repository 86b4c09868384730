"""Reconciliation on the local connector with the relative paths of config.example.toml: a
crash right after the move must finish the job (charged once), never fail and refund it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from renamerd.config import Settings
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.service.jobs import JobQueue
from renamerd.storage.database import Database

from .fakes import Clock, doc, fake_engine


class Crash(BaseException):
    """Stands for the process dying right after the provider completed the move."""


def test_crash_after_local_move_with_relative_target_finishes(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    os.makedirs("var/inbox")
    settings = Settings(
        database={"url": db.url},
        daemon={"state_dir": "var/state", "lease_s": 30},
        connections=[{"name": "inbox", "provider": "local", "owner": "ada@example.org",
                      "watch": "./var/inbox", "target": "./var/library",
                      "options": {"stable_checks": 1}}],
    )
    clock = Clock()
    owner = Accounts(db, settings).ensure_user("ada@example.org")
    queue = JobQueue(db, settings.daemon, settings.credits, now=clock)
    pool = ConnectorPool(settings, db)
    worker = Worker(settings, db, queue, pool, engine=fake_engine)
    try:
        Path("var/inbox/scan.pdf").write_bytes(doc("2024-05-05", "Acme"))
        conn = pool.get("inbox")
        changes = conn.changes("./var/inbox", None, recursive=False)
        assert len(queue.enqueue_many("inbox", owner.id, changes.files)) == 1

        real_move = conn.move

        def move_then_die(file_id: str, folder_id: str, name: str):  # type: ignore[no-untyped-def]
            real_move(file_id, folder_id, name)
            raise Crash()

        monkeypatch.setattr(conn, "move", move_then_die)
        ((job, lease),) = queue.claim("w1")
        with pytest.raises(Crash):
            worker.run_job(job, lease)
        monkeypatch.setattr(conn, "move", real_move)
        assert Path("var/library/2024/invoice/2024-05-05_Acme.pdf").exists()

        clock.advance(31)  # the dead worker's lease runs out
        ((job, lease),) = queue.claim("w2")
        assert worker.run_job(job, lease) == J.DONE
        assert Credits(db).charge_state(owner.id, J.charge_ref(lease.job_id)) == "charged"
        assert Credits(db).balance(owner.id) == 49
        assert list(Path("var/library").rglob("*.pdf")) == [
            Path("var/library/2024/invoice/2024-05-05_Acme.pdf")]
        assert list(Path("var/inbox").iterdir()) == []
    finally:
        pool.close()
