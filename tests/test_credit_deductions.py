"""`deductions.deduct`: refunds of purchases take credits back, first-to-expire first, never below
zero, each take in the ledger as kind "deduct"."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits, CreditsError, InsufficientCredits
from renamerd.service.deductions import deduct
from renamerd.storage.database import Database
from renamerd.storage.models import CreditLedger


def _user(db: Database) -> str:
    return Accounts(db, Settings(credits={"signup_grant": 0})).create_user("ada@example.org").id


def test_deduct_takes_from_the_lot_that_expires_first_and_ledgers_it(db: Database) -> None:
    user = _user(db)
    credits = Credits(db)
    late = credits.grant(user, 10, valid_days=300, source="purchase")
    soon = credits.grant(user, 4, valid_days=20)
    assert deduct(credits, user, 6, reason="refund of order 42") == 8
    remaining = {lot.id: lot.remaining for lot in credits.lots(user)}
    assert remaining == {soon.id: 0, late.id: 8}
    with db.session() as s:
        taken = s.exec(select(CreditLedger).where(CreditLedger.kind == "deduct")
                       .order_by(CreditLedger.id)).all()
    assert [(e.lot_id, e.delta, e.reason) for e in taken] == [
        (soon.id, -4, "refund of order 42"), (late.id, -2, "refund of order 42")]


def test_deduct_refuses_more_than_the_balance_and_takes_nothing(db: Database) -> None:
    user = _user(db)
    credits = Credits(db)
    credits.grant(user, 3)
    with pytest.raises(InsufficientCredits, match="balance is 3"):
        deduct(credits, user, 4, reason="refund")
    assert credits.balance(user) == 3
    with pytest.raises(CreditsError):
        deduct(credits, user, 0, reason="refund")
    with pytest.raises(CreditsError, match="reason"):
        deduct(credits, user, 1, reason=" ")
    assert deduct(credits, user, 3, reason="refund") == 0


def test_concurrent_deductions_never_go_below_zero(db: Database) -> None:
    user = _user(db)
    credits = Credits(db)
    credits.grant(user, 10)
    outcomes: list[str] = []
    lock = threading.Lock()

    def take() -> None:
        try:
            deduct(credits, user, 3, reason="refund")
            result = "ok"
        except InsufficientCredits:
            result = "refused"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=take) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] * 3 + ["refused"] * 3
    assert credits.balance(user) == 1
