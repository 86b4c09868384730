"""Failed sign-ins in 15 minutes: 10 per account and address, 50 per address, 50 per account;
in memory or Redis. An admin sees which accounts are locked out and until when, and lifts a
lock (an account's, an address's) at once, in memory and through Redis."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from renamerd.config import LimitsSettings, WebSettings
from renamerd.service.limits import LimitExceeded
from renamerd.service.sign_in_limits import SPREAD, SignInThrottle

PAIR_WINDOW = 15 * 60


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


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def limits_settings(request: pytest.FixtureRequest) -> LimitsSettings:
    """The in-process storage, and a Redis (flushed) shared by every throttle on it."""
    if request.param == "memory":
        return LimitsSettings()
    return LimitsSettings(storage_url=request.getfixturevalue("redis_url"))


@pytest.fixture
def throttle(limits_settings: LimitsSettings) -> Iterator[SignInThrottle]:
    made = SignInThrottle(limits_settings, WebSettings(sign_in_attempts=2))
    yield made
    made.close()


def test_lockouts_say_which_accounts_are_refused_where_and_until_when(
        throttle: SignInThrottle) -> None:
    before = time.time()
    _exhaust(throttle, "ada@example.org", "203.0.113.7", 2)
    _exhaust(throttle, "ada@example.org", "2001:db8::1", 2)
    throttle.failed("bob@example.org", "203.0.113.7")  # one typo: not locked
    for i in range(SPREAD * 2):  # carol guessed from everywhere
        throttle.failed("carol@example.org", f"198.51.100.{i}")
    found = throttle.lockouts(["ADA@example.org", "bob@example.org", "carol@example.org",
                               "dan@example.org"])
    assert set(found) == {"ADA@example.org", "carol@example.org"}
    ada, carol = found["ADA@example.org"], found["carol@example.org"]
    assert not ada.everywhere and ada.addresses == ("2001:db8::1", "203.0.113.7")
    assert carol.everywhere and carol.addresses == ()
    for lock in (ada, carol):
        assert before + PAIR_WINDOW - 1 <= lock.until.timestamp() <= time.time() + PAIR_WINDOW


def test_clear_account_forgets_its_failures_everywhere_and_no_one_elses(
        throttle: SignInThrottle) -> None:
    for i in range(SPREAD * 2):
        throttle.failed("ada@example.org", f"198.51.100.{i % 3}")
    throttle.failed("bob@example.org", "198.51.100.0")
    with pytest.raises(LimitExceeded):
        throttle.check("ada@example.org", "203.0.113.50")
    assert throttle.clear_account("Ada@Example.org ") == SPREAD * 2
    for i in range(3):
        throttle.check("ada@example.org", f"198.51.100.{i}")
    assert throttle.lockouts(["ada@example.org"]) == {}
    assert throttle.clear_account("ada@example.org") == 0  # safe to repeat
    # bob's failure and the addresses' counts over all accounts stay
    assert throttle.clear_account("bob@example.org") == 1
    assert throttle.clear_address("198.51.100.0") == 4 + 1


def test_clear_address_lets_every_account_sign_in_from_it_again(
        throttle: SignInThrottle) -> None:
    for i in range(SPREAD * 2):
        throttle.failed(f"user{i}@example.org", "203.0.113.7")
    _exhaust(throttle, "ada@example.org", "203.0.113.70", 2)  # another address: stays locked
    with pytest.raises(LimitExceeded):
        throttle.check("someone@example.org", "203.0.113.7")
    assert throttle.clear_address("203.0.113.7") == SPREAD * 2
    throttle.check("someone@example.org", "203.0.113.7")
    throttle.check("user0@example.org", "203.0.113.7")
    assert throttle.clear_address("203.0.113.7") == 0
    with pytest.raises(LimitExceeded):
        throttle.check("ada@example.org", "203.0.113.70")


@pytest.mark.redis
def test_a_lock_lifted_in_one_process_is_lifted_in_all(redis_url: str) -> None:
    settings = LimitsSettings(storage_url=redis_url)
    web, cli = SignInThrottle(settings, WebSettings()), SignInThrottle(settings, WebSettings())
    _exhaust(web, "ada@example.org", "10.0.0.1")
    assert not cli.in_process
    assert set(cli.lockouts(["ada@example.org"])) == {"ada@example.org"}
    assert cli.clear_account("ada@example.org") == 10
    web.check("ada@example.org", "10.0.0.1")
    web.close()
    cli.close()


def test_a_count_of_an_older_window_size_is_cleared_but_locks_nobody() -> None:
    """After a reload changed web.sign_in_attempts, the old counts are other keys: clearing
    takes them too, the lockouts ignore them."""
    web = WebSettings(sign_in_attempts=2)
    throttle = SignInThrottle(LimitsSettings(), web)
    _exhaust(throttle, "ada@example.org", "10.0.0.1", 2)
    web.sign_in_attempts = 3
    assert throttle.lockouts(["ada@example.org"]) == {}
    throttle.clear_account("ada@example.org")
    web.sign_in_attempts = 2
    throttle.check("ada@example.org", "10.0.0.1")
