"""The Tokens page: the user's API tokens (label, hint, last use, expiry; expired ones marked
so, after the live ones), a new one (shown once, with a copy button and until when it works),
and Revoke. Only the SHA-256 of a token is stored."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import Response

from renamerd.service.accounts import NotFoundError
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import ApiToken, utcnow
from renamerd.web.errors import WebError, not_found
from renamerd.web.render import page, redirect
from renamerd.web.security import (
    SignInRequired,
    checked,
    clear_cookie,
    require_user,
    set_cookie,
)
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)
MAX_LABEL = 200
#: carries a new token from the POST to the one page that shows it (Path=/tokens, 2 minutes)
NEW_TOKEN_COOKIE = "renamerd_new_token"  # noqa: S105  (a cookie name)


def _tokens_page(request: Request, me: SignedIn, *, new_token: str = "",
                 new_row: ApiToken | None = None, error: str = "", label: str = "",
                 status: int = 200) -> Response:
    rows = list(reversed(web_state(request).accounts.list_tokens(me.user.email)))
    now = utcnow()
    unrevoked = [t for t in rows if t.revoked_at is None]
    expired = [t for t in unrevoked if t.expires_at is not None and t.expires_at <= now]
    return page(request, "tokens.html", status=status, title="Tokens",
                active=[t for t in unrevoked if t not in expired], expired=expired,
                revoked=[t for t in rows if t.revoked_at is not None],
                new_token=new_token, new_row=new_row, error=error, label=label,
                max_label=MAX_LABEL)


def _signed_in(me: SignedIn | None) -> SignedIn:
    if me is None:
        raise SignInRequired("/tokens")
    return me


@router.get("/tokens")
def tokens(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    """The list; a token just made is shown this once (it came in a cookie that lives for this
    one page, so a reload or the back button shows it no more, nor makes another)."""
    new_token = request.cookies.get(NEW_TOKEN_COOKIE, "")
    new_row = None
    if new_token:
        new_row = web_state(request).accounts.token_of(me.user.id, new_token)
        if new_row is None:
            new_token = ""
    response = _tokens_page(request, me, new_token=new_token, new_row=new_row)
    if NEW_TOKEN_COOKIE in request.cookies:
        clear_cookie(request, response, NEW_TOKEN_COOKIE, path="/tokens")
    return response


@router.post("/tokens")
def create_token(request: Request, label: str = Form(""),
                 me: SignedIn | None = Depends(checked)) -> Response:
    """Make a token and show it once on the Tokens page (POST, redirect, GET)."""
    me = _signed_in(me)
    label = label.strip()
    if len(label) > MAX_LABEL:
        return _tokens_page(request, me, error=f"A label has at most {MAX_LABEL} characters.",
                            label=label[:MAX_LABEL], status=400)
    _, token = web_state(request).accounts.create_token(me.user.email, label)
    response = redirect(request, "/tokens")
    set_cookie(request, response, NEW_TOKEN_COOKIE, token, path="/tokens", max_age=120)
    return response


@router.post("/tokens/{token_id}/revoke")
def revoke_token(request: Request, token_id: str,
                 me: SignedIn | None = Depends(checked)) -> Response:
    me = _signed_in(me)
    if len(token_id) > 40:
        raise WebError(404, "There is no such token, or it is not yours.", "NOT_FOUND")
    try:
        row = web_state(request).accounts.revoke_token(token_id, owner_id=me.user.id)
    except NotFoundError:
        raise not_found("token") from None
    name = f"“{row.label}”" if row.label else f"{row.hint}…"
    return redirect(request, "/tokens", f"Token {name} is revoked: it no longer works.")
