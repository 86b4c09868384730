"""The daemon in-process on the memory connector: polling with a lease, workers, a stopped
connection beside a healthy one, pending-credit wake-ups without spinning, sd_notify, stop."""

from __future__ import annotations

import itertools
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from renamerd.config import Settings
from renamerd.connectors import AuthError
from renamerd.runtime.daemon import Daemon, sd_notify, watchdog_interval
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState
from renamerd_connectors import memory

from .fakes import doc, fake_engine

_ids = itertools.count()


def wait_for(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def make_settings(db: Database, tmp_path: Path, drives: list[str], **daemon: object) -> Settings:
    return Settings(
        database={"url": db.url},
        daemon={"state_dir": str(tmp_path / "state"), "lease_s": 10, "workers": 2, **daemon},
        server={"shutdown_grace_s": 5},
        connections=[{"name": d, "provider": "memory", "owner": f"{d}@example.com",
                      "watch": "/inbox", "target": "/lib", "poll_seconds": 0.2,
                      "options": {"drive": d}} for d in drives],
    )


@pytest.fixture
def drives(request: pytest.FixtureRequest) -> list[str]:
    names = [f"d{os.getpid()}_{next(_ids)}_{i}" for i in range(2)]
    for n in names:
        memory.drive(n).mkdir("/inbox")
    yield names
    for n in names:
        memory.forget_drive(n)


def counts(db: Database) -> dict[str, int]:
    return J.JobQueue(db).counts()


def test_daemon_renames_and_a_stopped_connection_leaves_others_running(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    good, bad = (memory.drive(n) for n in drives)
    bad.inject("changes", AuthError("token revoked"))
    for i in range(6):
        good.put(f"/inbox/{i}.pdf", doc(f"2024-02-{i + 10}", f"Shop{i}"))
    daemon = Daemon(make_settings(db, tmp_path, drives), db, engine=fake_engine)
    daemon.start()
    try:
        wait_for(lambda: counts(db)[J.DONE] == 6)
        assert good.listing("/inbox") == []
        with db.session() as s:
            state = s.get(ConnectionState, drives[1])
            assert state is not None and state.status == "stopped"
            assert state.error == "token revoked"
            mine = s.get(ConnectionState, drives[0])
            assert mine is not None and mine.poll_owner == daemon.identity
        assert daemon.alive()
        good.put("/inbox/late.pdf", doc("2024-03-01", "Late"))  # picked up by the next poll
        wait_for(lambda: counts(db)[J.DONE] == 7)
    finally:
        assert daemon.stop(5)
    with db.session() as s:
        mine = s.get(ConnectionState, drives[0])
        assert mine is not None and mine.poll_owner is None  # lease handed back


def test_a_second_process_does_not_poll_a_leased_connection(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    settings = make_settings(db, tmp_path, drives[:1])
    a = Daemon(settings, db, workers=0, engine=fake_engine)
    b = Daemon(settings, db, workers=0, engine=fake_engine)
    a.owners = b.owners = {drives[0]: _owner(db, settings)}
    memory.drive(drives[0]).put("/inbox/x.pdf", doc("2024-01-01", "X"))
    assert a.poll(drives[0]) == 1
    before = memory.drive(drives[0]).faults.calls["changes"]
    assert b.poll(drives[0]) == 0
    assert memory.drive(drives[0]).faults.calls["changes"] == before  # b never listed
    a.poller.release_leases()
    memory.drive(drives[0]).put("/inbox/y.pdf", doc("2024-01-02", "Y"))
    assert b.poll(drives[0]) == 1  # takes over with a's cursor: only the new file


def _owner(db: Database, settings: Settings) -> str:
    from renamerd.service.accounts import Accounts

    return Accounts(db, settings).ensure_user(settings.connections[0].owner).id


def test_grant_wakes_pending_jobs_quickly_without_spinning(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    settings = make_settings(db, tmp_path, drives[:1])
    settings.credits.signup_grant = 2
    d = memory.drive(drives[0])
    for i in range(4):
        d.put(f"/inbox/{i}.pdf", doc(f"2024-04-0{i + 1}", f"S{i}"))
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()
    try:
        wait_for(lambda: counts(db)[J.DONE] == 2 and counts(db)[J.PENDING_CREDITS] == 2)
        # idle: pending jobs cost no work; measure claim queries over a second
        claims = d.faults.total_calls
        cpu = time.process_time()
        time.sleep(1.0)
        assert time.process_time() - cpu < 0.3
        assert d.faults.total_calls - claims <= 10  # only the 0.2 s polls
        owner = daemon.owners[drives[0]]
        t0 = time.monotonic()
        Credits(db).grant(owner, 5)
        wait_for(lambda: counts(db)[J.DONE] == 4, timeout=5)
        assert time.monotonic() - t0 < 3
    finally:
        daemon.stop(5)


def test_sd_notify_and_watchdog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not sd_notify("READY=1")  # not under systemd: a no-op
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        assert sd_notify("READY=1")
        assert sock.recv(100) == b"READY=1"
    monkeypatch.setenv("WATCHDOG_USEC", "6000000")
    assert watchdog_interval(Settings()) == 3.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # for another process
    assert watchdog_interval(Settings()) is None


def test_stop_lets_running_jobs_finish_within_the_grace(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    import threading

    started = threading.Event()

    def slow_engine(*args: object) -> object:
        started.set()
        time.sleep(1.0)
        return fake_engine(*args)  # type: ignore[arg-type]

    d = memory.drive(drives[0])
    d.put("/inbox/a.pdf", doc("2024-01-01", "Slow"))
    d.put("/inbox/b.pdf", doc("2024-01-02", "Slow"))
    daemon = Daemon(make_settings(db, tmp_path, drives[:1], workers=1), db, engine=slow_engine)
    daemon.start()
    assert started.wait(10)
    assert daemon.stop(5)  # the running job finishes; the other one is not started
    assert counts(db)[J.DONE] == 1 and counts(db)[J.QUEUED] == 1
    assert not daemon.alive()

    started.clear()
    daemon = Daemon(make_settings(db, tmp_path, drives[:1], workers=1), db, engine=slow_engine)
    daemon.start()
    assert started.wait(10)
    assert not daemon.stop(0.1)  # grace too short: the job keeps its lease and is left running
    assert counts(db)[J.RUNNING] == 1


def test_no_job_is_queued_once_the_stop_begins(
    db: Database, tmp_path: Path, drives: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM while a job runs and a poll is listing a folder: the running job finishes
    within the grace, the poll's new files are not queued (they stay in the folder for the
    next start), and the stop does not wait for the listing."""
    import threading

    from renamerd_connectors.memory.connector import MemoryConnector

    d = memory.drive(drives[0])
    d.put("/inbox/first.pdf", doc("2024-02-01", "First"))
    running, finish = threading.Event(), threading.Event()
    listing, release = threading.Event(), threading.Event()
    changes = MemoryConnector.changes
    calls = itertools.count()

    def gated_engine(*args: object) -> object:
        running.set()
        finish.wait(10)
        return fake_engine(*args)  # type: ignore[arg-type]

    def slow_changes(self: MemoryConnector, *args: object, **kwargs: object) -> object:
        if next(calls) > 0:  # the first poll finds first.pdf; a later one lists slowly,
            listing.set()    # and finds six new files once the stop has begun
            release.wait(10)
            for i in range(6):
                d.put(f"/inbox/late{i}.pdf", doc(f"2024-02-0{i + 2}", "Late"))
        return changes(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MemoryConnector, "changes", slow_changes)
    settings = make_settings(db, tmp_path, drives[:1], workers=1)
    daemon = Daemon(settings, db, engine=gated_engine)
    daemon.start()
    assert running.wait(10) and listing.wait(10)
    stopping = threading.Thread(target=daemon.stop, args=(5,))
    stopping.start()
    wait_for(daemon._stopping.is_set)
    release.set()  # the listing ends after the stop began, while the job still runs
    time.sleep(0.5)  # time enough for the poll to write, were it to
    assert sum(counts(db).values()) == 1 and counts(db)[J.RUNNING] == 1
    finish.set()
    stopping.join(10)
    assert counts(db)[J.DONE] == 1 and sum(counts(db).values()) == 1
    assert len(d.listing("/inbox")) == 6

    monkeypatch.setattr(MemoryConnector, "changes", changes)
    daemon = Daemon(settings, db, workers=0, engine=fake_engine)  # the next start queues them
    daemon.start()
    try:
        wait_for(lambda: counts(db)[J.QUEUED] == 6)
    finally:
        daemon.stop(5)


def test_target_inside_watch_is_never_picked_up_again(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    settings = make_settings(db, tmp_path, drives[:1])
    settings.connections[0].target = "/inbox/sorted"
    settings.connections[0].recursive = True
    d = memory.drive(drives[0])
    for i in range(3):
        d.put(f"/inbox/{i}.pdf", doc(f"2024-05-0{i + 1}", "Inside"))
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()
    try:
        wait_for(lambda: counts(db)[J.DONE] == 3)
        time.sleep(1.0)  # several more polls see the moved files under the watched folder
        assert sum(counts(db).values()) == 3
        assert d.listing("/inbox/sorted/2024/invoice") == [
            "2024-05-01_Inside.pdf", "2024-05-02_Inside.pdf", "2024-05-03_Inside.pdf"]
    finally:
        daemon.stop(5)


def test_an_idle_worker_hears_jobs_queued_by_another_process(
    db: Database, tmp_path: Path, drives: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's poll wakes an idle worker at once: NOTIFY on PostgreSQL, a watch of
    the -wal file on SQLite. With the idle timeout at a minute, only the wake-up can do it."""
    import renamerd.runtime.worker_threads as daemon_module

    monkeypatch.setattr(daemon_module, "IDLE_S", 60.0)
    monkeypatch.setattr(daemon_module, "IDLE_SQLITE_S", 60.0)
    settings = make_settings(db, tmp_path, drives[:1], workers=1)
    worker = Daemon(settings, db, poll=False, engine=fake_engine)
    worker.start()
    try:
        time.sleep(0.5)  # the worker found nothing and sleeps
        # the poller is "another process": its own database handle, and its in-process
        # wake-up (which would reach this worker directly) is off
        monkeypatch.setattr(J.JobQueue, "notify", lambda self: None)
        other_db = Database(db.url)
        poller = Daemon(settings, other_db, workers=0, engine=fake_engine)
        poller.owners = {drives[0]: _owner(other_db, settings)}
        memory.drive(drives[0]).put("/inbox/a.pdf", doc("2024-06-01", "Woken"))
        t0 = time.monotonic()
        assert poller.poll(drives[0]) == 1
        wait_for(lambda: counts(db)[J.DONE] == 1, timeout=20)
        assert time.monotonic() - t0 < 20
        poller.poller.release_leases()
        other_db.dispose()
    finally:
        assert worker.stop(5)


def test_stop_does_not_wait_for_a_long_poll(db: Database, tmp_path: Path) -> None:
    """A local folder is long-polled with inotify for up to 30 s; stopping neither waits for
    that nor calls the stop unclean."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    settings = Settings(
        database={"url": db.url},
        daemon={"state_dir": str(tmp_path / "state"), "workers": 1},
        connections=[{"name": "inbox", "provider": "local", "owner": "o@example.com",
                      "watch": str(inbox), "target": str(tmp_path / "lib"),
                      "poll_seconds": 30}],
    )
    daemon = Daemon(settings, db, engine=fake_engine)
    daemon.start()

    def polling() -> bool:
        with db.session() as s:
            state = s.get(ConnectionState, "inbox")
            return state is not None and state.poll_owner == daemon.identity

    wait_for(polling)
    time.sleep(0.3)  # in the long poll now
    t0 = time.monotonic()
    assert daemon.stop(5)
    assert time.monotonic() - t0 < 2


def test_a_running_daemon_is_listed_alive_and_leaves_the_list_when_it_stops(
    db: Database, tmp_path: Path, drives: list[str]
) -> None:
    from renamerd.service.processes import ProcessRegistry

    daemon = Daemon(make_settings(db, tmp_path, drives[:1], workers=1), db, engine=fake_engine)
    daemon.start()
    try:
        (alive,) = ProcessRegistry(db).alive()
        assert alive.identity == daemon.identity and alive.workers == 1 and alive.polling
    finally:
        daemon.stop(5)
    assert ProcessRegistry(db).alive() == []
