"""Credits left `reserved` by a killed process: refunded once they are older than the cut-off,
exactly once even with two sweepers at the same moment; daemon jobs' and fresh reservations
are left alone. On SQLite and PostgreSQL (the `db` fixture)."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlmodel import col, select

from renamerd.config import Settings
from renamerd.runtime.reservation_sweep import StaleReservations
from renamerd.service.accounts import Accounts
from renamerd.service.stale_reservations import refund_stale
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, CreditLedger, utcnow


def setup(db: Database) -> tuple[Accounts, str]:
    accounts = Accounts(db, Settings(database={"url": db.url}, credits={"signup_grant": 10}))
    user = accounts.create_user("killed@example.org", "Killed")
    return accounts, user.id


def age(db: Database, ref: str, seconds: float) -> None:
    """Make the charge for `ref` look `seconds` old (as if its process died that long ago)."""
    with db.write_session() as s:
        charge = s.exec(select(CreditCharge).where(CreditCharge.ref == ref)).one()
        charge.updated_at = utcnow() - timedelta(seconds=seconds)
        s.add(charge)


def test_old_api_reservations_are_refunded_and_nothing_else(db: Database) -> None:
    accounts, user = setup(db)
    credits = accounts.credits
    for ref in ("req:old", "idem:old", "req:fresh", "job:7", "req:charged"):
        credits.reserve(user, ref)
    credits.commit(user, "req:charged")
    for ref in ("req:old", "idem:old", "job:7", "req:charged"):
        age(db, ref, 600)
    assert credits.balance(user) == 5

    refunded = refund_stale(db, utcnow() - timedelta(seconds=300))
    assert sorted(ref for _, ref in refunded) == ["idem:old", "req:old"]
    assert credits.balance(user) == 7
    assert credits.charge_state(user, "req:fresh") == "reserved"  # a live request
    assert credits.charge_state(user, "job:7") == "reserved"  # the job's recovery settles it
    assert credits.charge_state(user, "req:charged") == "charged"
    assert refund_stale(db, utcnow() - timedelta(seconds=300)) == []  # once
    assert credits.balance(user) == 7
    with db.session() as s:
        refunds = s.exec(select(CreditLedger).where(
            col(CreditLedger.kind) == "refund", CreditLedger.user_id == user)).all()
        assert sorted(r.ref for r in refunds) == ["idem:old", "req:old"]


def test_two_sweepers_at_once_refund_each_reservation_once(db: Database) -> None:
    accounts, user = setup(db)
    refs = [f"req:{i}" for i in range(8)]
    for ref in refs:
        accounts.credits.reserve(user, ref)
        age(db, ref, 600)
    assert accounts.credits.balance(user) == 2
    results: list[list[tuple[str, str]]] = []
    barrier = threading.Barrier(4)

    def sweep() -> None:
        barrier.wait()
        results.append(refund_stale(db, utcnow() - timedelta(seconds=300)))

    threads = [threading.Thread(target=sweep) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    done = [ref for result in results for _, ref in result]
    assert sorted(done) == sorted(refs)  # each by exactly one sweeper
    assert accounts.credits.balance(user) == 10


def test_the_sweeper_waits_for_the_grace_plus_the_engine_deadline(db: Database) -> None:
    settings = Settings(database={"url": db.url}, credits={"reservation_grace_s": 60},
                        engine={"deadline_seconds": 30})
    accounts, user = setup(db)
    accounts.credits.reserve(user, "req:a")
    accounts.credits.reserve(user, "req:b")
    age(db, "req:a", 80)  # younger than 60 + 30
    age(db, "req:b", 100)
    assert StaleReservations(db, settings).sweep() == 1
    assert accounts.credits.charge_state(user, "req:a") == "reserved"
    assert accounts.credits.charge_state(user, "req:b") == "refunded"
