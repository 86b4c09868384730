"""Helpers every connector shares: names and paths, free names, pacing with retries, chunked copy."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import BinaryIO, TypeVar

from renamerd.connectors.protocol import Conflict, Connector, TooLarge, TransientError

log = logging.getLogger("renamerd.connectors")

T = TypeVar("T")


def split_name(name: str) -> tuple[str, str]:
    """("report.final", ".pdf") for "report.final.pdf"; no extension gives (name, "")."""
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]


def join_path(folder: str, name: str) -> str:
    folder = folder.rstrip("/")
    return f"{folder}/{name}" if folder else f"/{name}"


def free_name(
    connector: Connector,
    folder_path: str,
    name: str,
    *,
    limit: int = 1000,
    skip: Iterable[str] = (),
) -> str:
    """The first of "name.ext", "name (2).ext", "name (3).ext"... not taken in `folder_path`.

    Relies on `stat_path`, which is case-insensitive on providers that are. Read-only. The answer
    can be taken by someone else before the move; `move` then raises Conflict and the caller asks
    again, passing the names that clashed in `skip` (a folder holding a name is invisible to
    `stat_path`, so without `skip` the same name would come back). Raises Conflict after
    `limit` candidates.
    """
    fold = str.casefold if connector.case_insensitive else str
    skipped = {fold(s) for s in skip}
    stem, ext = split_name(name)
    for n in range(1, limit + 1):
        candidate = name if n == 1 else f"{stem} ({n}){ext}"
        if fold(candidate) in skipped:
            continue
        if connector.stat_path(join_path(folder_path, candidate)) is None:
            return candidate
    raise Conflict(f"no free name for {name!r} in {folder_path!r} after {limit} tries")


@dataclass
class Pacer:
    """Per-connection pacing and retries, after rclone's pacer.

    `call(fn)` runs `fn`, keeping at least `min_sleep` between calls; when `fn` raises a
    TransientError it sleeps (the error's `retry_after` if given, else exponential backoff with
    jitter, capped at `max_sleep`) and tries again, up to `retries` times, then re-raises.
    """

    min_sleep: float = 0.0
    max_sleep: float = 30.0
    retries: int = 8
    backoff: float = 0.5
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    _last: float = field(default=0.0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def call(self, fn: Callable[[], T], what: str = "call") -> T:
        attempt = 0
        while True:
            self._wait_turn()
            try:
                return fn()
            except TransientError as err:
                attempt += 1
                if attempt > self.retries:
                    raise
                delay = err.retry_after
                if delay is None:
                    delay = self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random())
                delay = min(max(delay, 0.0), self.max_sleep)
                log.info("%s: transient error (%s), retry %d in %.2fs", what, err, attempt, delay)
                self.sleep(delay)

    def _wait_turn(self) -> None:
        if self.min_sleep <= 0:
            return
        with self._lock:
            now = self.clock()
            gap = self._last + self.min_sleep - now
            if gap > 0:
                self.sleep(gap)
            self._last = max(now, self._last + self.min_sleep)


def iter_chunks(stream: Iterable[bytes], dest: BinaryIO, max_bytes: int) -> int:
    """Copy chunks into `dest`, raising TooLarge past `max_bytes`. Shared by the providers."""
    total = 0
    for chunk in stream:
        if not chunk:
            continue
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge(f"file is larger than {max_bytes} bytes")
        dest.write(chunk)
    return total
