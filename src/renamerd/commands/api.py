"""`renamerd serve`: the v1 API alone (no scheduler, no workers), under uvicorn.

SIGTERM / SIGINT stop accepting connections and give running requests `server.shutdown_grace_s`
seconds to finish (uvicorn's graceful shutdown) before the process exits; a rename still being
read `engine_pool.CLIENT_GRACE_S` (10 s, or the grace if shorter) after the signal has its
engine worker killed (answered 500, its credit refunded), so a stuck document does not hold the
exit up. `renamerd run` gives the API's renames the same grace (`Daemon.stop`).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Any

import click

from renamerd.commands.context import AppContext, app_command
from renamerd.commands.server import (
    build_app,
    listening_socket,
    listening_url,
    uvicorn_config,
)


def _exit_cleanly(_sig: int, _frame: FrameType | None) -> None:
    sys.exit(0)


def _reload_api(app: AppContext, asgi: Any, pool: Any) -> None:
    """SIGHUP in `renamerd serve`: re-read the config and apply its live sections (limits,
    engine, fetch...: runtime/reload.py) to the API and its engine `pool`; never raises."""
    import logging

    from renamerd.api.app import reconfigure
    from renamerd.config import load_settings
    from renamerd.runtime import reload as reloading
    from renamerd.runtime.observability import setup_logging

    log = logging.getLogger("renamerd.reload")
    try:
        new = load_settings(app.loaded_from or app.config_path)
    except Exception as err:
        log.error("reload: the config could not be read, the running one is kept: %s", err)
        return
    try:
        what = reloading.plan(app.settings, new)
        reloading.apply(app.settings, new, what)
        if "logging" in what.live:
            setup_logging(app.settings.logging)
        reconfigure(asgi, what.live)
        pool.reconfigure(app.settings)
    except Exception:
        log.exception("reload: applying the new config failed")
        return
    for line in reloading.describe(what):
        log.info("reload: %s", line)


def register(cli: click.Group) -> None:
    @app_command(cli, "serve")
    @click.option("--host", default=None, help="address to listen on (default: server.host)")
    @click.option("--port", type=int, default=None, help="port (default: server.port; 0 = any free)")
    def serve(app: AppContext, host: str | None, port: int | None) -> None:
        """Serve the v1 HTTP API (without the scheduler; `renamerd run` serves it too)."""
        import threading

        import uvicorn

        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # until the reload handler is set
        from renamerd.runtime.engine_pool import CLIENT_GRACE_S, EnginePool
        from renamerd.runtime.observability import setup_logging

        setup_logging(app.settings.logging)  # [logging], as `run` (a reload's lines included)

        sock = listening_socket(app, host, port)  # a port in use ends the command here
        pool = EnginePool.from_settings(app.settings)
        pool.start()
        asgi = build_app(app, engine_pool=pool)
        config = uvicorn_config(app, asgi, host, port)
        assert isinstance(config, uvicorn.Config)
        signal.signal(signal.SIGHUP, lambda _s, _f: _reload_api(app, asgi, pool))

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                super().handle_exit(sig, frame)
                grace = min(CLIENT_GRACE_S, app.settings.server.shutdown_grace_s)
                cut = threading.Timer(grace, pool.stop)
                cut.daemon = True
                cut.start()

        server = Server(config)
        click.echo(f"renamerd API on {listening_url(sock)}", err=True)
        # uvicorn re-raises SIGTERM after its graceful shutdown; end with status 0 instead
        previous = signal.signal(signal.SIGTERM, _exit_cleanly)
        try:
            server.run(sockets=[sock])
        finally:
            signal.signal(signal.SIGTERM, previous)
            pool.stop()
