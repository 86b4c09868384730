"""Connections users make (rows, not config) in a running daemon: one made is polled within a
sync, a paused one is not, a changed one moves to its new folders, a deleted one stops; a dry-run
one suggests and moves nothing. Two daemon processes share them through the database."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from renamerd.config import Settings
from renamerd.runtime.daemon import Daemon
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.connections import Connections, Fields
from renamerd.service.credits import Credits
from renamerd.service.job_views import describe_error
from renamerd.storage.database import Database
from renamerd_connectors import memory

from .fakes import doc, fake_engine
from .test_daemon import counts, wait_for


def _settings(db: Database, tmp_path: Path, drive: str) -> Settings:
    return Settings(database={"url": db.url},
                    daemon={"state_dir": str(tmp_path / "state"), "lease_s": 10, "workers": 1,
                            "user_poll_seconds": 0.2},
                    server={"shutdown_grace_s": 5},
                    providers={"memory": {"drive": drive}})


def test_made_paused_changed_deleted_take_effect_without_restart(db: Database,
                                                                 tmp_path: Path) -> None:
    drive_name = f"uc{os.getpid()}"
    drive = memory.drive(drive_name)
    drive.mkdir("/Scans")
    settings = _settings(db, tmp_path, drive_name)
    ada = Accounts(db, settings).create_user("ada@example.org", "Ada")
    store = Connections(db, settings)
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()
    try:
        row = store.create(ada.id, "memory", Fields.check({"watch": "/Scans",
                                                           "target": "/Docs"}))
        drive.put("/Scans/a.pdf", doc("2024-01-02", "Acme"))
        wait_for(lambda: counts(db)[J.DONE] == 1)
        assert drive.listing("/Docs/2024/invoice") == ["2024-01-02_Acme.pdf"]
        store.update(ada.id, row.name, Fields.check({"paused": True}))
        wait_for(lambda: not daemon.pool.by_name[row.name].enabled)
        drive.put("/Scans/b.pdf", doc("2024-01-03", "Beta"))
        daemon.poll(row.name)
        assert drive.listing("/Scans") == ["b.pdf"] and counts(db)[J.DONE] == 1
        store.update(ada.id, row.name, Fields.check({"paused": False, "target": "/Filed"}))
        wait_for(lambda: counts(db)[J.DONE] == 2)
        assert drive.listing("/Filed/2024/invoice") == ["2024-01-03_Beta.pdf"]
        store.delete(ada.id, row.name)
        wait_for(lambda: row.name not in daemon.pool.by_name)
        drive.put("/Scans/c.pdf", doc("2024-01-04", "Gamma"))
        assert daemon.poll(row.name) == 0 and drive.listing("/Scans") == ["c.pdf"]
    finally:
        daemon.stop(5)
        memory.forget_drive(drive_name)


def test_dry_run_suggests_charges_and_moves_nothing(db: Database, tmp_path: Path) -> None:
    drive_name = f"dry{os.getpid()}"
    drive = memory.drive(drive_name)
    drive.mkdir("/Scans")
    settings = _settings(db, tmp_path, drive_name)
    ada = Accounts(db, settings).create_user("dry@example.org", "Dry")
    Connections(db, settings).create(ada.id, "memory", Fields.check(
        {"watch": "/Scans", "target": "/Docs", "dry_run": True}))
    drive.put("/Scans/a.pdf", doc("2024-05-06", "Acme"))
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()
    try:
        wait_for(lambda: counts(db)[J.SKIPPED] == 1)
    finally:
        daemon.stop(5)
        memory.forget_drive(drive_name)
    assert drive.listing("/Scans") == ["a.pdf"]
    [job] = J.JobQueue(db).find()
    words = describe_error(job.state, job.error) or ""
    assert words == "suggested /Docs/2024/invoice/2024-05-06_Acme.pdf (dry run: nothing was moved)"
    assert Credits(db).balance(ada.id) == 49


def test_a_long_polled_folder_changed_mid_wait_is_polled_once_at_a_time(
        db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A stranger's report: saving a watched server folder's settings while its inotify wait
    ran started the new settings' poll on the same watch ("RuntimeError: concurrent poll()
    invocation", logged with a traceback). The new poll waits for the old one, on a
    connector of its own; files dropped after the change are filed by the new settings."""
    root = tmp_path / "users" / "ada@example.org"
    (root / "in").mkdir(parents=True)
    settings = Settings(database={"url": db.url},
                        daemon={"state_dir": str(tmp_path / "state"), "lease_s": 10,
                                "workers": 1, "user_poll_seconds": 8},
                        server={"shutdown_grace_s": 5},
                        providers={"local": {"roots": [f"{tmp_path}/users/{{email}}"],
                                             "stable_checks": 1}})
    ada = Accounts(db, settings).create_user("ada@example.org", "Ada")
    store = Connections(db, settings)
    row = store.create(ada.id, "local", Fields.check({"watch": f"{root}/in",
                                                       "target": f"{root}/docs"}))
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()
    try:
        (root / "in" / "a.pdf").write_bytes(doc("2024-01-02", "Acme"))
        wait_for(lambda: counts(db)[J.DONE] == 1)
        store.update(ada.id, row.name, Fields.check({"target": f"{root}/filed"}))
        wait_for(lambda: daemon.pool.by_name[row.name].target == f"{root}/filed")
        time.sleep(0.5)  # the new settings' poll starts while the old wait still runs
        (root / "in" / "b.pdf").write_bytes(doc("2024-01-03", "Beta"))
        wait_for(lambda: counts(db)[J.DONE] == 2)
        assert os.listdir(root / "filed" / "2024" / "invoice") == ["2024-01-03_Beta.pdf"]
    finally:
        daemon.stop(5)
    failed = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not failed, [r.getMessage() for r in failed]
