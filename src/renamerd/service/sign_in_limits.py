"""Throttling wrong passwords, in the `limits` storage (Redis when `limits.storage_url` is set,
so every process shares the count), in three moving windows of `web.sign_in_window_minutes`
(15):

* one account from one address: `web.sign_in_attempts` (10) failures;
* one address, whatever the accounts: SPREAD (5) times as many (a guesser trying many
  accounts);
* one account, whatever the addresses: SPREAD times as many (a guesser spread over many
  addresses).

Past one, further sign-ins of that pair, address or account are refused until the oldest
failure leaves its window; `check` then raises `LimitExceeded` with the seconds to wait. So a
user's typos lock out that user at that address only, not everyone behind the same NAT, and
locking a chosen user out takes fifty guesses, not ten. A correct password does not reset the
count (a guesser who hits it must not learn so). E-mail addresses are hashed before they become
storage keys.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.strategies import MovingWindowRateLimiter

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded, Quota, open_storage

NAMESPACE = "renamerd-sign-in"


def _account_key(email: str) -> str:
    return "account:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


#: how many times the failures of one account at one address an address or an account may
#: gather over all accounts or all addresses
SPREAD = 5


class SignInThrottle:
    """Counts failed sign-ins. Thread-safe; `clock` is injectable for tests. The windows follow
    `web` as it is at each sign-in (a reload changes it in place); the storage stays."""

    def __init__(self, limits: LimitsSettings, web: WebSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.storage = open_storage(limits)
        self.clock = clock
        self.web = web
        self._windows = MovingWindowRateLimiter(self.storage)

    @property
    def pair(self) -> RateLimitItem:
        """The window of one account at one address."""
        return RateLimitItemPerMinute(self.web.sign_in_attempts, self.web.sign_in_window_minutes)

    @property
    def spread(self) -> RateLimitItem:
        """The window of one address, or one account, over all the others."""
        return RateLimitItemPerMinute(SPREAD * self.web.sign_in_attempts,
                                      self.web.sign_in_window_minutes)

    def _windows_of(self, email: str, address: str) -> list[tuple[RateLimitItem, str]]:
        account = _account_key(email)
        return [(self.pair, f"{account}:address:{address}"), (self.spread, "address:" + address),
                (self.spread, account)]

    def check(self, email: str, address: str) -> None:
        """Raise LimitExceeded (with retry_after) when the account at this address, the
        address or the account has used up its failures; else nothing. Read-only."""
        for item, key in self._windows_of(email, address):
            if not self._windows.test(item, NAMESPACE, key):
                stats = self._windows.get_window_stats(item, NAMESPACE, key)
                wait = max(1, math.ceil(stats.reset_time - self.clock()))
                quota = Quota(item.amount, 0, int(stats.reset_time * 1000))
                raise LimitExceeded("too many failed sign-ins", quota, wait)

    def failed(self, email: str, address: str) -> None:
        """Count one failed sign-in for the account at the address, the address, the account."""
        for item, key in self._windows_of(email, address):
            self._windows.hit(item, NAMESPACE, key)

    def close(self) -> None:
        """Release the storage's connections (Redis)."""
        close = getattr(self.storage, "close", None)
        if callable(close):
            close()
