"""`renamerd reload`: make every renamerd daemon process of this installation re-read its config.

Each `renamerd run` and `renamerd worker` process records itself in the database
(daemon_processes, beating every few seconds). This command sends SIGHUP to each one on this
host (what `systemctl reload renamerd` does for the unit's main process); processes on other
hosts are listed, to be reloaded there. What a reload changes: docs/operations.md#reload.
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import click

from renamerd.commands.context import AppContext, CliError, app_command


def _is_renamerd(pid: int) -> bool:
    """Whether process `pid` runs renamerd (a recycled pid is not signalled)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid > 0 and not Path("/proc/self").exists()  # no /proc: trust the registry
    return b"renamerd" in cmdline


def register(cli: click.Group) -> None:
    @app_command(cli, "reload")
    def reload(app: AppContext) -> None:
        """Re-read the config in every running daemon process (SIGHUP to each on this host).

        Connections, limits, logging, engine, notify and mail change at once, without losing
        a job; the rest (server, database, daemon) is logged as needing a restart."""
        from renamerd.service.processes import ProcessRegistry

        processes = ProcessRegistry(app.db).alive()
        if not processes:
            raise CliError("no renamerd process is running on this database "
                           "(none reported in the last minute); start one with `renamerd run`")
        here = socket.gethostname()
        signalled = 0
        for proc in processes:
            host, _, rest = proc.identity.partition(":")
            pid_text = rest.split(":", 1)[0]
            if host != here or not pid_text.isdigit():
                click.echo(f"{proc.identity}: on {host}: run `renamerd reload` there")
                continue
            pid = int(pid_text)
            if not _is_renamerd(pid):
                click.echo(f"{proc.identity}: not running any more")
                continue
            try:
                os.kill(pid, signal.SIGHUP)
            except ProcessLookupError:
                click.echo(f"{proc.identity}: not running any more")
                continue
            except PermissionError:
                click.echo(f"{proc.identity}: not allowed to signal it (run as its user, "
                           "or `systemctl reload renamerd`)")
                continue
            signalled += 1
            click.echo(f"{proc.identity}: reload requested (see its log for what changed)")
        if not signalled:
            raise CliError("no process on this host could be asked to reload")
