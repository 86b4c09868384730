"""Throttling wrong passwords: per account and per client address, in the `limits` storage
(Redis when `limits.storage_url` is set, so every process shares the count).

After `web.sign_in_attempts` (10) failures within `web.sign_in_window_minutes` (15), further
sign-ins of that account, or from that address, are refused until the oldest failure leaves
the moving window; `check` then raises `LimitExceeded` with the seconds to wait. A correct
password does not reset the count (a guesser who hits it must not learn so). E-mail addresses
are hashed before they become storage keys.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable

from limits import RateLimitItemPerMinute
from limits.strategies import MovingWindowRateLimiter

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded, Quota, open_storage

NAMESPACE = "renamerd-sign-in"


def _account_key(email: str) -> str:
    return "account:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


class SignInThrottle:
    """Counts failed sign-ins. Thread-safe; `clock` is injectable for tests."""

    def __init__(self, limits: LimitsSettings, web: WebSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.storage = open_storage(limits)
        self.clock = clock
        self.item = RateLimitItemPerMinute(web.sign_in_attempts, web.sign_in_window_minutes)
        self._windows = MovingWindowRateLimiter(self.storage)

    def _keys(self, email: str, address: str) -> list[str]:
        return [_account_key(email), "address:" + address]

    def check(self, email: str, address: str) -> None:
        """Raise LimitExceeded (with retry_after) when the account or the address has used up
        its failures; else nothing. Read-only."""
        for key in self._keys(email, address):
            if not self._windows.test(self.item, NAMESPACE, key):
                stats = self._windows.get_window_stats(self.item, NAMESPACE, key)
                wait = max(1, math.ceil(stats.reset_time - self.clock()))
                quota = Quota(self.item.amount, 0, int(stats.reset_time * 1000))
                raise LimitExceeded("too many failed sign-ins", quota, wait)

    def failed(self, email: str, address: str) -> None:
        """Count one failed sign-in for the account and for the address."""
        for key in self._keys(email, address):
            self._windows.hit(self.item, NAMESPACE, key)

    def close(self) -> None:
        """Release the storage's connections (Redis)."""
        close = getattr(self.storage, "close", None)
        if callable(close):
            close()
