"""Undo, Rename again and Retry of an owner's jobs, on the memory and local connectors and the
emulated Dropbox: the file goes back and stays (the next poll makes no job of it), renaming
again files it anew without a second charge, and another user's job is out of reach."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from daemon.fakes import doc, fake_engine
from emulators.dropbox import DropboxEmulator
from renamerd.config import Settings
from renamerd.runtime.job_actions import job_actions
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.undo import JobActionError, emptied_folders
from renamerd.storage.database import Database
from renamerd_connectors import memory

_names = itertools.count()


@dataclass
class Drive:
    """One provider's storage as the test sees it: put, read, list, with provider paths."""

    provider: str
    inbox: str
    library: str
    options: dict[str, Any]
    store: Any

    def put(self, path: str, data: bytes) -> None:
        if self.provider == "local":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(data)
        else:
            self.store.put(path, data)

    def listing(self, folder: str) -> list[str]:
        if self.provider == "local":
            return sorted(p.name for p in Path(folder).iterdir()) if Path(folder).is_dir() else []
        return list(self.store.listing(folder))

    def files_below(self, folder: str) -> list[str]:
        """Every file below `folder` (names only)."""
        if self.provider == "local":
            return sorted(p.name for p in Path(folder).rglob("*") if p.is_file())
        out: list[str] = []
        for name in self.listing(folder):
            inner = self.files_below(f"{folder}/{name}")
            out += inner if inner or "." not in name else [name]
        return sorted(out)


@pytest.fixture(scope="module")
def dropbox() -> Iterator[DropboxEmulator]:
    with DropboxEmulator() as server:
        yield server


@pytest.fixture(params=["memory", "local", "dropbox"])
def drive(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Drive]:
    if request.param == "memory":
        name = f"undo{next(_names)}"
        store = memory.drive(name)
        store.mkdir("/inbox")
        yield Drive("memory", "/inbox", "/library", {"drive": name}, store)
        memory.forget_drive(name)
    elif request.param == "local":
        (tmp_path / "inbox").mkdir()
        yield Drive("local", str(tmp_path / "inbox"), str(tmp_path / "library"),
                    {"stable_checks": 1, "inotify": False}, None)
    else:
        emulator: DropboxEmulator = request.getfixturevalue("dropbox")
        emulator.reset()
        emulator.account.add_app("test-app", "test-secret")
        token = emulator.account.issue_refresh_token("test-app")
        emulator.account.put("/Inbox/.keep", b"")
        yield Drive("dropbox", "/Inbox", "/Library", {
            "app_key": "test-app", "app_secret": "test-secret", "refresh_token": token,
            "endpoint": emulator.url, "ca_bundle": emulator.ca_bundle}, emulator.account)


@dataclass
class Rig:
    settings: Settings
    db: Database
    drive: Drive
    queue: J.JobQueue
    pool: ConnectorPool
    worker: Worker
    owner: str
    cursor: str | None = None

    def poll(self) -> int:
        """What the daemon's poll does: changes since the cursor, enqueued."""
        changes = self.pool.get("c").changes(self.drive.inbox, self.cursor, recursive=False)
        self.cursor = changes.cursor
        files = [f for f in changes.files if not f.name.startswith(".")]
        return len(self.queue.enqueue_many("c", self.owner, files))

    def run_all(self) -> list[str]:
        out = []
        while claimed := self.queue.claim("w"):
            out += [self.worker.run_job(job, lease) for job, lease in claimed]
        return out


@pytest.fixture
def rig(db: Database, drive: Drive, tmp_path: Path) -> Iterator[Rig]:
    settings = Settings(
        database={"url": db.url}, daemon={"state_dir": str(tmp_path / "state")},
        connections=[{"name": "c", "provider": drive.provider, "owner": "ada@example.org",
                      "watch": drive.inbox, "target": drive.library, "options": drive.options}])
    owner = Accounts(db, settings).ensure_user("ada@example.org")
    queue = J.JobQueue(db, settings.daemon, settings.credits)
    pool = ConnectorPool(settings, db)
    yield Rig(settings, db, drive, queue, pool, Worker(settings, db, queue, pool,
                                                       engine=fake_engine), owner.id)
    pool.close()


def _renamed_job(rig: Rig, name: str = "scan.pdf") -> int:
    rig.drive.put(f"{rig.drive.inbox}/{name}", doc("2024-03-01", "ACME"))
    assert rig.poll() == 1
    assert rig.run_all() == [J.DONE]
    (job,) = rig.queue.find(state=J.DONE)
    return int(job.id or 0)


def test_undo_puts_the_file_back_and_the_daemon_leaves_it_alone(rig: Rig) -> None:
    job_id = _renamed_job(rig)
    assert "scan.pdf" not in rig.drive.listing(rig.drive.inbox)
    assert rig.drive.files_below(rig.drive.library) == ["2024-03-01_ACME.pdf"]
    balance = Accounts(rig.db, rig.settings).credits.balance(rig.owner)
    actions = job_actions(rig.settings, rig.db)
    undone = actions.undo(rig.owner, job_id)
    assert undone.state == J.UNDONE and undone.actions == ("rename_again",)
    assert "scan.pdf" in rig.drive.listing(rig.drive.inbox)
    assert rig.drive.files_below(rig.drive.library) == []
    # the next polls (incremental, then a full listing) see the file and make no job of it
    assert rig.poll() == 0
    rig.cursor = None
    assert rig.poll() == 0
    assert rig.run_all() == []
    assert [j.state for j in rig.queue.find()] == [J.UNDONE]
    assert Accounts(rig.db, rig.settings).credits.balance(rig.owner) == balance  # no refund
    with pytest.raises(JobActionError, match=f"^job {job_id} is already undone$"):
        actions.undo(rig.owner, job_id)


def test_undo_removes_the_folders_it_emptied_where_the_drive_can_do_so_safely(rig: Rig) -> None:
    kept = _renamed_job(rig, "kept.pdf")
    (folder,) = rig.drive.listing(rig.drive.library)  # the year, holding the type's folder
    rig.drive.put(f"{rig.drive.library}/{folder}/notes.txt", b"mine")
    actions = job_actions(rig.settings, rig.db)
    actions.undo(rig.owner, kept)
    year = rig.drive.listing(f"{rig.drive.library}/{folder}")
    if rig.drive.provider == "dropbox":  # deletes a folder with its contents: never asked to
        assert len(year) == 2 and "notes.txt" in year
    else:  # the type's folder went; the year's stays for the file in it, and the target
        assert year == ["notes.txt"]
    rig.drive.put(f"{rig.drive.inbox}/gone.pdf", doc("2023-05-02", "ACME"))
    assert rig.poll() == 1 and rig.run_all() == [J.DONE]
    gone = next(j for j in rig.queue.find(state=J.DONE) if j.name == "gone.pdf")
    actions.undo(rig.owner, int(gone.id or 0))
    assert "2023" not in rig.drive.listing(rig.drive.library) or rig.drive.provider == "dropbox"
    assert folder in rig.drive.listing(rig.drive.library)


def test_the_folders_an_undone_move_emptied_stop_at_the_target_and_the_old_folder() -> None:
    assert emptied_folders("/lib/2024/invoice/a.pdf", "/inbox/a.pdf", "/lib") == [
        "/lib/2024/invoice", "/lib/2024"]
    assert emptied_folders("/lib/2024/a.pdf", "/inbox/a.pdf", "/lib/") == ["/lib/2024"]
    assert emptied_folders("/in/2024/invoice/a.pdf", "/in/2024/a.pdf", "/in") == [
        "/in/2024/invoice"]  # the file is back in 2024
    assert emptied_folders("/lib/a.pdf", "/in/a.pdf", "/lib") == []
    assert emptied_folders("/library/2024/a.pdf", "/in/a.pdf", "/lib") == []
    assert emptied_folders("/2024/x/a.pdf", "/in/a.pdf", "/") == ["/2024/x", "/2024"]


def test_rename_again_files_it_anew_without_a_second_charge(rig: Rig) -> None:
    job_id = _renamed_job(rig)
    actions = job_actions(rig.settings, rig.db)
    actions.undo(rig.owner, job_id)
    balance = Accounts(rig.db, rig.settings).credits.balance(rig.owner)
    queued = actions.rename_again(rig.owner, job_id)
    assert queued.state == J.QUEUED and queued.new_name is None
    assert rig.run_all() == [J.DONE]
    assert rig.drive.files_below(rig.drive.library) == ["2024-03-01_ACME.pdf"]
    assert "scan.pdf" not in rig.drive.listing(rig.drive.inbox)
    assert Accounts(rig.db, rig.settings).credits.balance(rig.owner) == balance
    assert rig.poll() == 0
    again = actions.undo(rig.owner, job_id)  # the new move is journaled: undone again
    assert again.state == J.UNDONE and "scan.pdf" in rig.drive.listing(rig.drive.inbox)
    with pytest.raises(JobActionError, match="only undone"):
        actions.rename_again(rig.owner, _renamed_job(rig, "other.pdf"))


def test_undo_never_overwrites_and_changes_nothing_then(rig: Rig) -> None:
    job_id = _renamed_job(rig)
    rig.drive.put(f"{rig.drive.inbox}/scan.pdf", b"another file took the name")
    with pytest.raises(JobActionError, match="not overwriting"):
        job_actions(rig.settings, rig.db).undo(rig.owner, job_id)
    assert rig.queue.get(job_id).state == J.DONE
    assert rig.drive.files_below(rig.drive.library) == ["2024-03-01_ACME.pdf"]


def test_another_users_job_is_not_found_and_nothing_changes(rig: Rig) -> None:
    job_id = _renamed_job(rig)
    other = Accounts(rig.db, rig.settings).create_user("eve@example.org")
    actions = job_actions(rig.settings, rig.db)
    for act in (actions.undo, actions.rename_again, actions.retry):
        with pytest.raises(J.JobNotFound):
            act(other.id, job_id)
    with pytest.raises(J.JobNotFound):
        actions.undo(rig.owner, job_id + 1000)
    assert rig.queue.get(job_id).state == J.DONE
    assert rig.drive.files_below(rig.drive.library) == ["2024-03-01_ACME.pdf"]


@pytest.mark.parametrize("drive", ["memory"], indirect=True)
def test_retry_of_a_failed_job(rig: Rig) -> None:
    rig.drive.put(f"{rig.drive.inbox}/bad.pdf", b"BIN garbage")
    rig.poll()
    assert rig.run_all() == [J.SKIPPED]
    (job,) = rig.queue.find()
    actions = job_actions(rig.settings, rig.db)
    view = actions.retry(rig.owner, int(job.id or 0))
    assert view.state == J.QUEUED and view.reason is None
    assert rig.run_all() == [J.SKIPPED]
    with pytest.raises(JobActionError):
        actions.undo(rig.owner, int(job.id or 0))
