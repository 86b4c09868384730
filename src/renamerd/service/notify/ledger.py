"""The day's notifications (one row per user, kind and UTC day, claimed before sending) and the
kinds users opted out of."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError

from renamerd.storage.database import Database
from renamerd.storage.models import NotificationOptOut, NotificationSent, utcnow


def claim(db: Database, user_id: str, kind: str, now: datetime) -> int | None:
    """Claim today's (UTC) notification of `kind` for the user: its row id, or None when some
    process claimed it already today. Safe from any number of processes at once."""
    row = NotificationSent(user_id=user_id, kind=kind, day=now.date().isoformat(),
                           created_at=now)
    try:
        with db.write_session() as s:
            s.add(row)
            s.flush()
            return row.id
    except IntegrityError:
        return None


def finish(db: Database, claim_id: int, error: str | None) -> None:
    """Record how the claimed notification went: sent, or failed with `error` (not tried
    again that day)."""
    with db.write_session() as s:
        row = s.get(NotificationSent, claim_id)
        if row is not None:
            row.status = "failed" if error else "sent"
            row.error = error[:2000] if error else None
            s.add(row)


def set_opt_out(db: Database, user_id: str, kind: str, out: bool = True) -> None:
    """Stop (`out`) or resume notifications of `kind` for the user. Idempotent. Raises
    ValueError for an unknown kind."""
    from renamerd.service.notify.messages import KINDS

    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r} (known: {', '.join(KINDS)})")
    with db.write_session() as s:
        row = s.get(NotificationOptOut, (user_id, kind))
        if out and row is None:
            s.add(NotificationOptOut(user_id=user_id, kind=kind, created_at=utcnow()))
        elif not out and row is not None:
            s.delete(row)


def opted_out(db: Database, user_id: str, kind: str) -> bool:
    """Whether the user opted out of `kind`. Read-only."""
    with db.session() as s:
        return s.get(NotificationOptOut, (user_id, kind)) is not None
