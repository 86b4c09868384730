"""`create_app(settings, db)`: the FastAPI application serving the v1 API.

Everything the routes need lives on `app.state` (settings, db, accounts, credits, limiter,
idempotency, fetcher, oauth, engine_config), never in module globals, so several apps can live
in one process (tests) and `renamerd run` can mount the same app next to its scheduler, adding
its own routers (`/healthz`, `/metrics`) through `routers=`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI

from renamerd.api.auth import RateLimitHeaders
from renamerd.api.connections import router as connections_router
from renamerd.api.docs import add_bearer_scheme, install_docs
from renamerd.api.errors import install_handlers
from renamerd.api.fetch import Resolver, SafeFetcher
from renamerd.api.idempotency import IdempotencyStore
from renamerd.api.jobs import router as jobs_router
from renamerd.api.oauth import OidcVerifier
from renamerd.api.routes import router as v1_router
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.limits import RateLimiter
from renamerd.storage.database import Database, open_database


def default_engine_threads() -> int:
    """Engine worker threads per process: one per core plus a few for OCR subprocess waits."""
    return min(32, (os.cpu_count() or 1) + 4)


def create_app(
    settings: Settings,
    db: Database | None = None,
    *,
    routers: Iterable[APIRouter] = (),
    resolver: Resolver | None = None,
    fetch_ssl_context: Any = None,
    oauth_http: Any = None,
    engine_threads: int | None = None,
    rename_fn: Any = None,
) -> FastAPI:
    """Build the API app. `db` defaults to the configured database (migrated).

    `resolver`, `fetch_ssl_context`, `oauth_http` and `rename_fn` are injection points for tests
    (DNS answers, a private CA, a fake identity provider, an engine that fails on purpose);
    `rename_fn` defaults to `renamerd.engine.rename`. Closing the app's lifespan closes what it opened.
    """
    owns_db = db is None
    database = db if db is not None else open_database(settings)
    limiter = RateLimiter(settings.limits)
    oauth = OidcVerifier(settings.oauth, http=oauth_http) if settings.oauth.issuer else None

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if rename_fn is None:  # the first requests are not slower than the rest
            import anyio

            from renamerd.runtime.startup import prepare_long_running

            await anyio.to_thread.run_sync(prepare_long_running)
        try:
            yield
        finally:
            limiter.close()
            if oauth is not None and oauth_http is None:
                oauth.close()
            if owns_db:
                database.dispose()

    app = FastAPI(
        title="renamerd API",
        version="1",
        description="Document renaming service, v1. Every request carries "
        "`Authorization: Bearer <token>` (an rt_ API token or an OAuth access token).",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.router.redirect_slashes = False  # see docs/security.md: no 307 to a client's Host
    _install_state(app, settings, database, limiter, oauth)
    app.state.fetcher = SafeFetcher(
        settings.fetch, settings.limits.max_upload_bytes, resolver=resolver,
        ssl_context=fetch_ssl_context,
    )
    app.state.engine_threads = engine_threads or default_engine_threads()
    app.state.rename_fn = rename_fn
    install_handlers(app)
    install_docs(app)
    for router in (v1_router, jobs_router, connections_router, *routers):
        app.include_router(router)
    app.add_middleware(RateLimitHeaders, limiter=limiter)
    _describe_errors_truthfully(app)
    return app


def _install_state(app: FastAPI, settings: Settings, database: Database, limiter: RateLimiter,
                   oauth: OidcVerifier | None) -> None:
    """What the routes find on `app.state`: the services on this database and settings."""
    accounts = Accounts(database, settings)
    app.state.settings = settings
    app.state.db = database
    app.state.accounts = accounts
    app.state.credits = accounts.credits
    app.state.limiter = limiter
    app.state.idempotency = IdempotencyStore(database)
    app.state.oauth = oauth
    app.state.engine_config = settings.engine_config()
    app.state.engine_limiter = None


def _describe_errors_truthfully(app: FastAPI) -> None:
    """FastAPI documents a 422 for request validation; this API answers those with 400 (and
    the ErrorBody shape), so the 422 entries and their schemas are dropped from the document.
    The document also declares the bearer scheme (`api.docs.add_bearer_scheme`)."""
    from fastapi.openapi.utils import get_openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )
            for item in doc.get("paths", {}).values():
                for operation in item.values():
                    operation.get("responses", {}).pop("422", None)
            schemas = doc.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            add_bearer_scheme(doc)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
