"""Credits: lots with expiry, consumed first-to-expire, never below zero, every change ledgered.

A *charge* is one consumption for one `ref` (a job id, an idempotency key, a request id):

    reserve(user, ref)  -> takes the credit now (state "reserved"); raises InsufficientCredits
    commit(user, ref)   -> "charged": the work succeeded, the credit stays spent
    refund(user, ref)   -> "refunded": the credit goes back to the lot it came from

All three are idempotent per (user, ref): a repeated `reserve` returns the existing charge and
takes nothing more, so a retried request or a restarted job is never charged twice.

Concurrency: every operation on a user's credits first locks that user's row (PostgreSQL
`SELECT ... FOR UPDATE`; SQLite: the write transaction is `BEGIN IMMEDIATE`), so balances are
read and changed under one lock and cannot overdraw whatever the number of threads or processes.

A grant queues the owner's `pending_credits` jobs again (those at most
`credits.resume_max_age_days` old: `jobs.wake_pending`) in the granting transaction, then runs
any hooks registered with `register_grant_hook`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from renamerd.config import CreditsSettings
from renamerd.service.jobs.pending import wake_pending
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, CreditLedger, CreditLot, User, utcnow

SOURCES = ("signup", "grant", "purchase")

#: called as hook(session, user_id, now) inside the granting transaction, after the lot is
#: written and the owner's pending jobs are queued again
GrantHook = Callable[[Session, str, datetime], None]
_grant_hooks: list[GrantHook] = []


def register_grant_hook(hook: GrantHook) -> None:
    """Run `hook` inside every grant's transaction (after the lot is written). Idempotent."""
    if hook not in _grant_hooks:
        _grant_hooks.append(hook)


#: the most credits one grant may add, and the longest validity (a database integer and a
#: date must hold them: 100 years)
MAX_GRANT = 1_000_000_000
MAX_VALID_DAYS = 36_500


class CreditsError(Exception):
    pass


class InsufficientCredits(CreditsError):
    """The user has no unexpired credit left (API: 402; daemon: pending_credits)."""


class UnknownUser(CreditsError):
    pass


@dataclass(frozen=True)
class Charge:
    ref: str
    state: str  # reserved | charged | refunded | unmetered
    amount: int


class Credits:
    """Credit operations on one database. `now` is injectable for tests of expiry."""

    def __init__(
        self,
        db: Database,
        settings: CreditsSettings | None = None,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.settings = settings or CreditsSettings()
        self.now = now

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    # -- reading ---------------------------------------------------------------------------

    def balance(self, user_id: str, session: Session | None = None) -> int:
        """Remaining credits in unexpired lots."""
        params = {"u": user_id, "now": self.now()}
        if session is not None:
            return int(_connection(session).execute(_BALANCE, params).scalar_one())
        with self.db.engine.connect() as conn:
            return int(conn.execute(_BALANCE, params).scalar_one())

    def lots(self, user_id: str) -> list[CreditLot]:
        with self.db.session() as s:
            return list(
                s.exec(
                    select(CreditLot)
                    .where(CreditLot.user_id == user_id)
                    .order_by(col(CreditLot.expires_at), col(CreditLot.id))
                )
            )

    def ledger(self, user_id: str, limit: int = 100) -> list[CreditLedger]:
        with self.db.session() as s:
            return list(
                s.exec(
                    select(CreditLedger)
                    .where(CreditLedger.user_id == user_id)
                    .order_by(col(CreditLedger.id).desc())
                    .limit(limit)
                )
            )

    # -- granting --------------------------------------------------------------------------

    def grant(
        self,
        user_id: str,
        amount: int,
        *,
        source: str = "grant",
        valid_days: int | None = None,
        reason: str = "",
        session: Session | None = None,
    ) -> CreditLot:
        """Add a lot of `amount` credits valid `valid_days` (default: settings.validity_days).

        Queues the owner's recent `pending_credits` jobs again and runs the grant hooks, in
        the same transaction. Not idempotent: each call adds a lot.
        """
        if not 0 < amount <= MAX_GRANT:
            raise CreditsError(f"amount must be between 1 and {MAX_GRANT:,} credits")
        if source not in SOURCES:
            raise CreditsError(f"source must be one of {', '.join(SOURCES)}")
        days = self.settings.validity_days if valid_days is None else valid_days
        if not 0 < days <= MAX_VALID_DAYS:
            raise CreditsError(f"validity must be between 1 and {MAX_VALID_DAYS:,} days")
        if session is None:
            with self.db.write_session() as s:
                return self.grant(
                    user_id, amount, source=source, valid_days=days, reason=reason, session=s
                )
        self._lock_user(session, user_id)
        now = self.now()
        lot = CreditLot(
            user_id=user_id, amount=amount, remaining=amount, source=source, reason=reason,
            granted_at=now, expires_at=now + timedelta(days=days),
        )
        session.add(lot)
        session.flush()
        session.add(CreditLedger(
            user_id=user_id, lot_id=lot.id, delta=amount, kind="grant", reason=reason or source,
            created_at=now,
        ))
        wake_pending(session, user_id, now, self.settings.resume_max_age_days)
        for hook in list(_grant_hooks):
            hook(session, user_id, now)
        return lot

    # -- charging --------------------------------------------------------------------------

    def reserve(
        self, user_id: str, ref: str, *, amount: int = 1, session: Session | None = None
    ) -> Charge:
        """Take `amount` credits for `ref` now, from the lots that expire first.

        Raises InsufficientCredits (taking nothing) when the balance is short. Idempotent per
        (user, ref): an open or finished charge for `ref` is returned as is.
        """
        if not self.enabled:
            return Charge(ref=ref, state="unmetered", amount=0)
        if session is None:
            with self.db.write_session() as s:
                return self.reserve(user_id, ref, amount=amount, session=s)
        # column-level statements on the session's connection, no ORM objects: this runs once
        # per rename (API and daemon), where the unit of work cost more than the queries
        conn = _connection(session)
        _lock_user_row(conn, self.db.is_postgres, user_id)
        found, refused = self._take(conn, user_id, [(ref, amount)])
        old = found.get(ref)
        if old is not None and old.state in ("reserved", "charged"):
            return Charge(ref=ref, state=old.state, amount=old.amount)
        if refused:
            raise InsufficientCredits("insufficient credits")
        return Charge(ref=ref, state="reserved", amount=amount)

    def reserve_many(self, user_id: str, refs: Sequence[str], *, session: Session) -> list[str]:
        """`reserve(user_id, ref)` for each of `refs` in order, one credit each, in the caller's
        transaction with a handful of statements whatever their number. Returns the refs that
        were refused for lack of credits (taking nothing for them); the others are reserved
        (or were already). Idempotent per ref, like `reserve`. Raises UnknownUser."""
        if not self.enabled or not refs:
            return []
        conn = _connection(session)
        _lock_user_row(conn, self.db.is_postgres, user_id)
        return self._take(conn, user_id, [(ref, 1) for ref in refs])[1]

    def _take(self, conn: Connection, user_id: str,
              wanted: Sequence[tuple[str, int]]) -> tuple[dict[str, _Charge], list[str]]:
        """Reserve `amount` credits for each `(ref, amount)` in order, from the lots that expire
        first, with the user's row locked by the caller. Refs with an open or final charge are
        left alone. Returns (the charges found before, by ref; the refs refused for lack of
        credits, for which nothing was taken)."""
        now = self.now()
        found = {row.ref: row for row in (_Charge(*values) for values in conn.execute(
            _CHARGES_OF, {"u": user_id, "refs": [ref for ref, _ in wanted]}))}
        lots = [list(lot) for lot in conn.execute(_OPEN_LOTS, {"u": user_id, "now": now})]
        taken: dict[int, int] = {}
        ledger: list[dict[str, object]] = []
        new_charges: list[dict[str, object]] = []
        again: list[dict[str, object]] = []
        refused: list[str] = []
        for ref, amount in wanted:
            old = found.get(ref)
            if old is not None and old.state in ("reserved", "charged"):
                continue
            if sum(remaining for _, remaining in lots) < amount:
                refused.append(ref)
                continue
            need, first_lot = amount, None
            for lot in lots:
                take = min(need, lot[1])
                if take == 0:
                    continue
                lot[1] -= take
                need -= take
                first_lot = first_lot or lot[0]
                taken[lot[0]] = taken.get(lot[0], 0) + take
                ledger.append({"user_id": user_id, "lot_id": lot[0], "delta": -take,
                               "kind": "consume", "reason": "", "ref": ref, "created_at": now})
            values = {"state": "reserved", "amount": amount, "lot_id": first_lot,
                      "updated_at": now}
            if old is None:
                new_charges.append({"user_id": user_id, "ref": ref, "created_at": now, **values})
            else:  # refunded before: reserved again
                again.append({"charge": old.id, **values})
        for statement, params in ((_TAKE_FROM_LOT, [{"lot": lot_id, "take": take}
                                                     for lot_id, take in taken.items()]),
                                  (_INSERT_LEDGER, ledger), (_INSERT_CHARGE, new_charges),
                                  (_SET_CHARGE, again)):
            if params:
                conn.execute(statement, params)
        return found, refused

    def commit_many(self, user_id: str, refs: Sequence[str], *, session: Session) -> None:
        """`commit(user_id, ref)` for each of `refs` in the caller's transaction, in one
        statement. Refs without a charge or already final are left as they are. Idempotent."""
        if self.enabled and refs:
            _connection(session).execute(
                _CHARGED_MANY, {"u": user_id, "refs": list(refs), "now": self.now()})

    def commit(self, user_id: str, ref: str, *, session: Session | None = None) -> Charge:
        """Mark the charge for `ref` as final. Idempotent; a refunded charge stays refunded."""
        if not self.enabled:
            return Charge(ref=ref, state="unmetered", amount=0)
        if session is None:
            with self.db.write_session() as s:
                return self.commit(user_id, ref, session=s)
        conn = _connection(session)
        found = conn.execute(_CHARGE_OF, {"u": user_id, "r": ref}).first()
        if found is None:
            raise CreditsError(f"no charge for {ref!r}")
        if found.state == "reserved":
            conn.execute(_CHARGED, {"charge": found.id, "now": self.now()})
            return Charge(ref=ref, state="charged", amount=found.amount)
        return Charge(ref=ref, state=found.state, amount=found.amount)

    def refund(
        self, user_id: str, ref: str, *, reason: str = "", session: Session | None = None
    ) -> Charge | None:
        """Give the credits taken for `ref` back to the lots they came from.

        Returns None when there was no charge. Idempotent: a second refund gives nothing back.
        """
        if not self.enabled:
            return None
        if session is None:
            with self.db.write_session() as s:
                return self.refund(user_id, ref, reason=reason, session=s)
        self._lock_user(session, user_id)
        charge = session.exec(
            select(CreditCharge).where(CreditCharge.user_id == user_id, CreditCharge.ref == ref)
            .execution_options(populate_existing=True)
        ).first()
        if charge is None:
            return None
        if charge.state == "refunded":
            return Charge(ref=ref, state="refunded", amount=charge.amount)
        give_back(session, user_id, ref, reason, self.now())
        now = self.now()
        charge.state = "refunded"
        charge.updated_at = now
        session.add(charge)
        return Charge(ref=ref, state="refunded", amount=charge.amount)

    def charge_state(self, user_id: str, ref: str) -> str | None:
        """The state of the charge for `ref` (reserved, charged, refunded), or None. Read-only."""
        with self.db.session() as s:
            found = s.connection().execute(_CHARGE_OF, {"u": user_id, "r": ref}).first()
            return found.state if found else None

    def _lock_user(self, session: Session, user_id: str) -> None:
        _lock_user_row(_connection(session), self.db.is_postgres, user_id)


# -- the statements of the charging path (built once; executed on the session's connection)

_BALANCE = select(func.coalesce(func.sum(CreditLot.remaining), 0)).where(
    col(CreditLot.user_id) == bindparam("u"), col(CreditLot.expires_at) > bindparam("now"))
_USER_QUERY = select(User.id).where(col(User.id) == bindparam("u"))
_USER_FOR_UPDATE = _USER_QUERY.with_for_update()
_CHARGE_OF = select(CreditCharge.id, CreditCharge.state, CreditCharge.amount).where(
    col(CreditCharge.user_id) == bindparam("u"), col(CreditCharge.ref) == bindparam("r"))
_CHARGES_OF = select(CreditCharge.id, CreditCharge.ref, CreditCharge.state,
                     CreditCharge.amount).where(
    col(CreditCharge.user_id) == bindparam("u"),
    col(CreditCharge.ref).in_(bindparam("refs", expanding=True)))


class _Charge(NamedTuple):
    id: int
    ref: str
    state: str
    amount: int


_OPEN_LOTS = (
    select(CreditLot.id, CreditLot.remaining)
    .where(col(CreditLot.user_id) == bindparam("u"), col(CreditLot.remaining) > 0,
           col(CreditLot.expires_at) > bindparam("now"))
    .order_by(col(CreditLot.expires_at), col(CreditLot.id))
)
_TAKE_FROM_LOT = (update(CreditLot).where(col(CreditLot.id) == bindparam("lot"))
                  .values(remaining=col(CreditLot.remaining) - bindparam("take")))
_INSERT_LEDGER = insert(CreditLedger)
_INSERT_CHARGE = insert(CreditCharge)
#: the columns set are the parameters other than "charge" (state, amount, lot_id, updated_at)
_SET_CHARGE = update(CreditCharge).where(col(CreditCharge.id) == bindparam("charge"))
_CHARGED = (update(CreditCharge).where(col(CreditCharge.id) == bindparam("charge"))
            .values(state="charged", updated_at=bindparam("now")))
_CHARGED_MANY = (update(CreditCharge)
                 .where(col(CreditCharge.user_id) == bindparam("u"),
                        col(CreditCharge.ref).in_(bindparam("refs", expanding=True)),
                        col(CreditCharge.state) == "reserved")
                 .values(state="charged", updated_at=bindparam("now")))


def give_back(session: Session, user_id: str, ref: str, reason: str, now: datetime) -> None:
    """Return the credits the ledger says `ref` took to the lots they came from (never above a
    lot's amount), ledgered as refunds. The caller makes sure this happens once per charge
    (the charge's state moves to refunded in the same transaction)."""
    taken: dict[int, int] = {}
    for entry in session.exec(
        select(CreditLedger).where(CreditLedger.user_id == user_id, CreditLedger.ref == ref)
    ):
        if entry.lot_id is not None:
            taken[entry.lot_id] = taken.get(entry.lot_id, 0) - entry.delta
    for lot_id, count in taken.items():
        if count <= 0:
            continue
        lot = session.get(CreditLot, lot_id, populate_existing=True)
        if lot is None:
            continue
        lot.remaining = min(lot.amount, lot.remaining + count)
        session.add(lot)
        session.add(CreditLedger(
            user_id=user_id, lot_id=lot_id, delta=count, kind="refund", ref=ref,
            reason=reason, created_at=now,
        ))


def _connection(session: Session) -> Connection:
    """The session's connection in its transaction, with its pending ORM changes flushed."""
    session.flush()
    return session.connection()


def _lock_user_row(conn: Connection, postgres: bool, user_id: str) -> None:
    """Lock the user's row for this transaction (PostgreSQL; on SQLite the write transaction
    already excludes other writers). Raises UnknownUser."""
    if conn.execute(_USER_FOR_UPDATE if postgres else _USER_QUERY, {"u": user_id}).first() is None:
        raise UnknownUser(f"no user with id {user_id}")
