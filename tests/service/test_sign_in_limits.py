"""Failed sign-ins: 10 per account and per address in 15 minutes, in memory or Redis."""

from __future__ import annotations

import pytest

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded
from renamerd.service.sign_in_limits import SignInThrottle


def _exhaust(throttle: SignInThrottle, email: str, address: str, n: int = 10) -> None:
    for _ in range(n):
        throttle.check(email, address)
        throttle.failed(email, address)


def test_ten_failures_per_account_then_refused_with_the_time_to_wait() -> None:
    throttle = SignInThrottle(LimitsSettings(), WebSettings())
    _exhaust(throttle, "ada@example.org", "10.0.0.1")
    with pytest.raises(LimitExceeded) as refused:
        throttle.check("ADA@example.org", "10.0.0.99")  # the account, from anywhere
    assert 14 * 60 < refused.value.retry_after <= 15 * 60
    throttle.check("bob@example.org", "10.0.0.99")  # others are not affected


def test_ten_failures_from_one_address_refuse_every_account_there() -> None:
    throttle = SignInThrottle(LimitsSettings(), WebSettings(sign_in_attempts=3))
    for i in range(3):
        throttle.failed(f"user{i}@example.org", "10.0.0.1")
    with pytest.raises(LimitExceeded):
        throttle.check("someone@example.org", "10.0.0.1")
    throttle.check("someone@example.org", "10.0.0.2")


@pytest.mark.redis
def test_the_count_is_shared_through_redis(redis_url: str) -> None:
    settings = LimitsSettings(storage_url=redis_url)
    one, two = SignInThrottle(settings, WebSettings()), SignInThrottle(settings, WebSettings())
    _exhaust(one, "ada@example.org", "10.0.0.1", 5)
    _exhaust(two, "ada@example.org", "10.0.0.2", 5)
    with pytest.raises(LimitExceeded):
        one.check("ada@example.org", "10.0.0.3")
    one.close()
    two.close()
