"""Who is signed in, and the CSRF check of every state-changing request.

Cookies (all HttpOnly, SameSite=Lax, Path=/, Secure when `server.public_url` is https):

- the session cookie: a random session id; the database keeps only its SHA-256
  (`service.web_sessions`). A browser-session cookie: it goes when the browser closes, and the
  server ends the session after `web.session_idle_minutes` unused or `web.session_max_hours`.
- the pre-session cookie: a random token for the forms of a signed-out browser (sign-in,
  invitation) and the OpenID Connect flow's secrets, which are derived from it.

CSRF: every POST carries the token in the form field `csrf_token` or the header
`X-CSRF-Token` (fetch calls): the session's token when signed in, else the pre-session token.
Without it, or with a wrong one: 403, and nothing changes.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import quote

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from renamerd.service.web_sessions import SignedIn
from renamerd.web.state import web_state

SESSION_COOKIE = "renamerd_session"
PRE_COOKIE = "renamerd_pre"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
_SIGNED_IN = "web_signed_in"
_PRE_TOKEN = "web_pre_token"  # noqa: S105  (a request.state attribute name)


class SignInRequired(Exception):
    """The page needs a signed-in user: answered with a redirect to the sign-in form."""

    def __init__(self, next_path: str = "/", ended: bool = False) -> None:
        super().__init__(next_path)
        self.next_path = next_path
        #: a session cookie came, but its session has ended
        self.ended = ended


class CsrfRefused(Exception):
    """A state-changing request without the right CSRF token: 403."""


class AdminsOnly(Exception):
    """The page is for admins: 403."""


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def cookie_name(request: Request, base: str) -> str:
    """`__Host-` prefixed names once cookies are Secure (the browser then refuses a cookie of
    that name set by another host or over http)."""
    return f"__Host-{base}" if web_state(request).secure_cookies else base


def set_cookie(request: Request, response: Response, base: str, value: str, *,
               path: str = "/", max_age: int | None = None) -> None:
    """Set an HttpOnly, SameSite=Lax cookie (Secure under https). `__Host-` names need
    Path=/: a cookie of another path keeps its plain name."""
    name = cookie_name(request, base) if path == "/" else base
    response.set_cookie(name, value, httponly=True, samesite="lax", path=path, max_age=max_age,
                        secure=web_state(request).secure_cookies)


def clear_cookie(request: Request, response: Response, base: str, *, path: str = "/") -> None:
    name = cookie_name(request, base) if path == "/" else base
    response.delete_cookie(name, path=path, httponly=True, samesite="lax",
                           secure=web_state(request).secure_cookies)


def session_id(request: Request) -> str | None:
    return request.cookies.get(cookie_name(request, SESSION_COOKIE))


def signed_in(request: Request) -> SignedIn | None:
    """The live session of this request, or None. Reads the database (call it off the event
    loop); remembered for the rest of the request."""
    if not hasattr(request.state, _SIGNED_IN):
        setattr(request.state, _SIGNED_IN, web_state(request).sessions.resolve(session_id(request)))
    found: SignedIn | None = getattr(request.state, _SIGNED_IN)
    return found


def forget_signed_in(request: Request, value: SignedIn | None = None) -> None:
    setattr(request.state, _SIGNED_IN, value)


def _here(request: Request) -> str:
    path = request.url.path
    return path + (f"?{request.url.query}" if request.url.query else "")


def require_user(request: Request) -> SignedIn:
    """Dependency: the signed-in user's session; SignInRequired otherwise."""
    found = signed_in(request)
    if found is None:
        raise SignInRequired(_here(request) if request.method == "GET" else "/",
                             ended=session_id(request) is not None)
    return found


def require_admin(request: Request) -> SignedIn:
    """Dependency: the signed-in user's session if the user is an admin; AdminsOnly else."""
    found = require_user(request)
    if not found.user.is_admin:
        raise AdminsOnly()
    return found


def pre_token(request: Request) -> str:
    """This browser's pre-session token (made now when it has none; `remember_pre_token`
    sets the cookie on the response)."""
    token = getattr(request.state, _PRE_TOKEN, None)
    if token is None:
        token = request.cookies.get(cookie_name(request, PRE_COOKIE)) or ""
        if len(token) < 32 or len(token) > 100:
            token = secrets.token_urlsafe(32)
            request.state.web_new_pre_token = True
        setattr(request.state, _PRE_TOKEN, token)
    return str(token)


def remember_pre_token(request: Request, response: Response) -> None:
    if getattr(request.state, "web_new_pre_token", False):
        set_cookie(request, response, PRE_COOKIE, pre_token(request))


def csrf_token(request: Request) -> str:
    """The token this request's forms must carry. Reads the database."""
    found = signed_in(request)
    return found.csrf_token if found is not None else pre_token(request)


async def _sent_token(request: Request) -> str:
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        return value if isinstance(value, str) else ""
    return ""


async def checked(request: Request) -> SignedIn | None:
    """Dependency of every state-changing route: the CSRF check. Returns the signed-in
    session (None when signed out). Raises CsrfRefused (403) when the token is missing or
    wrong, SignInRequired when it is right for a session that has ended meanwhile."""
    sent = await _sent_token(request)
    if not sent:
        raise CsrfRefused()
    found = await run_in_threadpool(signed_in, request)
    if found is not None:
        if not hmac.compare_digest(sent, found.csrf_token):
            raise CsrfRefused()
        return found
    pre = request.cookies.get(cookie_name(request, PRE_COOKIE)) or ""
    if pre and hmac.compare_digest(sent, pre):
        return None
    if session_id(request) is not None:
        raise SignInRequired("/", ended=True)
    raise CsrfRefused()


def signin_location(next_path: str, ended: bool = False) -> str:
    location = "/signin"
    query = []
    if next_path and next_path != "/":
        query.append("next=" + quote(next_path, safe="/"))
    if ended:
        query.append("ended=1")
    return location + ("?" + "&".join(query) if query else "")


def safe_next(value: str | None) -> str:
    """A local path to go to after signing in ("/" for anything else: no open redirect)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value
