"""`install(app, settings, db)`: the web app on the API's FastAPI app, at `/`.

Adds the pages (`web/pages/`), the static files at `/static` (hand-written CSS and JS, no
CDN), error pages for browsers (the API keeps its JSON errors), the security headers of the
pages, and closes what it opened with the app's lifespan.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from renamerd.config import Settings
from renamerd.storage.database import Database
from renamerd.web.errors import WebError
from renamerd.web.pages import ROUTERS
from renamerd.web.render import error_page
from renamerd.web.security import (
    AdminsOnly,
    CsrfRefused,
    SignInRequired,
    signed_in,
    signin_location,
)
from renamerd.web.state import WebState

STATIC = Path(__file__).parent / "static"
#: paths that are not pages: their errors stay JSON and they get no page headers
NOT_PAGES = ("/api/", "/docs", "/openapi.json", "/healthz", "/readyz", "/metrics", "/static/")
#: the pages load scripts, styles and images from this server only
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")


class _Static(StaticFiles):
    """StaticFiles where a name no file can have (a NUL byte, which os.stat refuses with a
    ValueError: a 500) is simply not found."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if "\x00" in path:
            return "", None
        return super().lookup_path(path)


def install(app: FastAPI, settings: Settings, db: Database, *, oidc_http: Any = None
            ) -> WebState:
    """Mount the web app on `app` and return its state (also on `app.state.web`).

    `oidc_http` is an injection point for tests (an httpx.Client trusting a test CA)."""
    state = WebState.build(settings, db)
    if settings.oauth.issuer and settings.oauth.client_id:
        from renamerd.web.oidc import OidcSignIn

        state.oidc = OidcSignIn(settings.oauth, settings.server.base_url, http=oidc_http)
    app.state.web = state
    app.mount("/static", _Static(directory=str(STATIC)), name="static")
    for router in ROUTERS:
        app.include_router(router)
    _install_error_pages(app)
    app.add_middleware(PageHeaders)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(asgi: Any) -> AsyncIterator[Any]:
        async with inner(asgi) as value:
            try:
                yield value
            finally:
                state.close()

    app.router.lifespan_context = lifespan
    return state


def is_page(request: Request) -> bool:
    """Whether the request is a browser asking for a page (not the API, not a fetch)."""
    return (not request.url.path.startswith(NOT_PAGES)
            and "text/html" in request.headers.get("accept", ""))


async def _answer_of(handler: Any, request: Request, exc: Exception) -> Response:
    """What the API's own handler of `exc` answers (a sync or an async one)."""
    answer = handler(request, exc)
    return await answer if inspect.isawaitable(answer) else answer  # type: ignore[no-any-return]


def _install_error_pages(app: FastAPI) -> None:
    previous = app.exception_handlers.get(StarletteHTTPException)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if is_page(request) or previous is None:
            message = {404: "There is nothing here.", 405: "This address does not take that."}
            return await run_in_threadpool(
                error_page, request, exc.status_code,
                message.get(exc.status_code, str(exc.detail)))
        return await _answer_of(previous, request, exc)

    def web_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        if not is_page(request):
            return JSONResponse({"error": exc.message, "code": exc.code}, exc.status,
                                headers=exc.headers)
        return error_page(request, exc.status, exc.message, exc.headers)

    def sign_in_required(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SignInRequired)
        if not is_page(request) and request.method == "GET":
            return JSONResponse({"error": "sign in first", "code": "UNAUTHORIZED"}, 401)
        return RedirectResponse(signin_location(exc.next_path, exc.ended), status_code=303)

    def csrf_refused(request: Request, _exc: Exception) -> Response:
        message = ("This form has expired or did not come from this site (its security token "
                   "is missing or wrong). Go back, reload the page and try again.")
        if signed_in(request) is None and request.url.path != "/signin":
            # (a form of a tab whose session was signed out in another tab)
            message = ("You are signed out (perhaps in another tab), so this form was not "
                       "sent and nothing changed. Sign in again, then repeat it.")
        if not is_page(request):
            return JSONResponse({"error": "missing or wrong CSRF token", "code": "CSRF"}, 403)
        return error_page(request, 403, message)

    def admins_only(request: Request, _exc: Exception) -> Response:
        return error_page(request, 403, "This page is for admins.")

    previous_invalid = app.exception_handlers.get(RequestValidationError)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        """A page's address with a value it does not take ("/jobs?page=-1"): a page in words
        for a browser, the API's JSON 400 otherwise."""
        if is_page(request) or previous_invalid is None:
            return await run_in_threadpool(
                error_page, request, 400,
                "This address has a value the page does not take (a page number below 1, "
                "or a word where a number belongs). Go back and try again.")
        return await _answer_of(previous_invalid, request, exc)

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(WebError, web_error)
    app.add_exception_handler(SignInRequired, sign_in_required)
    app.add_exception_handler(CsrfRefused, csrf_refused)
    app.add_exception_handler(AdminsOnly, admins_only)
    app.add_exception_handler(RequestValidationError, invalid_request)


class PageHeaders:
    """ASGI middleware: the security headers of the pages (CSP, no framing, no sniffing, no
    cache of private pages, referrers kept on this site)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith(NOT_PAGES):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("Cache-Control", "no-store")
                if headers.get("content-type", "").startswith("text/html"):
                    headers.setdefault("Content-Security-Policy", CSP)
            await send(message)

        await self.app(scope, receive, send_with_headers)
