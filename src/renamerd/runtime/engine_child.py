"""What runs inside an engine worker process (`runtime.engine_pool`): its set-up and one rename.

Imported by the pool's forkserver (`engine_preload` warms the engine up there once, so every
worker forked from it starts warm) and by each worker. Nothing here touches the database.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import resource
import signal
import threading
from collections.abc import Callable
from typing import Any

from renamerd.engine.types import RenameOptions, RenameResult

log = logging.getLogger("renamerd.engine_pool")

MIB = 1024 * 1024
#: glibc's malloc_trim, once looked up (False: not available)
_malloc_trim: Any = None


class EngineFailure(Exception):
    """The engine could not finish a rename for a reason outside the document's content
    rules: base of EngineTimeout, EngineOutOfMemory, EngineCrashed, EngineStopped."""


class EngineTimeout(EngineFailure):
    """The rename ran past `engine.deadline_seconds`; its worker process was killed."""


class EngineOutOfMemory(EngineFailure):
    """The rename needed more memory than `engine.memory_limit_mb`."""


class EngineCrashed(EngineFailure):
    """The worker process ended during the rename (killed from outside, or a crash)."""


class EngineStopped(EngineFailure):
    """The pool is stopping or stopped; the rename did not run."""


def initialize(memory_limit_mb: int, ocr: bool) -> None:
    """A new worker process: cap its data segment at `memory_limit_mb` (RLIMIT_DATA: every
    heap and anonymous mapping; 0 = no cap), then, when asked, load the OCR models in a
    background thread: the worker takes renames at once (a replacement for a killed worker
    does not hold up the text documents queued behind it for the ~0.7 s the models take), and
    a scan that comes early waits for the models being loaded. SIGTERM ends the OCR programs
    a rename runs with the worker (`_stop`). Runs once per worker, before its first
    rename."""
    if memory_limit_mb > 0:
        limit = memory_limit_mb * MIB
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    from renamerd.runtime.startup import prepare_long_running

    prepare_long_running()  # done in the forkserver already: then free
    signal.signal(signal.SIGTERM, _stop)
    if ocr:
        threading.Thread(target=_load_ocr_models, name="ocr-models", daemon=True).start()


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM (the pool stops this worker: past its deadline, or stopping): end the OCR
    programs it runs and remove their scratch folders, then exit at once."""
    from renamerd.engine.ocr import children

    children.stop_all()
    os._exit(128 + signum)


def _load_ocr_models() -> None:
    from renamerd.engine import warm_up

    try:
        warm_up(ocr=True)
    except MemoryError:  # a ceiling lower than the models: scans load them on demand
        gc.collect()
    except Exception as err:  # a scan will meet it again and report it
        log.warning("the OCR models could not be loaded at start: %s", err)


def rename(fn: Callable[..., RenameResult], data: bytes, filename: str,
           options: RenameOptions, config: Any) -> RenameResult:
    """`fn(data, filename, options, config)` in this worker. Raises what `fn` raises, except
    MemoryError, which becomes EngineOutOfMemory (what was allocated is freed first)."""
    try:
        return fn(data, filename, options, config)
    except MemoryError:
        del data
        gc.collect()
        raise EngineOutOfMemory("the document needed more memory than the engine may use "
                                "(engine.memory_limit_mb)") from None
    finally:
        _trim()


def _trim() -> None:
    """Hand the heap's free pages back to the system (glibc keeps them otherwise: a worker
    that once read a large document would stay that large). ~1 ms; a no-op without glibc."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


def ping() -> int:
    """A no-op task: scheduling it starts the pool's workers."""
    return 0
