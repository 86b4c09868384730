"""Trying a delivery again after a transient failure, the wait doubling each time."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger("renamerd.notify")


class PermanentFailure(Exception):
    """A delivery that trying again cannot fix (refused recipient, 4xx answer, blocked URL)."""


class TransientFailure(Exception):
    """A delivery that may work later (server down, 4xx SMTP reply, HTTP 5xx or 429)."""


def with_retries(fn: Callable[[], T], *, retries: int, backoff_s: float, what: str,
                 sleep: Callable[[float], None] = time.sleep) -> T:
    """`fn()`, called again up to `retries` times while it raises TransientFailure, waiting
    `backoff_s`, then twice that, and so on. Raises the last TransientFailure, or a
    PermanentFailure at once."""
    attempt = 0
    while True:
        try:
            return fn()
        except TransientFailure as err:
            if attempt >= retries:
                raise
            delay = backoff_s * (2 ** attempt)
            attempt += 1
            log.warning("%s failed (%s); try %d of %d in %.1f s", what, err, attempt + 1,
                        retries + 1, delay)
            sleep(delay)
