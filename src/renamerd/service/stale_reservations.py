"""Credits left `reserved` by a process killed during an API rename: refunded, exactly once.

An API request reserves one credit (`req:<uuid>` or `idem:<key>`), runs the engine, then
charges or refunds it; a process killed in between leaves the reservation open forever, and the
credit is lost to its owner. `refund_stale` returns such credits: each open reservation older
than a cut-off moves to `refunded` through a conditional UPDATE (`... WHERE state = 'reserved'
AND updated_at < cutoff`), and only the transaction whose UPDATE changed the row gives the
credit back, so two processes sweeping at once refund it once. Daemon jobs (`job:<id>`) are not
touched: their reservations are settled by the job's own crash recovery (docs/operations.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import or_, update
from sqlmodel import col, select

from renamerd.service.credits import _lock_user_row, give_back
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, utcnow

#: the refs of API renames (runtime/rename_requests via api/routes)
API_REFS = ("req:", "idem:")
#: reservations looked at per sweep (the rest wait for the next one)
BATCH = 500


def refund_stale(db: Database, cutoff: datetime, prefixes: Sequence[str] = API_REFS,
                 reason: str = "reservation of an interrupted request") -> list[tuple[str, str]]:
    """Refund every charge still `reserved` whose last change is older than `cutoff` and
    whose ref starts with one of `prefixes`. Returns the (user id, ref) pairs refunded by this
    call. Safe to repeat and to run in several processes at once: each is refunded once."""
    with db.session() as s:
        candidates = s.exec(
            select(CreditCharge.id, CreditCharge.user_id, CreditCharge.ref)
            .where(col(CreditCharge.state) == "reserved", col(CreditCharge.updated_at) < cutoff,
                   or_(*(col(CreditCharge.ref).startswith(p) for p in prefixes)))
            .order_by(col(CreditCharge.id)).limit(BATCH)
        ).all()
    refunded: list[tuple[str, str]] = []
    for charge_id, user_id, ref in candidates:
        with db.write_session() as s:
            conn = s.connection()
            _lock_user_row(conn, db.is_postgres, user_id)  # lots change under the user's lock
            now = utcnow()
            changed = conn.execute(
                update(CreditCharge)
                .where(col(CreditCharge.id) == charge_id, col(CreditCharge.state) == "reserved",
                       col(CreditCharge.updated_at) < cutoff)
                .values(state="refunded", updated_at=now)
            ).rowcount
            if changed == 1:
                give_back(s, user_id, ref, reason, now)
                refunded.append((user_id, ref))
    return refunded
