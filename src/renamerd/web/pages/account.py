"""The Account page: who is signed in, and changing one's own password (the current one first,
throttled like sign-in; every other session of the user ends, this browser gets a new one)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import Response

from renamerd.service.limits import LimitExceeded
from renamerd.service.passwords import MIN_LENGTH, AccountDisabled, PasswordError
from renamerd.service.web_sessions import SignedIn
from renamerd.web.pages.auth import begin_session, throttled
from renamerd.web.render import page, with_message
from renamerd.web.security import SignInRequired, checked, client_address, require_user
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)


def _account_page(request: Request, me: SignedIn, *, error: str = "",
                  status: int = 200) -> Response:
    oidc = web_state(request).oidc
    return page(request, "account.html", status=status, title="Account", error=error,
                min_length=MIN_LENGTH, has_password=bool(me.user.password_hash),
                oidc_name=oidc.display_name if oidc is not None else "")


@router.get("/account")
def account(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    return _account_page(request, me)


@router.post("/account/password")
def change_password(request: Request, current: str = Form(""), new: str = Form(""),
                    repeat: str = Form(""), me: SignedIn | None = Depends(checked)) -> Response:
    """Check the current password (a wrong one counts as a failed sign-in), set the new one,
    end every session of the user and sign this browser in again."""
    if me is None:
        raise SignInRequired("/account")
    state = web_state(request)
    address = client_address(request)
    try:
        state.throttle.check(me.user.email, address)
    except LimitExceeded as err:
        return throttled(request, err)
    try:
        right = state.passwords.verify(me.user.email, current) is not None
    except AccountDisabled:  # disabled since this page was shown: its session ends anyway
        raise SignInRequired("/account") from None
    if not right:
        state.throttle.failed(me.user.email, address)
        return _account_page(request, me, status=400,
                             error="The current password is wrong; nothing was changed.")
    if new != repeat:
        return _account_page(request, me, status=400,
                             error="The two new passwords differ; nothing was changed.")
    try:
        state.passwords.set_password(me.user.id, new)
    except PasswordError as err:
        return _account_page(request, me, status=400,
                             error=f"{str(err).capitalize()}; nothing was changed.")
    state.sessions.end_all(me.user.id)  # a stolen session ends with the old password
    response = begin_session(request, me.user, "password", "/account")
    return with_message(request, response,
                        "Your password is changed. Your other devices are signed out.")
