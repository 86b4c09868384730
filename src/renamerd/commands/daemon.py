"""`renamerd run` and `renamerd worker`: the long-running processes.

- `run`: the API (with /healthz, /readyz, /metrics), the scheduler and the workers in one process.
- `worker`: workers and (unless --no-poll) polling, without the API. Polling is on by default
  because the poll lease already makes sure one process polls a connection at a time: any process
  can take over when the poller dies. `--no-poll` makes a pure job runner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import click

from renamerd.commands.context import AppContext, app_command


def _start_daemon(app: AppContext, workers: int | None, poll: bool, engine_pool: Any = None
                  ) -> Any:
    from renamerd.runtime.daemon import Daemon, hold_reloads
    from renamerd.runtime.observability import setup_logging

    hold_reloads()  # a SIGHUP while starting is a reload once running, not the end

    setup_logging(app.settings.logging)
    daemon = Daemon(app.settings, app.db, workers=workers, poll=poll, engine_pool=engine_pool)
    daemon.start()
    return daemon


def _reloader(app: AppContext, daemon: Any, asgi: Any = None) -> Callable[[], None]:
    """What SIGHUP does: read the config file again and apply it (runtime/reload.py); a file
    that does not load is logged and the running config kept. Never raises."""
    import logging

    from renamerd.config import load_settings

    log = logging.getLogger("renamerd.reload")

    def reload() -> None:
        source = app.loaded_from or app.config_path
        try:
            new = load_settings(source)
        except Exception as err:
            log.error("reload: %s could not be read, the running config is kept: %s",
                      source or "the configuration", err)
            return
        try:
            what = daemon.reload(new)
            if asgi is not None:  # the API of `renamerd run` shares the settings
                from renamerd.api.app import reconfigure

                reconfigure(asgi, what.live)
        except Exception:
            log.exception("reload: applying the new config failed")

    return reload


@app_command(name="run")
@click.option("--host", default=None, help="API address (default: server.host)")
@click.option("--port", type=int, default=None, help="API port (default: server.port)")
@click.option("--workers", type=int, default=None, help="worker threads (default: daemon.workers)")
def run(app: AppContext, host: str | None, port: int | None, workers: int | None) -> None:
    """Run everything: the API, the scheduler polling every connection, and the workers.

    SIGTERM stops polling, then taking jobs, lets running ones finish within
    server.shutdown_grace_s, then exits; under systemd (Type=notify) it reports READY,
    WATCHDOG and STOPPING."""
    import uvicorn

    from renamerd.commands.server import (
        build_app,
        listening_socket,
        listening_url,
        uvicorn_config,
    )
    from renamerd.runtime.daemon import hold_reloads, run_until_signalled
    from renamerd.runtime.engine_pool import EnginePool

    settings = app.settings
    hold_reloads()  # a SIGHUP while starting is a reload once running, not the end
    sock = listening_socket(app, host, port)  # first: a port in use ends the command here
    pool = EnginePool.from_settings(settings)  # one set of engine processes for API and jobs
    pool.start()
    daemon = _start_daemon(app, workers, poll=True, engine_pool=pool)
    asgi = build_app(app, daemon.alive, engine_pool=pool)
    config = uvicorn_config(app, asgi, host, port)
    server = uvicorn.Server(config)
    # in a thread, uvicorn leaves the signals to us (the main thread)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="api",
                              daemon=True)
    thread.start()
    address = settings.server.public_url or listening_url(sock)
    click.echo(f"renamerd running: open {address}/ (the web app; the API is at /api/v1, "
               "its reference at /docs)", err=True)
    _hint_first_admin(app)
    _warn_no_secrets_key(app)

    def stop_api() -> None:
        server.should_exit = True
        thread.join(settings.server.shutdown_grace_s + 5)
        pool.stop()

    run_until_signalled(daemon, stop_api, _reloader(app, daemon, asgi))


def _warn_no_secrets_key(app: AppContext) -> None:
    """Say at start when `[providers]` offers drives to connect but no secrets key can keep
    their sign-ins (the Connect buttons would fail)."""
    from renamerd.service import secrets as secrets_store
    from renamerd.service.connections import WEB_PROVIDERS

    offered = [p for p in WEB_PROVIDERS if p in app.settings.providers]
    if not offered:
        return
    try:
        if secrets_store.has_key(app.settings):
            secrets_store.fernet(app.settings)
            return
        reason = f"no secrets key is configured; {secrets_store.MAKE_KEY_HINT}"
    except secrets_store.SecretsKeyError as err:
        reason = str(err)
    click.echo(f"warning: [providers] offers {', '.join(offered)}, but users cannot connect "
               f"them: {reason}", err=True)


def _hint_first_admin(app: AppContext) -> None:
    """Tell how to make the first admin while there is none."""
    from renamerd.commands.context import accounts

    users = accounts(app).list_users()
    if any(u.is_admin for u in users):
        return
    cfg = f" --config {app.config_path}" if app.config_path else ""
    click.echo("no admin yet; make yourself one and set your password:\n"
               f"  renamerd users create you@example.org --admin{cfg}\n"
               f"  renamerd users set-password you@example.org{cfg}\n"
               f"  (or: renamerd users invite you@example.org{cfg}, and open the link)", err=True)
    # the config file's folders belong to their owners: say whose Jobs page shows them
    without_password = {u.email for u in users if not u.password_hash}
    for conn in app.settings.connections:
        if conn.owner in without_password:
            click.echo(f"the connection {conn.name!r} ({conn.watch}) belongs to {conn.owner}: its "
                       "documents show in the web app when signed in as that user\n"
                       f"  renamerd users set-password {conn.owner}{cfg}", err=True)


@app_command(name="worker")
@click.option("--workers", type=int, default=None, help="worker threads (default: daemon.workers)")
@click.option("--poll/--no-poll", default=True, show_default=True,
              help="also poll connections (one process at a time holds each poll lease)")
def worker(app: AppContext, workers: int | None, poll: bool) -> None:
    """Run workers (and polling) without the API: add processes to scale out on PostgreSQL."""
    from renamerd.runtime.daemon import run_until_signalled

    daemon = _start_daemon(app, workers, poll)
    click.echo(f"renamerd worker {daemon.identity} running", err=True)
    run_until_signalled(daemon, on_reload=_reloader(app, daemon))


def register(cli: click.Group) -> None:
    cli.add_command(run)  # type: ignore[arg-type]
    cli.add_command(worker)  # type: ignore[arg-type]
