"""A rename request's credit: reserved when the account's turn at the engine comes, so a
request waiting behind the account's others holds none that the sweep of killed processes'
reservations could refund (one of two waiting requests went free that way). On SQLite and
PostgreSQL (the `db` fixture)."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import anyio
import pytest

from renamerd.config import LimitsSettings, Settings
from renamerd.engine.types import RenameOptions, RenameResult
from renamerd.runtime.rename_requests import RenameRequests
from renamerd.service.accounts import Accounts
from renamerd.service.credits import InsufficientCredits
from renamerd.service.limits import RateLimiter
from renamerd.service.stale_reservations import refund_stale
from renamerd.storage.database import Database
from renamerd.storage.models import utcnow


def _requests(db: Database, grant: int, engine: Any) -> tuple[RenameRequests, Accounts, str]:
    accounts = Accounts(db, Settings(database={"url": db.url}, credits={"signup_grant": grant}))
    user = accounts.create_user("queue@example.org", "Queue").id
    limiter = RateLimiter(LimitsSettings(concurrent_per_account=8, daily_per_account=100))
    return RenameRequests(accounts.credits, limiter, engine, None, threads=1), accounts, user


def _result() -> RenameResult:
    return RenameResult("a.pdf", "2024-03-01_ACME_invoice.pdf", {"document_type": "invoice"},
                        "", "root", "auto", 0.9)


def test_a_request_waiting_its_turn_holds_no_credit_the_sweep_could_refund(
        db: Database) -> None:
    release = threading.Event()

    def engine(data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
        release.wait(10)  # the first request runs until the test lets it go
        return _result()

    requests, accounts, user = _requests(db, 5, engine)
    credits = accounts.credits

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            for ref in ("req:first", "req:second"):
                tasks.start_soon(requests.rename, user, ref, b"%PDF", "a.pdf", RenameOptions())
                await anyio.sleep(0.2)
            # the first runs, the second waits its turn (one engine thread): one credit taken
            assert credits.balance(user) == 4
            assert credits.charge_state(user, "req:second") is None
            # a sweep as if every reservation were a killed process's finds only the first
            assert [ref for _, ref in refund_stale(db, utcnow() + timedelta(seconds=1))] == [
                "req:first"]
            release.set()

    anyio.run(main)
    # the swept one was refunded (as a killed process's would be); the second one paid
    assert credits.charge_state(user, "req:second") == "charged"
    assert credits.balance(user) == 4


def test_no_credit_left_is_refused_on_arrival_and_a_paid_request_may_repeat(
        db: Database) -> None:
    requests, accounts, user = _requests(db, 1, lambda *args: _result())
    anyio.run(requests.rename, user, "req:paid", b"%PDF", "a.pdf", RenameOptions())
    assert accounts.credits.balance(user) == 0
    with pytest.raises(InsufficientCredits):
        anyio.run(requests.rename, user, "req:other", b"%PDF", "a.pdf", RenameOptions())
    # the same request again (an idempotent retry) is served and not charged twice
    anyio.run(requests.rename, user, "req:paid", b"%PDF", "a.pdf", RenameOptions())
    assert accounts.credits.balance(user) == 0
