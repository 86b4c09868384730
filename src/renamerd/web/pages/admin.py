"""The Admin page (users with the admin flag): users (invite, disable, set admin, unlock
sign-in), credit grants, and health (queue depth per state, workers alive, connections in
error)."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import Response

from renamerd.service import jobs as J
from renamerd.service.accounts import AccountError
from renamerd.service.connection_views import all_connections
from renamerd.service.credits import CreditsError
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import User
from renamerd.web.errors import not_found
from renamerd.web.render import page, redirect
from renamerd.web.security import AdminsOnly, SignInRequired, checked, require_admin
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)
log = logging.getLogger("renamerd.web")


def _admin(me: SignedIn | None) -> SignedIn:
    if me is None:
        raise SignInRequired("/admin")
    if not me.user.is_admin:
        raise AdminsOnly()
    return me


def _admin_page(request: Request, *, invite_link: str = "", invited: str = "",
                error: str = "", status: int = 200) -> Response:
    state = web_state(request)
    users = state.accounts.list_users()
    return page(
        request, "admin.html", status=status, title="Admin",
        users=[{"user": u, "balance": state.credits.balance(u.id)} for u in users],
        locks=state.throttle.lockouts(u.email for u in users),
        counts=J.JobQueue(state.db).counts(), processes=state.processes.alive(),
        connections=(every := all_connections(state.settings, state.db)),
        broken=[c for c in every if c.in_error],
        invite_link=invite_link, invited=invited, error=error,
        invite_days=state.settings.web.invite_days,
    )


def _user(request: Request, user_id: str) -> User:
    user = web_state(request).accounts.get_user_by_id(user_id) if len(user_id) <= 40 else None
    if user is None:
        raise not_found("user")
    return user


@router.get("/admin")
def admin(request: Request, me: SignedIn = Depends(require_admin)) -> Response:
    return _admin_page(request)


@router.post("/admin/invite")
def invite(request: Request, email: str = Form(""), me: SignedIn | None = Depends(checked)
           ) -> Response:
    """Create the user when needed and show a one-time invitation link (once, here)."""
    _admin(me)
    state = web_state(request)
    try:
        user = state.accounts.ensure_user(email)
    except AccountError as err:
        return _admin_page(request, error=str(err), status=400)
    if user.disabled:
        return _admin_page(request, error=f"{user.email} is disabled; enable it first.",
                           status=400)
    link = state.invites.link(state.invites.create(user.id))
    return _admin_page(request, invite_link=link, invited=user.email)


@router.post("/admin/users/{user_id}/disable")
def disable(request: Request, user_id: str, me: SignedIn | None = Depends(checked)) -> Response:
    me = _admin(me)
    user = _user(request, user_id)
    if user.id == me.user.id:
        return redirect(request, "/admin", "You cannot disable yourself.", "error")
    web_state(request).users.set_disabled(user.email, True)
    return redirect(request, "/admin", f"{user.email} is disabled: signed out, tokens refused.")


@router.post("/admin/users/{user_id}/enable")
def enable(request: Request, user_id: str, me: SignedIn | None = Depends(checked)) -> Response:
    _admin(me)
    user = _user(request, user_id)
    web_state(request).users.set_disabled(user.email, False)
    return redirect(request, "/admin", f"{user.email} is enabled again.")


@router.post("/admin/users/{user_id}/unlock")
def unlock(request: Request, user_id: str, me: SignedIn | None = Depends(checked)) -> Response:
    """Forget the user's failed sign-ins (at every address and over all of them): a lock
    ends at once. Logged with both users' ids."""
    me = _admin(me)
    user = _user(request, user_id)
    forgotten = web_state(request).throttle.clear_account(user.email)
    log.info("sign-in unlocked for user %s by admin %s: %d failed sign-in(s) forgotten",
             user.id, me.user.id, forgotten)
    return redirect(request, "/admin", f"{user.email} may sign in again: {forgotten} failed "
                                      "sign-in(s) forgotten.")


@router.post("/admin/users/{user_id}/admin")
def set_admin(request: Request, user_id: str, on: str = Form(""),
              me: SignedIn | None = Depends(checked)) -> Response:
    me = _admin(me)
    user = _user(request, user_id)
    flag = on == "1"
    if user.id == me.user.id and not flag:
        return redirect(request, "/admin", "You cannot take your own admin flag.", "error")
    web_state(request).users.set_admin(user.email, flag)
    return redirect(request, "/admin",
                    f"{user.email} is {'now' if flag else 'no longer'} an admin.")


@router.post("/admin/credits")
def grant(request: Request, user_id: str = Form(""), amount: str = Form(""),
          valid_days: str = Form(""), reason: str = Form(""),
          me: SignedIn | None = Depends(checked)) -> Response:
    """Grant credits to a user (their pending jobs wake)."""
    _admin(me)
    user = _user(request, user_id)
    try:
        count = int(amount)
        days = int(valid_days) if valid_days.strip() else None
        web_state(request).credits.grant(user.id, count, valid_days=days,
                                         reason=reason.strip()[:500] or "granted by an admin")
    except (ValueError, CreditsError) as err:
        message = str(err) if isinstance(err, CreditsError) else "give whole numbers"
        return redirect(request, "/admin", f"No credits granted: {message}.", "error")
    return redirect(request, "/admin", f"Granted {count} credits to {user.email}.")


@router.post("/admin/credits/deduct")
def deduct_credits(request: Request, user_id: str = Form(""), amount: str = Form(""),
                   reason: str = Form(""), me: SignedIn | None = Depends(checked)) -> Response:
    """Take credits back (a refunded purchase); never below zero, the reason in the ledger."""
    from renamerd.service.deductions import deduct

    _admin(me)
    user = _user(request, user_id)
    try:
        left = deduct(web_state(request).credits, user.id, int(amount),
                      reason=reason.strip()[:500])
    except (ValueError, CreditsError) as err:
        message = str(err) if isinstance(err, CreditsError) else "give a whole number"
        return redirect(request, "/admin", f"No credits deducted: {message}.", "error")
    return redirect(request, "/admin", f"Deducted {amount} credits from {user.email}; "
                                       f"{left} left.")


@router.get("/admin/users/{user_id}/delete")
def confirm_delete(request: Request, user_id: str, me: SignedIn = Depends(require_admin)
                   ) -> Response:
    """The confirmation step of deleting a user."""
    user = _user(request, user_id)
    return page(request, "admin_delete.html", title="Delete a user", target=user)


@router.post("/admin/users/{user_id}/delete")
def delete_user(request: Request, user_id: str, me: SignedIn | None = Depends(checked)
                ) -> Response:
    me = _admin(me)
    user = _user(request, user_id)
    if user.id == me.user.id:
        return redirect(request, "/admin", "You cannot delete yourself.", "error")
    state = web_state(request)
    try:
        state.users.delete(user.email, state.settings)
    except AccountError as err:
        return redirect(request, "/admin", f"{user.email} was not deleted: {err}.", "error")
    return redirect(request, "/admin", f"{user.email} is deleted: their tokens, sessions and "
                                      "jobs are gone; the credit ledger keeps anonymous entries.")
