"""The Overview: the balance, the credit lots, the latest ledger entries, the documents per
state, and the user's drives with their state."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from renamerd.service.connection_views import connections_of
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import utcnow
from renamerd.web.render import page
from renamerd.web.security import require_user
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)

#: the job states in the order a person reads them, with their words
STATE_LABELS = [
    ("queued", "waiting"), ("running", "renaming now"), ("done", "renamed"),
    ("pending_credits", "waiting for credits"), ("failed", "failed"), ("skipped", "skipped"),
    ("undone", "undone"),
]


@dataclass(frozen=True)
class CreditFor:
    """What a credit change was for, as the Overview shows it: the reason given, then the
    reference in words (`words`), a link to it when it has a page (`href`)."""

    reason: str
    words: str = ""
    href: str = ""


def credit_for(reason: str, ref: str | None) -> CreditFor:
    """A ledger entry's reason and reference in words: a job's charge "job 12" (its page),
    a rename through the API ("req:<id>", "idem:<Idempotency-Key>") "API rename", one on the
    Try it page "Try it page"; another reference as it is."""
    kind, _, rest = (ref or "").partition(":")
    if kind == "job" and rest.isdigit():
        return CreditFor(reason, f"job {rest}", f"/jobs/{rest}")
    if kind == "req" and rest.startswith("try-"):
        return CreditFor(reason, "Try it page")
    if kind in ("req", "idem") and rest:
        return CreditFor(reason, "API rename")
    return CreditFor(reason, ref or "")


@router.get("/")
def overview(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    state = web_state(request)
    user = me.user
    now = utcnow()
    lots = [{"source": lot.source, "amount": lot.amount, "remaining": lot.remaining,
             "expires_at": lot.expires_at, "reason": lot.reason, "expired": lot.expires_at <= now}
            for lot in state.credits.lots(user.id)]
    return page(
        request, "overview.html", title="Overview",
        balance=state.credits.balance(user.id), credits_enabled=state.credits.enabled,
        lots=lots, ledger=[(entry, credit_for(entry.reason, entry.ref))
                           for entry in state.credits.ledger(user.id, limit=10)],
        counts=state.jobs.counts(user.id), state_labels=STATE_LABELS,
        connections=connections_of(state.settings, state.db, user),
    )
