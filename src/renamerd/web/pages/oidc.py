"""Sign in with the OpenID Connect provider (`web/oidc.py`): the start (a redirect to the
provider's consent page) and the callback (a new session for the user with that e-mail)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from renamerd.service.accounts import AccountError, NotFoundError
from renamerd.web.errors import not_found
from renamerd.web.oidc import OidcError
from renamerd.web.pages.auth import DISABLED, begin_session
from renamerd.web.render import page
from renamerd.web.security import PRE_COOKIE, cookie_name, pre_token, remember_pre_token, safe_next
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)


def _refused(request: Request, message: str) -> Response:
    oidc = web_state(request).oidc
    return page(request, "signin.html", status=401, title="Sign in", next="/", email="",
                error=message, ended=False, oidc_name=oidc.display_name if oidc else "")


@router.get("/signin/oidc")
def oidc_start(request: Request, next: str = "/") -> Response:  # noqa: A002
    oidc = web_state(request).oidc
    if oidc is None:
        raise not_found()
    try:
        location = oidc.start(pre_token(request), safe_next(next))
    except OidcError as err:
        return _refused(request, f"Sign-in with {oidc.display_name} failed: {err}.")
    response = RedirectResponse(location, status_code=303)
    remember_pre_token(request, response)
    return response


@router.get("/signin/oidc/callback")
def oidc_callback(request: Request, code: str = "", state: str = "", error: str = "",
                  error_description: str = "") -> Response:
    web = web_state(request)
    oidc = web.oidc
    if oidc is None:
        raise not_found()
    if error:
        words = "you did not allow it" if error == "access_denied" else (error_description or error)
        return _refused(request, f"Sign-in with {oidc.display_name} failed: {words[:200]}.")
    key = request.cookies.get(cookie_name(request, PRE_COOKIE), "")
    try:
        email, next_path = oidc.finish(key, state, code)
    except OidcError as err:
        return _refused(request, f"Sign-in with {oidc.display_name} failed: {err}.")
    try:
        if web.settings.oauth.auto_create_users:
            user = web.accounts.ensure_user(email)
        else:
            user = web.accounts.get_user(email)
    except NotFoundError:
        return _refused(request, f"{email} has no account here; ask your admin for one.")
    except AccountError as err:
        return _refused(request, str(err))
    if user.disabled:
        return _refused(request, DISABLED)
    return begin_session(request, user, "oidc", safe_next(next_path))
