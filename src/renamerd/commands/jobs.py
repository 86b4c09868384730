"""`renamerd jobs ...` (list, show, retry) and `renamerd undo`."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command
from renamerd.service import jobs as J
from renamerd.service.job_views import describe_kept
from renamerd.service.journal import Journal
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


@click.group()
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
        if j.state == J.DONE:  # a document that kept its name says so (confidence policy)
            kept = describe_kept(job_json(j).get("result") or {})
            note = f"  ({kept})" if kept else ""
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


@app_command(name="undo")
@click.argument("job_id", type=int, required=False)
@click.option("--batch", default=None, help="undo a `renamerd rename --apply` batch")
def undo(app: AppContext, job_id: int | None, batch: str | None) -> None:
    """Move a renamed file back where it came from (refunds nothing); never overwrites. The
    job becomes `undone` (as the web app's Undo)."""
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
    from renamerd.runtime.job_actions import job_actions
    from renamerd.service.undo import JobActionError

    assert job_id is not None
    try:
        job = J.JobQueue(app.db).get(job_id)
    except J.JobNotFound as err:
        raise CliError(str(err)) from err
    if job.state == J.UNDONE:  # a second undo: say so, not that there was never a move
        raise CliError(f"job {job_id} is already undone")
    entry = journal.for_job(job_id)
    if entry is None:
        raise CliError(f"job {job_id} has no move to undo")
    try:
        job_actions(app.settings, app.db).undo(job.owner_id, job_id)
    except (J.JobNotFound, JobActionError) as err:
        raise CliError(str(err)) from err
    click.echo(f"moved back: {entry.new_path} -> {entry.old_path}")


def register(cli: click.Group) -> None:
    cli.add_command(jobs)
    cli.add_command(undo)  # type: ignore[arg-type]
