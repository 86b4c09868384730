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
from renamerd.commands.server import build_app, uvicorn_config


def _exit_cleanly(_sig: int, _frame: FrameType | None) -> None:
    sys.exit(0)


def register(cli: click.Group) -> None:
    @app_command(cli, "serve")
    @click.option("--host", default=None, help="address to listen on (default: server.host)")
    @click.option("--port", type=int, default=None, help="port (default: server.port; 0 = any free)")
    def serve(app: AppContext, host: str | None, port: int | None) -> None:
        """Serve the v1 HTTP API (without the scheduler; `renamerd run` serves it too)."""
        import uvicorn

        config = uvicorn_config(app, build_app(app), host, port)
        assert isinstance(config, uvicorn.Config)
        server = uvicorn.Server(config)
        click.echo(f"renamerd API on http://{config.host}:{config.port}", err=True)
        # uvicorn re-raises SIGTERM after its graceful shutdown; end with status 0 instead
        previous = signal.signal(signal.SIGTERM, _exit_cleanly)
        try:
            server.run()
        finally:
            signal.signal(signal.SIGTERM, previous)
