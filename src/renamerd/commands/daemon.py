"""`renamerd run`, `renamerd worker`, `renamerd jobs ...` and `renamerd undo`.

- `run`: the API (with /healthz, /readyz, /metrics), the scheduler and the workers in one process.
- `worker`: workers and (unless --no-poll) polling, without the API. Polling is on by default
  because the poll lease already makes sure one process polls a connection at a time: any process
  can take over when the poller dies. `--no-poll` makes a pure job runner.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command
from renamerd.service import jobs as J
from renamerd.service.journal import Journal, UndoError
from renamerd.storage.models import Job


def job_json(job: Job) -> dict[str, Any]:
    out: dict[str, Any] = job.model_dump()
    for key, value in out.items():
        if hasattr(value, "isoformat"):
            out[key] = value.isoformat()
    if job.result:
        with contextlib.suppress(ValueError):
            out["result"] = json.loads(job.result)
    return out


def _start_daemon(app: AppContext, workers: int | None, poll: bool) -> Any:
    from renamerd.runtime.daemon import Daemon
    from renamerd.runtime.observability import setup_logging

    setup_logging(app.settings.logging)
    daemon = Daemon(app.settings, app.db, workers=workers, poll=poll)
    daemon.start()
    return daemon


def register(cli: click.Group) -> None:
    @app_command(cli, "run")
    @click.option("--host", default=None, help="API address (default: server.host)")
    @click.option("--port", type=int, default=None, help="API port (default: server.port)")
    @click.option("--workers", type=int, default=None, help="worker threads (default: daemon.workers)")
    def run(app: AppContext, host: str | None, port: int | None, workers: int | None) -> None:
        """Run everything: the API, the scheduler polling every connection, and the workers.

        SIGTERM stops taking jobs, lets running ones finish within server.shutdown_grace_s,
        then exits; under systemd (Type=notify) it reports READY, WATCHDOG and STOPPING."""
        import uvicorn

        from renamerd.api.app import create_app
        from renamerd.runtime.daemon import run_until_signalled
        from renamerd.runtime.observability import router

        settings = app.settings
        daemon = _start_daemon(app, workers, poll=True)
        api = create_app(settings, app.db, routers=[router(app.db, daemon.alive)])
        config = uvicorn.Config(
            api, host=host or settings.server.host,
            port=settings.server.port if port is None else port, proxy_headers=True,
            forwarded_allow_ips=settings.server.forwarded_allow_ips,
            timeout_graceful_shutdown=int(settings.server.shutdown_grace_s),
            log_level=settings.logging.level.lower(), access_log=False, server_header=False,
            log_config=None,
        )
        server = uvicorn.Server(config)
        # in a thread, uvicorn leaves the signals to us (the main thread)
        thread = threading.Thread(target=server.run, name="api", daemon=True)
        thread.start()
        click.echo(f"renamerd running: API on http://{config.host}:{config.port}", err=True)

        def stop_api() -> None:
            server.should_exit = True
            thread.join(settings.server.shutdown_grace_s + 5)

        run_until_signalled(daemon, stop_api)

    @app_command(cli, "worker")
    @click.option("--workers", type=int, default=None, help="worker threads (default: daemon.workers)")
    @click.option("--poll/--no-poll", default=True, show_default=True,
                  help="also poll connections (one process at a time holds each poll lease)")
    def worker(app: AppContext, workers: int | None, poll: bool) -> None:
        """Run workers (and polling) without the API: add processes to scale out on PostgreSQL."""
        from renamerd.runtime.daemon import run_until_signalled

        daemon = _start_daemon(app, workers, poll)
        click.echo(f"renamerd worker {daemon.identity} running", err=True)
        run_until_signalled(daemon)

    @cli.group()
    def jobs() -> None:
        """List, inspect and retry jobs."""

    @app_command(jobs, "list")
    @click.option("--state", type=click.Choice(J.STATES), default=None)
    @click.option("--connection", default=None, help="connection name")
    @click.option("--limit", type=int, default=100, show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="print JSON")
    def jobs_list(app: AppContext, state: str | None, connection: str | None, limit: int,
                  as_json: bool) -> None:
        """List jobs, newest first."""
        rows = J.JobQueue(app.db).find(state=state, connection=connection, limit=limit)
        if as_json:
            click.echo(json.dumps([job_json(j) for j in rows], indent=2, ensure_ascii=False))
            return
        for j in rows:
            where = j.dest_path if j.state == J.DONE else j.source_path
            note = f"  ({j.error})" if j.error and j.state != J.DONE else ""
            click.echo(f"{j.id:>6}  {j.state:<15} {j.connection:<12} {j.attempts:>2}  {where}{note}")

    @app_command(jobs, "show")
    @click.argument("job_id", type=int)
    def jobs_show(app: AppContext, job_id: int) -> None:
        """Print one job as JSON, with its journal entry."""
        try:
            job = J.JobQueue(app.db).get(job_id)
        except J.JobNotFound as err:
            raise CliError(str(err)) from err
        out = job_json(job)
        entry = Journal(app.db).for_job(job_id)
        out["journal"] = None if entry is None else {
            "id": entry.id, "old_path": entry.old_path, "new_path": entry.new_path,
            "created_at": entry.created_at.isoformat(),
        }
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))

    @app_command(jobs, "retry")
    @click.argument("job_id", type=int, required=False)
    @click.option("--state", type=click.Choice(J.RETRYABLE), default=None,
                  help="retry every job in this state")
    def jobs_retry(app: AppContext, job_id: int | None, state: str | None) -> None:
        """Queue a failed, skipped or pending_credits job again (by id, or all in --state)."""
        queue = J.JobQueue(app.db, app.settings.daemon, app.settings.credits)
        if (job_id is None) == (state is None):
            raise CliError("give a job id or --state, not both", exit_code=2)
        try:
            done = [queue.retry(job_id)] if job_id is not None else queue.retry_state(state or "")
        except (J.JobNotFound, ValueError) as err:
            raise CliError(str(err)) from err
        click.echo(f"queued {len(done)} job(s)")

    @app_command(cli, "undo")
    @click.argument("job_id", type=int, required=False)
    @click.option("--batch", default=None, help="undo a `renamerd rename --apply` batch")
    def undo(app: AppContext, job_id: int | None, batch: str | None) -> None:
        """Move a renamed file back where it came from (refunds nothing); never overwrites."""
        journal = Journal(app.db)
        if (job_id is None) == (batch is None):
            raise CliError("give a job id or --batch, not both", exit_code=2)
        if batch is not None:
            outcomes = journal.undo_batch(batch)
            if not outcomes:
                raise CliError(f"nothing to undo in batch {batch}")
            failed = [o for o in outcomes if not o.ok]
            for o in outcomes:
                click.echo(f"{'moved back' if o.ok else 'kept'}: {o.new_path} -> {o.old_path}"
                           + (f" ({o.message})" if o.message else ""))
            if failed:
                raise CliError(f"{len(failed)} of {len(outcomes)} file(s) not moved back")
            return
        from renamerd.runtime.worker import ConnectorPool

        entry = journal.for_job(job_id or 0)
        if entry is None:
            raise CliError(f"job {job_id} has no move to undo")
        pool = ConnectorPool(app.settings, app.db)
        if pool.config(entry.connection) is None:
            raise CliError(f"connection {entry.connection!r} is not configured")
        try:
            outcome = journal.undo_remote(entry, pool.get(entry.connection))
        except UndoError as err:
            raise CliError(str(err)) from err
        finally:
            pool.close()
        click.echo(f"moved back: {outcome.new_path} -> {outcome.old_path}")
