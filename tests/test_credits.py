from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlmodel import select

from renamerd.config import CreditsSettings, Settings
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits, InsufficientCredits, register_grant_hook
from renamerd.storage.database import Database
from renamerd.storage.models import CreditLedger, CreditLot, utcnow


class Clock:
    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self):
        return self.now


def make_user(db: Database, email: str = "ada@example.org", signup: int = 0) -> str:
    settings = Settings(credits={"signup_grant": signup})
    return Accounts(db, settings).create_user(email).id


def test_signup_grant_is_50_valid_a_year(db: Database) -> None:
    user = Accounts(db).create_user("new@example.org")
    credits = Credits(db)
    assert credits.balance(user.id) == 50
    (lot,) = credits.lots(user.id)
    assert lot.source == "signup"
    assert timedelta(days=364) < lot.expires_at - lot.granted_at <= timedelta(days=365)


def test_consumes_the_lot_that_expires_first(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db)
    late = credits.grant(user, 3, valid_days=100)
    soon = credits.grant(user, 2, valid_days=10)
    credits.reserve(user, "a")
    credits.reserve(user, "b")
    credits.reserve(user, "c")
    lots = {lot.id: lot.remaining for lot in credits.lots(user)}
    assert lots[soon.id] == 0
    assert lots[late.id] == 2
    assert credits.balance(user) == 2


def test_expired_lots_do_not_count_and_cannot_be_spent(db: Database) -> None:
    user = make_user(db)
    clock = Clock()
    credits = Credits(db, now=clock)
    credits.grant(user, 5, valid_days=1)
    assert credits.balance(user) == 5
    clock.now += timedelta(days=1, seconds=1)
    assert credits.balance(user) == 0
    with pytest.raises(InsufficientCredits):
        credits.reserve(user, "late")
    credits.grant(user, 1, valid_days=30)
    credits.reserve(user, "late")
    assert credits.balance(user) == 0


def test_reserve_is_idempotent_per_ref_and_refund_gives_back(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db)
    credits.grant(user, 2)
    first = credits.reserve(user, "job-1")
    again = credits.reserve(user, "job-1")
    assert first.state == again.state == "reserved"
    assert credits.balance(user) == 1
    assert credits.commit(user, "job-1").state == "charged"
    assert credits.reserve(user, "job-1").state == "charged"
    assert credits.balance(user) == 1
    credits.reserve(user, "job-2")
    assert credits.balance(user) == 0
    assert credits.refund(user, "job-2").state == "refunded"
    assert credits.refund(user, "job-2").state == "refunded"
    assert credits.balance(user) == 1
    assert credits.refund(user, "never") is None
    kinds = [e.kind for e in reversed(credits.ledger(user))]
    assert kinds == ["grant", "consume", "consume", "refund"]
    assert sum(e.delta for e in credits.ledger(user)) == credits.balance(user)


def test_refunded_ref_can_be_charged_again(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db)
    credits.grant(user, 1)
    credits.reserve(user, "r")
    credits.refund(user, "r")
    assert credits.reserve(user, "r").state == "reserved"
    assert credits.balance(user) == 0


def test_disabled_credits_meter_nothing(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db, CreditsSettings(enabled=False))
    assert credits.reserve(user, "x").state == "unmetered"
    assert credits.commit(user, "x").state == "unmetered"
    assert credits.balance(user) == 0  # no lots, yet nothing refused


def test_grant_hooks_run_inside_the_grant(db: Database) -> None:
    seen: list[tuple[str, int]] = []

    def hook(session, user_id, now) -> None:
        lots = session.exec(select(CreditLot).where(CreditLot.user_id == user_id)).all()
        seen.append((user_id, sum(lot.remaining for lot in lots)))

    register_grant_hook(hook)
    user = make_user(db)
    Credits(db).grant(user, 7)
    assert (user, 7) in seen


def test_no_overdraft_under_concurrency(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db)
    credits.grant(user, 30, valid_days=5)
    credits.grant(user, 10, valid_days=50)  # a second lot: consumption crosses lots
    won: list[str] = []
    lost: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(16)

    def spend(n: int) -> None:
        start.wait()
        for i in range(6):
            try:
                credits.reserve(user, f"t{n}-{i}")
                with lock:
                    won.append(f"t{n}-{i}")
            except InsufficientCredits:
                with lock:
                    lost.append(f"t{n}-{i}")
            except BaseException as err:  # pragma: no cover - shown by the assert
                errors.append(err)

    threads = [threading.Thread(target=spend, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert len(won) == 40
    assert len(lost) == 16 * 6 - 40
    assert credits.balance(user) == 0
    assert all(lot.remaining >= 0 for lot in credits.lots(user))
    with db.session() as s:
        consumed = s.exec(select(CreditLedger).where(CreditLedger.kind == "consume")).all()
    assert sum(-e.delta for e in consumed) == 40


def test_reserve_many_takes_one_each_across_lots_and_refuses_the_rest(db: Database) -> None:
    user = make_user(db)
    credits = Credits(db)
    late = credits.grant(user, 2, valid_days=100)
    soon = credits.grant(user, 1, valid_days=10)
    credits.reserve(user, "a")  # from the lot that expires first
    credits.refund(user, "a")
    with db.write_session() as s:
        refused = credits.reserve_many(user, ["a", "b", "c", "d", "e"], session=s)
    assert refused == ["d", "e"]  # a (again), b, c: the three credits there were
    lots = {lot.id: lot.remaining for lot in credits.lots(user)}
    assert lots == {soon.id: 0, late.id: 0}
    assert [credits.charge_state(user, r) for r in "abcde"] == [
        "reserved", "reserved", "reserved", None, None]
    with db.write_session() as s:  # idempotent: reserved refs take nothing more
        assert credits.reserve_many(user, ["a", "b", "c"], session=s) == []
    with db.write_session() as s:
        credits.commit_many(user, ["a", "b", "d"], session=s)
    assert [credits.charge_state(user, r) for r in "abcd"] == [
        "charged", "charged", "reserved", None]
    credits.refund(user, "c")
    assert credits.balance(user) == 1
    with db.session() as s:
        consumed = s.exec(select(CreditLedger).where(CreditLedger.kind == "consume")).all()
    assert sorted(e.ref for e in consumed) == ["a", "a", "b", "c"]


@pytest.mark.parametrize(("amount", "days"), [
    (10**30, None), (2**63, None), (5, 10**12), (5, 36_501), (0, None), (-3, None), (5, 0),
])
def test_a_grant_past_what_a_database_or_a_date_holds_is_refused_in_words(
        db: Database, amount: int, days: int | None) -> None:
    from renamerd.service.credits import CreditsError

    user = make_user(db, "huge@example.org")
    credits = Credits(db)
    with pytest.raises(CreditsError, match="between 1 and"):
        credits.grant(user, amount, valid_days=days)
    assert credits.balance(user) == 0
    credits.grant(user, 1_000_000_000, valid_days=36_500)
    assert credits.balance(user) == 1_000_000_000
