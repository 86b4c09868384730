"""Authentication and the burst limit, as one FastAPI dependency, plus the header middleware.

`current_user` reads `Authorization: Bearer <token>`: an `rt_` API token (hash look-up) or, when
`[oauth]` is configured, a provider JWT mapped to the local user with that e-mail. It counts the
request in the account's burst window and leaves the window's quota on `request.state`, where
`RateLimitHeaders` puts it into the `X-RateLimit-*` headers of whatever response follows, error
or not. Requests without valid credentials count against a window keyed by the client address
(same size as an account's) and carry that window's headers; so do requests that never reach
authentication (unknown routes, `/openapi.json`), whose headers show that window unchanged.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from renamerd.api.errors import ApiError, internal_error_body
from renamerd.api.oauth import InvalidToken
from renamerd.service.accounts import Accounts
from renamerd.service.limits import LimitExceeded, Quota
from renamerd.storage.models import User

log = logging.getLogger("renamerd.api")
QUOTA = "rate_quota"
#: the 401 of a valid token (API or OAuth) whose user is disabled
DISABLED = "this account is disabled; ask your admin"


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def rate_limited(err: LimitExceeded) -> ApiError:
    return ApiError(429, str(err), "RATE_LIMITED", {"Retry-After": str(err.retry_after)})


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise ApiError(401, "missing Authorization header (expected: Bearer <token>)")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise ApiError(401, "malformed Authorization header (expected: Bearer <token>)")
    return token


def _resolve(request: Request, token: str) -> User:
    state = request.app.state
    accounts: Accounts = state.accounts
    if token.startswith("rt_"):
        found = accounts.authenticate(token)
        if found is None:
            if accounts.owner_disabled(token):
                raise ApiError(401, DISABLED)
            raise ApiError(401, "invalid, revoked or expired API token")
        return found
    verifier = state.oauth
    if verifier is None or not verifier.enabled or token.count(".") != 2:
        raise ApiError(401, "invalid token (expected an rt_ API token)")
    try:
        email = verifier.verify(token)
    except InvalidToken as err:
        raise ApiError(401, f"invalid access token: {err}") from err
    from renamerd.service.accounts import AccountError, NotFoundError

    try:
        if state.settings.oauth.auto_create_users:
            user = accounts.ensure_user(email)
        else:
            user = accounts.get_user(email)
    except NotFoundError as err:
        raise ApiError(404, "user not found: no local account has this e-mail", "USER_NOT_FOUND") from err
    except AccountError as err:
        raise ApiError(401, f"invalid access token: {err}") from err
    if user.disabled:
        raise ApiError(401, DISABLED)
    return user


def current_user(request: Request) -> User:
    """The authenticated user; counts the request in the burst window.

    Raises ApiError 401 (no, malformed, invalid, revoked or expired credentials), 404 (a valid
    OAuth token for an e-mail without a local user) and 429 (burst limit reached). A sync
    dependency: FastAPI runs it in its thread pool, since it reads the database.
    """
    limiter = request.app.state.limiter
    try:
        user = _resolve(request, _bearer(request))
    except ApiError as err:
        try:
            setattr(request.state, QUOTA, limiter.hit_anonymous(client_address(request)))
        except LimitExceeded as limit:
            setattr(request.state, QUOTA, limit.quota)
            raise rate_limited(limit) from err
        raise ApiError(err.status, err.message, err.code, {"WWW-Authenticate": "Bearer"}) from err
    try:
        setattr(request.state, QUOTA, limiter.hit_request(user.id))
    except LimitExceeded as limit:
        setattr(request.state, QUOTA, limit.quota)
        raise rate_limited(limit) from None
    request.state.user = user
    return user


def set_quota(request: Request, *quotas: Quota) -> None:
    """Report the tightest of `quotas` (and the one already set) in the response headers."""
    current = getattr(request.state, QUOTA, None)
    setattr(request.state, QUOTA, Quota.tightest(*quotas, *([current] if current else [])))


class RateLimitHeaders:
    """ASGI middleware: adds `X-RateLimit-*` to every response and turns an exception that got
    this far into a 500 with the error body (so the headers are on that one too)."""

    def __init__(self, app: ASGIApp, limiter: Any) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                quota = state.get(QUOTA)
                if quota is None:
                    client = scope.get("client")
                    quota = self.limiter.burst_quota("anon:" + (client[0] if client else "unknown"))
                headers = MutableHeaders(scope=message)
                for name, value in quota.headers().items():
                    headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as err:
            log.error("unhandled error in %s %s: %s", scope.get("method"), scope.get("path"),
                      type(err).__name__)
            if started:
                raise
            await JSONResponse(internal_error_body(), status_code=500)(scope, receive, send_with_headers)
