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

An admin lifts a lock early: `lockouts` says which accounts are refused and until when,
`clear_account` forgets an account's failures (from every address), `clear_address` an
address's (over every account). Both find the stored counts by listing the storage's keys, which
the in-process memory and Redis allow (a Redis SCAN); other `limits` storages raise
NotImplementedError there.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded, Quota, open_storage

NAMESPACE = "renamerd-sign-in"


def _account_key(email: str) -> str:
    return "account:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


#: a storage key's identifier (what `_windows_of` makes): the account's hash, the address, or both
_IDENTIFIER = re.compile(r"account:(?P<account>[0-9a-f]{32})(?::address:(?P<pair>.+))?"
                         r"|address:(?P<address>.+)", re.DOTALL)
#: a Redis MATCH pattern's special characters
_GLOB = re.compile(r"([\\*?\[\]])")


def _storage_keys(storage: Storage, prefix: str) -> list[str]:
    """The keys (as `limits` makes them) starting with `prefix` that `storage` holds: its
    dict's in memory, a SCAN on Redis. Raises NotImplementedError for other storages."""
    if isinstance(storage, MemoryStorage):
        return [k for k in list(storage.events) if k.startswith(prefix)]
    if isinstance(storage, RedisStorage):
        head = storage.prefixed_key("")
        match = storage.prefixed_key(_GLOB.sub(r"\\\1", prefix)) + "*"
        client: Any = storage.get_connection()  # redis.Redis (limits types it narrower)
        found = client.scan_iter(match=match, count=1000)
        return [(k.decode() if isinstance(k, bytes) else k)[len(head):] for k in found]
    raise NotImplementedError(f"the failed sign-ins in {type(storage).__name__} cannot be "
                              "listed: use Redis (limits.storage_url) or the memory")


@dataclass(frozen=True)
class Lockout:
    """An account refused sign-in now (`SignInThrottle.lockouts`)."""

    #: when it may sign in again from everywhere: the latest end of its full windows (UTC)
    until: datetime
    #: its failures over all addresses are used up: refused from every address
    everywhere: bool
    #: the addresses where its own failures are used up, sorted
    addresses: tuple[str, ...]


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

    @property
    def in_process(self) -> bool:
        """Whether the counts live in this process's memory (no `limits.storage_url`): another
        process (the CLI) then sees none of them."""
        return isinstance(self.storage, MemoryStorage)

    def _stored(self) -> list[tuple[str, str, re.Match[str]]]:
        """Every stored count of failed sign-ins, whatever its window's size (a reload may have
        changed it): its storage key, its identifier (as `_windows_of` makes it) and that
        identifier parsed by _IDENTIFIER."""
        head = f"{self.pair.namespace}/{NAMESPACE}/"
        found = []
        for key in _storage_keys(self.storage, head):
            identifier = key[len(head):].rsplit("/", 3)[0]
            parsed = _IDENTIFIER.fullmatch(identifier)
            if parsed is not None:
                found.append((key, identifier, parsed))
        return found

    def _failures(self, item: RateLimitItem, key: str) -> int:
        return item.amount - self._windows.get_window_stats(item, NAMESPACE, key).remaining

    def lockouts(self, emails: Iterable[str]) -> dict[str, Lockout]:
        """The accounts of `emails` that are refused sign-in now, from every address or from
        some, each with until when: {email as given: Lockout}; the others are left out.
        Read-only. Raises NotImplementedError for a storage that cannot list its keys."""
        wanted = {_account_key(e): e for e in emails}
        ends: dict[str, list[float]] = {}
        everywhere: set[str] = set()
        addresses: dict[str, list[str]] = {}
        for key, identifier, parsed in self._stored():
            email, pair = wanted.get(f"account:{parsed['account']}"), parsed["pair"]
            item = self.pair if pair is not None else self.spread
            if email is None or key != item.key_for(NAMESPACE, identifier) or (
                    self._windows.test(item, NAMESPACE, identifier)):
                continue  # another account's, an address's, an old window's, or not full
            ends.setdefault(email, []).append(
                self._windows.get_window_stats(item, NAMESPACE, identifier).reset_time)
            if pair is None:
                everywhere.add(email)
            else:
                addresses.setdefault(email, []).append(pair)
        return {email: Lockout(datetime.fromtimestamp(max(times), UTC), email in everywhere,
                               tuple(sorted(addresses.get(email, []))))
                for email, times in ends.items()}

    def clear_account(self, email: str) -> int:
        """Forget every failed sign-in of the account `email`: its count over all addresses
        and its count at each address, so it may sign in at once from anywhere (an address
        refused over all its accounts stays refused: `clear_address`). Returns how many
        failures the account had in its window (0: nothing was counted). Safe to repeat (the
        second call returns 0). Raises NotImplementedError for a storage that cannot list
        its keys."""
        account = _account_key(email)
        failures = self._failures(self.spread, account)
        for key, _, parsed in self._stored():
            if f"account:{parsed['account']}" == account:
                self.storage.clear(key)
        return failures

    def clear_address(self, address: str) -> int:
        """Forget every failed sign-in from `address` (as the sign-in saw it): its count over
        all accounts and each account's count there, so any account may sign in from it at
        once (an account refused over all addresses stays refused: `clear_account`). Returns
        how many failures came from it in its window (0: none). Safe to repeat. Raises
        NotImplementedError for a storage that cannot list its keys."""
        failures = self._failures(self.spread, "address:" + address)
        for key, _, parsed in self._stored():
            if address in (parsed["pair"], parsed["address"]):
                self.storage.clear(key)
        return failures

    def close(self) -> None:
        """Release the storage's connections (Redis)."""
        close = getattr(self.storage, "close", None)
        if callable(close):
            close()
