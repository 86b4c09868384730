"""The engine in worker processes: a wall-clock deadline and a memory ceiling per rename.

The engine bounds its own work (docs/security-engine.md); this is the outer bound, enforced by
something that can stop any code: each rename runs in one of `engine.workers` processes (a
pebble `ProcessPool`), with

- a deadline of `engine.deadline_seconds`, counted from the moment a worker starts the rename:
  past it the worker is killed (SIGTERM, SIGKILL 0.5 s later) and replaced, and the caller
  gets `EngineTimeout`;
- a memory ceiling of `engine.memory_limit_mb` per worker (RLIMIT_DATA, set in the worker):
  an allocation past it fails, and the caller gets `EngineOutOfMemory`.

A worker that dies during a rename (the kernel's or systemd's OOM killer, a crash) gives
`EngineCrashed`; a pool that is stopping gives `EngineStopped`. Every other exception of the
engine (UnsupportedDocument, DocumentTooLarge, ...) reaches the caller as it was raised.

Workers start from a forkserver, never by forking this process: they inherit no database
connection, lock or thread. The forkserver imports `engine_preload`, which warms the engine up
once, so every worker (replacements of killed ones too) starts warm; OCR models are loaded in
each worker at its start, in a background thread, when OCR by PP-OCR is configured (a worker
takes renames at once; an early scan waits for the models). `start()` starts the workers at
once; `stop()` kills them (a stuck worker included) within about a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, CancelledError, Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from pebble import ProcessExpired, ProcessPool
from pebble.common.types import CONSTS

from renamerd.engine.types import RenameOptions, RenameResult
from renamerd.runtime import engine_child
from renamerd.runtime.engine_child import (
    EngineCrashed,
    EngineFailure,
    EngineOutOfMemory,
    EngineStopped,
    EngineTimeout,
)

__all__ = ["EngineCrashed", "EngineFailure", "EngineOutOfMemory", "EnginePool", "EngineStopped",
           "EngineTimeout", "default_workers"]

log = logging.getLogger("renamerd.engine_pool")

#: seconds between SIGTERM and SIGKILL for a worker being stopped (pebble's default is 3 s; a
#: worker stuck in C code never runs its SIGTERM handler, so the wait is pure delay)
CONSTS.term_timeout = 0.5

EngineFn = Callable[[bytes, str, RenameOptions, Any], RenameResult]


def default_workers() -> int:
    """Worker processes when `engine.workers` is 0: one per core."""
    return max(1, os.cpu_count() or 1)


def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    # only takes effect before this process's forkserver starts (once per process)
    ctx.set_forkserver_preload(["renamerd.runtime.engine_preload"])
    return ctx


#: seconds after a stop is asked for that a rename a client waits for may still be read (then
#: its worker is killed: answered 500 and refunded), so a stuck document cannot hold the exit up
CLIENT_GRACE_S = 10.0


class EnginePool:
    """`workers` engine processes. `start()`, `rename(...)` from any thread (or `rename_async`
    from an event loop), then `stop()`. Safe to share between the API and the daemon."""

    def __init__(self, *, workers: int, deadline_s: float, memory_limit_mb: int,
                 ocr: bool = False, fn: EngineFn | None = None) -> None:
        """`fn` is the engine function run in the workers (default `renamerd.engine.rename`;
        tests give a module-level function of their own). `deadline_s` 0 = no deadline."""
        self.workers = workers if workers > 0 else default_workers()
        self.deadline_s = deadline_s
        self.memory_limit_mb = memory_limit_mb
        self.fn = fn
        self._pool: ProcessPool | None = None
        self._ocr = ocr
        self._lock = threading.Lock()
        self._stopped = False
        #: the futures handed out -> pebble's, for renames not finished yet
        self._pending: dict[Future[RenameResult], Future[RenameResult]] = {}
        #: renames a client waits for (`rename_async`: the API's) being read now
        self._clients = 0

    @classmethod
    def from_settings(cls, settings: Any, fn: EngineFn | None = None) -> EnginePool:
        """The pool `settings.engine` describes."""
        e = settings.engine
        return cls(workers=e.workers, deadline_s=e.deadline_seconds,
                   memory_limit_mb=e.memory_limit_mb, ocr=e.ocr != "tesseract", fn=fn)

    def reconfigure(self, settings: Any) -> None:
        """A reload (runtime/reload.py): `settings.engine.deadline_seconds` applies to the
        renames submitted from now on. The worker count and the memory ceiling are the worker
        processes' own and stay until a restart."""
        self.deadline_s = settings.engine.deadline_seconds

    def start(self) -> None:
        """Start the worker processes now (they warm up in the background); after `stop()`,
        start them again (a rename submitted after `stop()` does too). Safe to repeat."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if self._pool is None:
            self._stopped = False
            self._pool = ProcessPool(
                max_workers=self.workers, initializer=engine_child.initialize,
                initargs=(self.memory_limit_mb, self._ocr), context=_context())
            self._pool.schedule(engine_child.ping)  # starts every worker

    def submit(self, data: bytes, filename: str, options: RenameOptions, config: Any
               ) -> Future[RenameResult]:
        """Queue one rename; the future gives the result or raises (see `result_of`)."""
        with self._lock:
            self._start_locked()
            pool = self._pool
            assert pool is not None
            fn = self.fn if self.fn is not None else _default_engine()
            inner = pool.schedule(engine_child.rename, args=(fn, data, filename, options, config),
                                  timeout=self.deadline_s or None)
            outer: Future[RenameResult] = Future()
            self._pending[outer] = inner
        inner.add_done_callback(functools.partial(self._settle, outer))
        return outer

    def _settle(self, outer: Future[RenameResult], inner: Future[RenameResult]) -> None:
        """Pass the worker's outcome on (unless `stop()` settled the rename first)."""
        self._pending.pop(outer, None)
        try:
            if inner.cancelled():
                outer.set_exception(CancelledError())
            elif inner.exception() is not None:
                outer.set_exception(inner.exception())  # type: ignore[arg-type]
            else:
                outer.set_result(inner.result())
        except InvalidStateError:
            pass

    def rename(self, data: bytes, filename: str, options: RenameOptions, config: Any
               ) -> RenameResult:
        """The engine's `rename` in a worker process, within the deadline and the memory
        ceiling. Raises EngineTimeout, EngineOutOfMemory, EngineCrashed, EngineStopped, or
        the engine's own exceptions. Blocks the calling thread; safe to call from many."""
        return self.result_of(self.submit(data, filename, options, config))

    async def rename_async(self, data: bytes, filename: str, options: RenameOptions,
                           config: Any) -> RenameResult:
        """`rename` for an event loop (a client waits for it: `wait_for_clients`). Cancelling
        the awaiting task kills the worker."""
        future = self.submit(data, filename, options, config)
        with self._lock:
            self._clients += 1
        try:
            await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            inner = self._pending.get(future)
            if inner is not None:
                inner.cancel()  # pebble kills the worker running it
            raise
        except BaseException:  # noqa: S110  (result_of names it)
            pass
        finally:
            with self._lock:
                self._clients -= 1
        return self.result_of(future)

    def wait_for_clients(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until no rename a client waits for (`rename_async`) is
        being read; True when none is. For a stop that gives requests their grace before
        `stop()` kills the workers."""
        deadline = time.monotonic() + timeout
        while self._clients > 0:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    def result_of(self, future: Future[RenameResult]) -> RenameResult:
        """The result of a submitted rename, its failure translated (see `rename`)."""
        try:
            return future.result()
        except FutureTimeout:
            raise EngineTimeout(
                f"reading the document took longer than {self.deadline_s:g} s "
                "(engine.deadline_seconds)") from None
        except ProcessExpired as err:
            if self._stopped:
                raise EngineStopped("the engine is stopping") from None
            raise EngineCrashed(
                f"the engine's worker process ended during the rename (exit {err.exitcode})"
            ) from None
        except BrokenExecutor:  # every worker ended before it could start (its set-up failed)
            if self._stopped:
                raise EngineStopped("the engine is stopping") from None
            raise EngineCrashed("the engine's worker processes could not start") from None
        except CancelledError:
            raise EngineStopped("the engine is stopping") from None
        except MemoryError:
            raise EngineOutOfMemory("the document needed more memory than the engine may use "
                                    "(engine.memory_limit_mb)") from None
        except RuntimeError as err:
            if self._stopped or "pool" in str(err).lower():
                raise EngineStopped("the engine is stopping") from None
            raise

    def stop(self, timeout: float = 3.0) -> None:
        """Kill the workers (a running rename gets EngineStopped) and wait up to `timeout`
        seconds for them to end. Safe to repeat."""
        with self._lock:
            self._stopped = True
            pool, self._pool = self._pool, None
            pending, self._pending = list(self._pending), {}
        if pool is None:
            return
        pool.stop()
        for future in pending:  # pebble leaves the futures of killed tasks unresolved
            with contextlib.suppress(InvalidStateError):
                future.set_exception(EngineStopped("the engine is stopping"))
        try:
            pool.join(timeout)
        except TimeoutError:
            log.warning("engine workers still ending after %.1fs", timeout)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and the abuse benchmark)."""
        pool = self._pool
        if pool is None:
            return []
        workers = pool._pool_manager.worker_manager.workers  # noqa: SLF001  (no public API)
        return [w.pid for w in list(workers.values()) if w.pid is not None]


def _default_engine() -> EngineFn:
    from renamerd.engine import rename

    return rename  # type: ignore[no-any-return]
