"""`renamerd serve`: the v1 API alone (no scheduler, no workers), under uvicorn.

SIGTERM / SIGINT stop accepting connections and give running requests `server.shutdown_grace_s`
seconds to finish (uvicorn's graceful shutdown) before the process exits.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

import click

from renamerd.commands.context import AppContext, app_command


def uvicorn_config(app_ctx: AppContext, host: str | None, port: int | None) -> object:
    """The uvicorn.Config serving the API for these settings (host/port overridable)."""
    import uvicorn

    from renamerd.api.app import create_app
    from renamerd.runtime.observability import router as ops_router

    settings = app_ctx.settings
    app = create_app(settings, app_ctx.db, routers=[ops_router(app_ctx.db)])
    return uvicorn.Config(
        app,
        host=host or settings.server.host,
        port=settings.server.port if port is None else port,
        proxy_headers=True,
        forwarded_allow_ips=settings.server.forwarded_allow_ips,
        timeout_graceful_shutdown=int(settings.server.shutdown_grace_s),
        log_level=settings.logging.level.lower(),
        access_log=False,
        server_header=False,
    )


def _exit_cleanly(_sig: int, _frame: FrameType | None) -> None:
    sys.exit(0)


def register(cli: click.Group) -> None:
    @app_command(cli, "serve")
    @click.option("--host", default=None, help="address to listen on (default: server.host)")
    @click.option("--port", type=int, default=None, help="port (default: server.port; 0 = any free)")
    def serve(app: AppContext, host: str | None, port: int | None) -> None:
        """Serve the v1 HTTP API (without the scheduler; `renamerd run` serves it too)."""
        import uvicorn

        config = uvicorn_config(app, host, port)
        assert isinstance(config, uvicorn.Config)
        server = uvicorn.Server(config)
        click.echo(f"renamerd API on http://{config.host}:{config.port}", err=True)
        # uvicorn re-raises SIGTERM after its graceful shutdown; end with status 0 instead
        previous = signal.signal(signal.SIGTERM, _exit_cleanly)
        try:
            server.run()
        finally:
            signal.signal(signal.SIGTERM, previous)
