"""Rate limits on memory and on Redis: burst, rolling daily window, concurrency slots that expire."""

from __future__ import annotations

import time

import pytest

from renamerd.config import LimitsSettings
from renamerd.service.limits import LimitExceeded, Quota, RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def storage_url(request: pytest.FixtureRequest) -> str:
    return "" if request.param == "memory" else request.getfixturevalue("redis_url")


def limiter(storage_url: str, clock: Clock | None = None, **values: int) -> RateLimiter:
    settings = LimitsSettings(storage_url=storage_url, **values)
    return RateLimiter(settings, clock=clock or time.time)


def test_burst_window(storage_url: str) -> None:
    lim = limiter(storage_url, burst_per_minute=3)
    remaining = [lim.hit_request("u1").remaining for _ in range(3)]
    assert remaining == [2, 1, 0]
    with pytest.raises(LimitExceeded) as info:
        lim.hit_request("u1")
    assert 1 <= info.value.retry_after <= 60
    assert info.value.quota.remaining == 0 and info.value.quota.limit == 3
    assert lim.hit_request("u2").remaining == 2  # per account
    assert lim.burst_quota("u1").remaining == 0  # peeking counts nothing


def test_daily_window_is_separate_and_rolling(storage_url: str) -> None:
    lim = limiter(storage_url, daily_per_account=2, daily_window_hours=24)
    lim.hit_rename("u")
    q = lim.hit_rename("u")
    assert q.limit == 2 and q.remaining == 0
    # the reset is when the oldest rename leaves the 24 h window
    assert 23.9 * 3600 < q.reset_ms / 1000 - time.time() <= 24 * 3600 + 1
    with pytest.raises(LimitExceeded) as info:
        lim.hit_rename("u")
    assert info.value.retry_after > 23 * 3600
    assert lim.hit_request("u").remaining == 199


def test_concurrency_slots(storage_url: str) -> None:
    lim = limiter(storage_url, concurrent_per_account=2)
    a = lim.acquire_slot("u")
    b = lim.acquire_slot("u")
    with pytest.raises(LimitExceeded) as info:
        lim.acquire_slot("u")
    assert info.value.retry_after == 1
    assert lim.slots_in_use("u") == 2
    a.release()
    a.release()  # idempotent
    with lim.acquire_slot("u"):
        assert lim.slots_in_use("u") == 2
    b.release()
    assert lim.slots_in_use("u") == 0
    assert lim.acquire_slot("other") is not None


def test_a_slot_of_a_dead_holder_expires(storage_url: str) -> None:
    clock = Clock()
    holder = limiter(storage_url, clock, concurrent_per_account=1, concurrency_slot_ttl_s=60)
    holder.acquire_slot("u")  # never released: the process "dies"
    other = holder if not storage_url else limiter(
        storage_url, clock, concurrent_per_account=1, concurrency_slot_ttl_s=60
    )
    with pytest.raises(LimitExceeded):
        other.acquire_slot("u")
    clock.now += 61
    other.acquire_slot("u").release()


@pytest.mark.redis
def test_redis_windows_are_shared_between_processes(redis_url: str) -> None:
    one = limiter(redis_url, burst_per_minute=2)
    two = limiter(redis_url, burst_per_minute=2)
    one.hit_request("u")
    two.hit_request("u")
    with pytest.raises(LimitExceeded):
        one.hit_request("u")


def test_quota_headers_and_tightest() -> None:
    a = Quota(200, 150, 1_000)
    b = Quota(10, 3, 2_000)
    assert Quota.tightest(a, b) is b
    assert b.headers() == {"X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "3",
                           "X-RateLimit-Reset": "2000"}
