"""Signing in and out: the sign-in form (password, throttled), sign out, invitation links."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response

from renamerd.service.invites import InviteError
from renamerd.service.limits import LimitExceeded
from renamerd.service.passwords import MIN_LENGTH, AccountDisabled, PasswordError
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import User
from renamerd.web.render import error_page, page, redirect, with_message
from renamerd.web.security import (
    PRE_COOKIE,
    SESSION_COOKIE,
    checked,
    clear_cookie,
    client_address,
    forget_signed_in,
    safe_next,
    session_id,
    set_cookie,
    signed_in,
)
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)
#: what a disabled account is told when its password was right (or its provider signed it in)
DISABLED = "This account is disabled; ask your admin."


def begin_session(request: Request, user: User, method: str, location: str) -> Response:
    """Sign `user` in: a new session (a new id: no fixation), its cookie, the end of any
    session this browser had, and a redirect to `location`."""
    state = web_state(request)
    state.sessions.end(session_id(request))
    state.sessions.purge()  # the ended and idle sessions of everyone (a small table)
    new_id = state.sessions.start(user.id, method=method, address=client_address(request),
                                  user_agent=request.headers.get("user-agent", ""))
    response = RedirectResponse(safe_next(location), status_code=303)
    set_cookie(request, response, SESSION_COOKIE, new_id)
    clear_cookie(request, response, PRE_COOKIE)
    return response


def _oidc_name(request: Request) -> str:
    oidc = web_state(request).oidc
    return oidc.display_name if oidc is not None else ""


def throttled(request: Request, err: LimitExceeded) -> Response:
    """The 429 page of too many failed sign-ins, saying when to try again."""
    retry_at = datetime.now(UTC) + timedelta(seconds=err.retry_after)
    return error_page(
        request, 429, "Too many failed sign-ins for this account or from this address.",
        {"Retry-After": str(err.retry_after)}, retry_at=retry_at,
        retry_minutes=max(1, math.ceil(err.retry_after / 60)))


@router.get("/signin")
def signin_form(request: Request, next: str = "/", ended: str = "") -> Response:  # noqa: A002
    if signed_in(request) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return page(request, "signin.html", title="Sign in", next=safe_next(next), email="",
                error="", ended=bool(ended), oidc_name=_oidc_name(request))


@router.post("/signin")
def signin(request: Request, email: str = Form(""), password: str = Form(""),
           next: str = Form("/"), _: SignedIn | None = Depends(checked)) -> Response:  # noqa: A002
    """Check the password (throttled per account and address); a new session on success."""
    state = web_state(request)
    address = client_address(request)
    try:
        state.throttle.check(email, address)
    except LimitExceeded as err:
        return throttled(request, err)
    error = "Wrong e-mail or password. Nobody was signed in."
    try:
        user = state.passwords.verify(email, password)
    except AccountDisabled:  # the password was right: say why nobody was signed in
        user, error = None, DISABLED
    if user is None:
        state.throttle.failed(email, address)
        forget_signed_in(request)
        return page(request, "signin.html", status=401, title="Sign in", next=safe_next(next),
                    email=email[:320], error=error, ended=False, oidc_name=_oidc_name(request))
    return begin_session(request, user, "password", next)


def _end(request: Request) -> Response:
    web_state(request).sessions.end(session_id(request))
    response = redirect(request, "/signin", "You are signed out.")
    clear_cookie(request, response, SESSION_COOKIE)
    return response


@router.get("/signout")
def signout_link(request: Request) -> Response:
    """A Sign out link (from a bookmark or elsewhere) asks first: signing out is a POST with
    the session's CSRF token, so no token ever travels in a URL (logs, Referer)."""
    if signed_in(request) is None:
        return RedirectResponse("/signin", status_code=303)
    return page(request, "signout.html", title="Sign out")


@router.post("/signout")
def signout(request: Request, _: SignedIn | None = Depends(checked)) -> Response:
    return _end(request)


@router.get("/invite/{token}")
def invite_form(request: Request, token: str) -> Response:
    state = web_state(request)
    try:
        invited = state.invites.user_for(token)
    except InviteError as err:
        return page(request, "invite.html", status=404, title="Invitation", problem=str(err),
                    token="", invited=None, error="", min_length=MIN_LENGTH)
    return page(request, "invite.html", title="Choose your password", problem="",
                token=token, invited=invited, error="", min_length=MIN_LENGTH)


def _invite_again(request: Request, token: str, error: str) -> Response:
    """The invitation's form again with why the password was refused (the invitation is not
    used up); the problem page when the invitation no longer works."""
    try:
        invited = web_state(request).invites.user_for(token)
    except InviteError as err:
        return page(request, "invite.html", status=404, title="Invitation", problem=str(err),
                    token="", invited=None, error="", min_length=MIN_LENGTH)
    return page(request, "invite.html", status=400, title="Choose your password", problem="",
                token=token, invited=invited, error=error, min_length=MIN_LENGTH)


@router.post("/invite/{token}")
def invite_accept(request: Request, token: str, password: str = Form(""),
                  repeat: str = Form(""), _: SignedIn | None = Depends(checked)) -> Response:
    """Set the password (typed twice, the same) and use the invitation up; signs the user
    in."""
    state = web_state(request)
    if password != repeat:
        return _invite_again(request, token, "The two passwords differ; nothing was set. "
                                             "Type the same password in both fields.")
    try:
        user = state.invites.redeem(token, password)
    except InviteError as err:
        return page(request, "invite.html", status=404, title="Invitation", problem=str(err),
                    token="", invited=None, error="", min_length=MIN_LENGTH)
    except PasswordError as err:
        return _invite_again(request, token, str(err))
    state.sessions.end_all(user.id)
    response = begin_session(request, user, "invite", "/")
    return with_message(request, response, "Your password is set. Welcome!")
