"""The HTTP server of `renamerd serve` and `renamerd run`: one ASGI app (the v1 API, the
operations routes, the web app) and the uvicorn settings that serve it."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import click

from renamerd.commands.context import AppContext


def build_app(app_ctx: AppContext, alive: Callable[[], bool] | None = None, **api_kwargs: Any
              ) -> Any:
    """The whole HTTP app for this process: the v1 API, `/healthz`, `/readyz`, `/metrics`
    (`alive` tells /readyz whether the daemon's threads run), and the web app at `/`.
    `api_kwargs` go to `create_app` (tests: `rename_fn`, `oauth_http`...)."""
    from renamerd.api.app import create_app
    from renamerd.runtime.observability import router as ops_router
    from renamerd.web import install

    app = create_app(app_ctx.settings, app_ctx.db, routers=[ops_router(app_ctx.db, alive, app_ctx.settings)],
                     **api_kwargs)
    install(app, app_ctx.settings, app_ctx.db, oidc_http=api_kwargs.get("oauth_http"))
    return app


def uvicorn_config(app_ctx: AppContext, asgi_app: Any, host: str | None, port: int | None
                   ) -> Any:
    """The uvicorn.Config serving `asgi_app` for these settings (host/port overridable)."""
    import uvicorn

    from renamerd.api.protocol import limit_accept_error_logs, protocol_class

    settings = app_ctx.settings
    limit_accept_error_logs()
    return uvicorn.Config(
        asgi_app,
        http=protocol_class(settings.server.header_timeout_s,
                            settings.server.body_idle_timeout_s,
                            settings.server.max_header_kb * 1024,
                            settings.server.max_connections_per_client,
                            settings.server.proxies),
        limit_concurrency=settings.server.max_connections,
        host=host or settings.server.host,
        port=settings.server.port if port is None else port,
        # X-Forwarded-For is believed only from the configured proxies (none by default)
        proxy_headers=bool(settings.server.proxies),
        forwarded_allow_ips=settings.server.proxies or None,
        timeout_graceful_shutdown=int(settings.server.shutdown_grace_s),
        log_level=settings.logging.level.lower(),
        access_log=False,
        server_header=False,
        log_config=None,
    )


def listening_socket(app_ctx: AppContext, host: str | None, port: int | None) -> socket.socket:
    """The server's socket, bound now, before anything starts: a port another program (or
    another renamerd) holds ends the command at once with its reason (exit status 1),
    instead of a process that says it runs and serves nothing. Port 0: any free one
    (`getsockname()` says which)."""
    settings = app_ctx.settings.server
    host = host or settings.host
    port = settings.port if port is None else port
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {reason} (another program, or another renamerd, "
            "holds it: stop it, or set server.port)") from None
    return sock


def listening_url(sock: socket.socket) -> str:
    """http://host:port of a bound socket ([...] around an IPv6 address)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
