"""Failed sign-ins in 15 minutes: 10 per account and address, 50 per address, 50 per account;
in memory or Redis."""

from __future__ import annotations

import pytest

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded
from renamerd.service.sign_in_limits import SPREAD, SignInThrottle


def _exhaust(throttle: SignInThrottle, email: str, address: str, n: int = 10) -> None:
    for _ in range(n):
        throttle.check(email, address)
        throttle.failed(email, address)


def test_ten_failures_of_an_account_at_an_address_refuse_it_there_with_the_time_to_wait(
        ) -> None:
    throttle = SignInThrottle(LimitsSettings(), WebSettings())
    _exhaust(throttle, "ada@example.org", "10.0.0.1")
    with pytest.raises(LimitExceeded) as refused:
        throttle.check("ADA@example.org", "10.0.0.1")
    assert 14 * 60 < refused.value.retry_after <= 15 * 60
    # a user's typos lock nobody else out behind the same address, nor the user elsewhere
    throttle.check("bob@example.org", "10.0.0.1")
    throttle.check("ada@example.org", "10.0.0.99")


def test_an_address_guessing_many_accounts_is_refused_for_all_of_them() -> None:
    throttle = SignInThrottle(LimitsSettings(), WebSettings(sign_in_attempts=3))
    for i in range(SPREAD * 3):
        throttle.failed(f"user{i}@example.org", "10.0.0.1")
    with pytest.raises(LimitExceeded):
        throttle.check("someone@example.org", "10.0.0.1")
    throttle.check("someone@example.org", "10.0.0.2")


def test_an_account_guessed_from_many_addresses_is_refused_everywhere() -> None:
    throttle = SignInThrottle(LimitsSettings(), WebSettings(sign_in_attempts=3))
    for i in range(SPREAD * 3):
        throttle.failed("ada@example.org", f"10.0.1.{i}")
    with pytest.raises(LimitExceeded):
        throttle.check("ada@example.org", "10.0.2.1")
    throttle.check("bob@example.org", "10.0.2.1")


@pytest.mark.redis
def test_the_count_is_shared_through_redis(redis_url: str) -> None:
    settings = LimitsSettings(storage_url=redis_url)
    one, two = SignInThrottle(settings, WebSettings()), SignInThrottle(settings, WebSettings())
    _exhaust(one, "ada@example.org", "10.0.0.1", 5)
    _exhaust(two, "ada@example.org", "10.0.0.1", 5)
    with pytest.raises(LimitExceeded):
        one.check("ada@example.org", "10.0.0.1")
    one.close()
    two.close()
