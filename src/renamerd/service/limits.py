"""Per-account rate limits: burst per minute, renames per rolling window, concurrent requests.

* **Burst** (`limits.burst_per_minute`): every authenticated request counts, in a moving
  window of 60 s. Unauthenticated requests (no or bad credentials) count against the same
  limit keyed by the client address, so guessing tokens is throttled too.
* **Daily** (`limits.daily_per_account` over `limits.daily_window_hours`, rolling): every
  rename request counts.
* **Concurrency** (`limits.concurrent_per_account`): a rename holds a slot while it runs. A slot
  carries an expiry (`limits.concurrency_slot_ttl_s`): if the process holding it dies, the slot
  frees itself when the expiry passes; nothing has to clean up.

The windows use the `limits` library (moving windows: exact rolling counts) on in-process
memory, or on Redis when `limits.storage_url` is set so that several processes share them. The
concurrency slots live in the same place: a dict here, a Redis sorted set (member = slot id,
score = expiry) changed by one Lua script there.

Every method is thread-safe. `Quota` is what goes into the `X-RateLimit-*` headers.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from renamerd.config import LimitsSettings

#: seconds a client is told to wait when all its concurrency slots are taken
CONCURRENCY_RETRY_AFTER_S = 1


@dataclass(frozen=True)
class Quota:
    """One window's state: the `X-RateLimit-*` header values."""

    limit: int
    remaining: int
    reset_ms: int  # Unix time in milliseconds when the window (its oldest hit) frees up

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.remaining)),
            "X-RateLimit-Reset": str(self.reset_ms),
        }

    @staticmethod
    def tightest(*quotas: Quota) -> Quota:
        """The quota with the fewest requests left (ties: the later reset)."""
        return min(quotas, key=lambda q: (q.remaining, -q.reset_ms))


class LimitExceeded(Exception):
    """A limit is reached: answer 429 with `retry_after` seconds and `quota` in the headers."""

    def __init__(self, message: str, quota: Quota, retry_after: int) -> None:
        super().__init__(message)
        self.quota = quota
        self.retry_after = max(1, retry_after)


class Slot:
    """A held concurrency slot. `release()` is idempotent."""

    def __init__(self, release: Callable[[], None]) -> None:
        self._release = release
        self._done = False

    def release(self) -> None:
        if not self._done:
            self._done = True
            self._release()

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *_: Any) -> None:
        self.release()


_ACQUIRE_SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
"""


def open_storage(settings: LimitsSettings) -> Storage:
    """The `limits` storage of `limits.storage_url`: Redis (shared by processes) or this
    process's memory when it is empty."""
    if settings.storage_url:
        return storage_from_string(settings.storage_url)  # type: ignore[return-value]
    return MemoryStorage()


class RateLimiter:
    """The three per-account limits on one storage. Build one per app (or per process)."""

    def __init__(self, settings: LimitsSettings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.storage: Storage = open_storage(settings)
        self._redis: Any = None
        if settings.storage_url:
            import redis

            self._redis = redis.Redis.from_url(settings.storage_url)
            self._acquire_script = self._redis.register_script(_ACQUIRE_SLOT)
        self._windows = MovingWindowRateLimiter(self.storage)
        self.burst: RateLimitItem = RateLimitItemPerMinute(settings.burst_per_minute)
        self.daily: RateLimitItem = RateLimitItemPerHour(
            settings.daily_per_account, settings.daily_window_hours
        )
        self._slots: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def reconfigure(self, settings: LimitsSettings) -> None:
        """New limit values (a config reload); the counts so far are kept. The storage
        (storage_url) is not changed: that needs a restart."""
        self.settings = settings
        self.burst = RateLimitItemPerMinute(settings.burst_per_minute)
        self.daily = RateLimitItemPerHour(settings.daily_per_account, settings.daily_window_hours)

    @property
    def in_process(self) -> bool:
        """Whether the windows and slots live in this process's memory (no storage_url): its
        calls then never block on I/O and may run on the event loop."""
        return self._redis is None

    # -- windows ---------------------------------------------------------------------------

    def _quota(self, item: RateLimitItem, key: str) -> Quota:
        stats = self._windows.get_window_stats(item, "renamerd", key)
        reset = stats.reset_time if stats.reset_time > 0 else self.clock() + item.get_expiry()
        return Quota(item.amount, stats.remaining, int(math.ceil(reset * 1000)))

    def _hit(self, item: RateLimitItem, key: str, what: str) -> Quota:
        ok = self._windows.hit(item, "renamerd", key)
        quota = self._quota(item, key)
        if not ok:
            wait = math.ceil(quota.reset_ms / 1000 - self.clock() - 0.01)
            raise LimitExceeded(what, quota, wait)
        return quota

    def hit_request(self, account: str) -> Quota:
        """Count one request of `account` in the burst window.

        Returns the window's quota; raises LimitExceeded (nothing counted) when it is full.
        Not safe to repeat: each call counts one request.
        """
        return self._hit(
            self.burst, "burst:" + account,
            f"rate limit exceeded: at most {self.burst.amount} requests per minute",
        )

    def hit_anonymous(self, client: str) -> Quota:
        """Count an unauthenticated request from `client` (an address) in the burst window."""
        return self.hit_request("anon:" + client)

    def hit_rename(self, account: str) -> Quota:
        """Count one rename of `account` in the rolling daily window; LimitExceeded when full."""
        return self._hit(
            self.daily, "daily:" + account,
            f"daily limit exceeded: at most {self.daily.amount} renames per "
            f"{self.settings.daily_window_hours} h",
        )

    def burst_quota(self, account: str) -> Quota:
        """The burst window of `account` without counting anything."""
        return self._quota(self.burst, "burst:" + account)

    def daily_quota(self, account: str) -> Quota:
        return self._quota(self.daily, "daily:" + account)

    # -- concurrency -----------------------------------------------------------------------

    def acquire_slot(self, account: str) -> Slot:
        """Take one of the account's concurrency slots until `release()` or the slot TTL.

        Raises LimitExceeded when all `concurrent_per_account` slots are held.
        """
        limit = self.settings.concurrent_per_account
        ttl = self.settings.concurrency_slot_ttl_s
        slot_id = secrets.token_hex(8)
        now = self.clock()
        if self._redis is not None:
            key = f"renamerd:slots:{account}"
            got = self._acquire_script(keys=[key], args=[now, limit, now + ttl, slot_id, ttl + 60])
            if not got:
                raise self._slots_full(limit)
            return Slot(lambda: self._redis.zrem(key, slot_id))
        with self._lock:
            held = self._slots.setdefault(account, {})
            for sid, expiry in list(held.items()):
                if expiry <= now:
                    del held[sid]
            if len(held) >= limit:
                raise self._slots_full(limit)
            held[slot_id] = now + ttl

        def release() -> None:
            with self._lock:
                self._slots.get(account, {}).pop(slot_id, None)

        return Slot(release)

    def slots_in_use(self, account: str) -> int:
        """Slots of `account` held now (expired ones not counted)."""
        now = self.clock()
        if self._redis is not None:
            return int(self._redis.zcount(f"renamerd:slots:{account}", f"({now}", "+inf"))
        with self._lock:
            return sum(1 for e in self._slots.get(account, {}).values() if e > now)

    def _slots_full(self, limit: int) -> LimitExceeded:
        reset = int((self.clock() + CONCURRENCY_RETRY_AFTER_S) * 1000)
        return LimitExceeded(
            f"too many concurrent requests: at most {limit} at a time",
            Quota(limit, 0, reset), CONCURRENCY_RETRY_AFTER_S,
        )

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
