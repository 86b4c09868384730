"""Taking credits back (the refund of a purchase): from the lots that expire first, never below
zero, every take in the ledger as kind "deduct"."""

from __future__ import annotations

from sqlmodel import Session, col, select

from renamerd.service.credits import (
    MAX_GRANT,
    Credits,
    CreditsError,
    InsufficientCredits,
    _lock_user_row,
)
from renamerd.storage.models import CreditLedger, CreditLot


def deduct(credits: Credits, user_id: str, amount: int, *, reason: str,
           session: Session | None = None) -> int:
    """Take `amount` credits from the user, from the lots that expire first, each take ledgered
    as kind "deduct" with `reason`. Returns the balance left.

    Never below zero: raises InsufficientCredits (taking nothing) when the balance is smaller;
    CreditsError for a non-positive amount or an empty reason; UnknownUser. Not idempotent:
    each call deducts again. Serialised with every other change of the user's credits."""
    if not 0 < amount <= MAX_GRANT:
        raise CreditsError(f"amount must be between 1 and {MAX_GRANT:,} credits")
    if not reason.strip():
        raise CreditsError("a deduction needs a reason (it is kept in the ledger)")
    if session is None:
        with credits.db.write_session() as s:
            return deduct(credits, user_id, amount, reason=reason, session=s)
    session.flush()
    _lock_user_row(session.connection(), credits.db.is_postgres, user_id)
    now = credits.now()
    lots = list(session.exec(
        select(CreditLot).where(CreditLot.user_id == user_id, CreditLot.remaining > 0,
                                CreditLot.expires_at > now)
        .order_by(col(CreditLot.expires_at), col(CreditLot.id))
        .execution_options(populate_existing=True)))
    balance = sum(lot.remaining for lot in lots)
    if balance < amount:
        raise InsufficientCredits(
            f"cannot deduct {amount} credits: the balance is {balance} (never below zero)")
    need = amount
    for lot in lots:
        take = min(need, lot.remaining)
        if take == 0:
            break
        lot.remaining -= take
        need -= take
        session.add(lot)
        session.add(CreditLedger(user_id=user_id, lot_id=lot.id, delta=-take, kind="deduct",
                                 reason=reason.strip(), created_at=now))
    return balance - amount
