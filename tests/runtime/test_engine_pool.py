"""The engine pool: real worker processes, a deadline that kills, a memory ceiling that holds,
a crash that is told apart, a stop that does not wait for a stuck worker."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from renamerd.config import Settings
from renamerd.engine.types import RenameOptions, UnsupportedDocument
from renamerd.runtime.engine_pool import (
    EngineCrashed,
    EngineOutOfMemory,
    EnginePool,
    EngineStopped,
    EngineTimeout,
)

from . import engine_hooks as hooks

pytestmark = pytest.mark.xdist_group("engine-pool")

CONFIG = Settings().engine_config()
OPTIONS = RenameOptions()


@pytest.fixture
def pools() -> Iterator[list[EnginePool]]:
    made: list[EnginePool] = []
    yield made
    for pool in made:
        pool.stop()


def make(pools: list[EnginePool], fn: object = None, **kw: object) -> EnginePool:
    args: dict[str, object] = {"workers": 1, "deadline_s": 1.0, "memory_limit_mb": 300, **kw}
    pool = EnginePool(fn=fn, **args)  # type: ignore[arg-type]
    pool.start()
    pools.append(pool)
    return pool


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_real_engine_renames_in_a_worker_process(pools: list[EnginePool]) -> None:
    from daemon.e2e import invoice_pdf

    pool = make(pools)
    result = pool.rename(invoice_pdf(1), "scan.pdf", OPTIONS, CONFIG)
    assert result.suggested_filename == "2024-02-02_Nordwind-Energie-AG_invoice_INV-10001.pdf"
    with pytest.raises(UnsupportedDocument):  # the engine's own errors pass through
        pool.rename(b"plain text", "a.txt", OPTIONS, CONFIG)


def test_a_rename_past_its_deadline_is_killed_and_the_worker_replaced(
        pools: list[EnginePool]) -> None:
    pool = make(pools, hooks.pid, deadline_s=1.0)
    first, _ = pool.rename(b"0", "x", OPTIONS, CONFIG)
    pool.fn = hooks.spin
    started = time.monotonic()
    with pytest.raises(EngineTimeout, match="longer than 1 s"):
        pool.rename(b"", "x", OPTIONS, CONFIG)
    assert time.monotonic() - started < 2.0
    time.sleep(0.3)
    assert not alive(first)  # the spinning worker was that one: killed
    pool.fn = hooks.pid
    second, _ = pool.rename(b"0", "x", OPTIONS, CONFIG)
    assert second != first


def test_a_killed_worker_ends_its_ocr_program_and_removes_its_scratch_folder(
        pools: list[EnginePool], tmp_path: Path) -> None:
    """Past the deadline the worker gets SIGTERM: the tesseract it runs must not go on as an
    orphan, nor its page image stay in the temporary folder (one user's costly images would
    pile both up)."""
    pool = make(pools, hooks.ocr_forever, deadline_s=1.0)
    record = tmp_path / "ocr.txt"
    with pytest.raises(EngineTimeout):
        pool.rename(str(record).encode(), "x", OPTIONS, CONFIG)
    scratch, pid = record.read_text().split()
    deadline = time.monotonic() + 3
    while (alive(int(pid)) or os.path.exists(scratch)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(scratch)
    assert not alive(int(pid)) or _zombie(int(pid))


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except OSError:
        return False


def test_the_memory_ceiling_holds_in_each_worker(pools: list[EnginePool]) -> None:
    pool = make(pools, hooks.pid, memory_limit_mb=300)
    _, limit = pool.rename(b"0", "x", OPTIONS, CONFIG)
    assert limit == 300 * 1024 * 1024
    pool.fn = hooks.allocate
    with pytest.raises(EngineOutOfMemory, match="memory_limit_mb"):
        pool.rename(b"1000", "x", OPTIONS, CONFIG)  # 1 GB: refused
    with pytest.raises(RuntimeError, match="allocated 52428800 bytes"):
        pool.rename(b"50", "x", OPTIONS, CONFIG)  # 50 MB: fine, the worker still works


def test_a_worker_that_dies_is_a_crash_not_a_timeout(pools: list[EnginePool]) -> None:
    pool = make(pools, hooks.die)
    with pytest.raises(EngineCrashed, match="exit 9"):
        pool.rename(b"", "x", OPTIONS, CONFIG)
    pool.fn = hooks.pid
    assert pool.rename(b"0", "x", OPTIONS, CONFIG)  # replaced


def test_stop_kills_a_stuck_worker_within_a_second(pools: list[EnginePool]) -> None:
    pool = make(pools, hooks.spin, deadline_s=0)  # no deadline: stuck for good
    errors: list[BaseException] = []

    def call() -> None:
        try:
            pool.rename(b"", "x", OPTIONS, CONFIG)
        except BaseException as err:
            errors.append(err)

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.5)
    pids = pool.pids()
    started = time.monotonic()
    pool.stop()
    t.join(5)
    assert time.monotonic() - started < 1.5
    assert [type(e) for e in errors] == [EngineStopped]
    assert pids and not any(alive(p) for p in pids)
    pool.fn = hooks.pid  # a rename after stop() starts new workers
    assert pool.rename(b"0", "x", OPTIONS, CONFIG)[0] not in pids


def test_workers_inherit_no_database_connection_and_no_thread(
        tmp_path: Path, pools: list[EnginePool]) -> None:
    """Started from a forkserver, not forked from this process: the SQLite file this process
    has open (and its threads) are not in the worker."""
    from renamerd.storage.database import Database

    db = Database(f"sqlite:///{tmp_path / 'held.db'}")
    db.upgrade()
    with db.session() as s:
        s.connection()
        busy = threading.Thread(target=time.sleep, args=(2,))
        busy.start()
        pool = make(pools, hooks.inherited)
        files, threads = pool.rename(b"", "x", OPTIONS, CONFIG)
        busy.join()
    db.dispose()
    assert not [f for f in files if "held.db" in f], files
    assert threads <= 2  # its main thread (and pebble's result sender at most)
