"""`create_app(settings, db)`: the FastAPI application serving the v1 API.

Everything the routes need lives on `app.state` (settings, db, accounts, credits, limiter,
idempotency, fetcher, oauth, engine_config, rename_requests), never in module globals, so several
apps can live in one process (tests) and `renamerd run` can mount the same app next to its scheduler, adding
its own routers (`/healthz`, `/metrics`) through `routers=`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI

from renamerd.api.auth import RateLimitHeaders
from renamerd.api.body_limit import BodyLimit
from renamerd.api.connections import router as connections_router
from renamerd.api.docs import add_bearer_scheme, install_docs
from renamerd.api.errors import install_handlers
from renamerd.api.fetch import Resolver, SafeFetcher
from renamerd.api.idempotency import IdempotencyStore
from renamerd.api.jobs import router as jobs_router
from renamerd.api.oauth import OidcVerifier
from renamerd.api.routes import router as v1_router
from renamerd.config import Settings
from renamerd.runtime.engine_pool import EnginePool
from renamerd.runtime.rename_requests import RenameRequests
from renamerd.runtime.reservation_sweep import StaleReservations
from renamerd.service.accounts import Accounts
from renamerd.service.limits import RateLimiter
from renamerd.storage.database import Database, open_database


def default_engine_threads() -> int:
    """Threads for an injected `rename_fn` (tests): one per core plus a few."""
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
    engine_pool: EnginePool | None = None,
) -> FastAPI:
    """Build the API app. `db` defaults to the configured database (migrated).

    Renames run in `engine_pool` (worker processes with a deadline and a memory ceiling; `renamerd
    run` shares one with its daemon), else in a pool of the app's own, started and stopped with
    its lifespan. `resolver`, `fetch_ssl_context`, `oauth_http` and `rename_fn` are injection
    points for tests (DNS answers, a private CA, a fake identity provider, an engine that fails on
    purpose, run in `engine_threads` threads instead of a pool). The lifespan closes what it opened.
    """
    owns_db = db is None
    database = db if db is not None else open_database(settings)
    limiter = RateLimiter(settings.limits)
    oauth = OidcVerifier(settings.oauth, http=oauth_http) if settings.oauth.issuer else None
    engine = _EngineSide(settings, database, rename_fn, engine_pool)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await engine.start()
        try:
            yield
        finally:
            engine.stop()
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
    app.state.fetcher = SafeFetcher(  # reads [fetch] and the upload limit at each fetch
        settings.fetch, lambda: settings.limits.max_upload_bytes, resolver=resolver,
        ssl_context=fetch_ssl_context,
    )
    app.state.rename_requests = RenameRequests(
        app.state.credits, limiter, engine.pool if engine.pool is not None else rename_fn,
        app.state.engine_config, threads=engine_threads or default_engine_threads())
    install_handlers(app)
    install_docs(app)
    for router in (v1_router, jobs_router, connections_router, *routers):
        app.include_router(router)
    app.add_middleware(RateLimitHeaders, limiter=limiter)
    app.add_middleware(BodyLimit)
    _describe_errors_truthfully(app)
    return app


def reconfigure(app: FastAPI, live: Iterable[str]) -> None:
    """After a reload changed the sections `live` of the app's settings in place
    (runtime/reload.py): rebuild what was derived from them when the app was made (the rate
    limits' windows, the engine's configuration). The fetcher, the services and the pages read
    their sections at each use and need nothing."""
    settings: Settings = app.state.settings
    app.state.limiter.reconfigure(settings.limits)
    if {"engine", "limits"} & set(live):  # the engine's configuration holds the upload limit
        app.state.engine_config = settings.engine_config()
        app.state.rename_requests.engine_config = app.state.engine_config


class _EngineSide:
    """What the app runs beside its requests: the engine pool (its own unless given one; none
    with a test's `rename_fn`) and the refund of credits left reserved by a killed process."""

    def __init__(self, settings: Settings, db: Database, rename_fn: Any,
                 engine_pool: EnginePool | None) -> None:
        self.own_pool = (EnginePool.from_settings(settings)
                         if rename_fn is None and engine_pool is None else None)
        self.pool = engine_pool or self.own_pool
        self.sweeper = StaleReservations(db, settings)

    async def start(self) -> None:
        import anyio

        if self.pool is not None:  # warm workers: the first requests are not slower
            await anyio.to_thread.run_sync(self.pool.start)
        await anyio.to_thread.run_sync(self.sweeper.start)

    def stop(self) -> None:
        self.sweeper.stop()
        if self.own_pool is not None:
            self.own_pool.stop()


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
