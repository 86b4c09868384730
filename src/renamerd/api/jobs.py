"""Jobs of the token's owner (extensions of the v1 API): list them, and Undo, Rename again and
Retry one. The Jobs page calls the same services (`service.job_views`, `service.undo`).

Another user's job answers 404 exactly like a job that does not exist, and nothing changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from renamerd.api.auth import current_user
from renamerd.api.errors import ApiError, error_responses
from renamerd.runtime.job_actions import job_actions
from renamerd.service import jobs as J
from renamerd.service.job_views import MAX_PER_PAGE, JobFilter, JobView, JobViews
from renamerd.service.undo import JobActionError
from renamerd.storage.models import User

router = APIRouter(prefix="/api/v1", tags=["jobs (extension)"])

JobState = Literal[J.STATES]  # type: ignore[valid-type]


class JobOut(BaseModel):
    id: int
    state: JobState = Field(description="queued, running, done, failed, skipped, "
                            "pending_credits or undone")
    connection: str = Field(description="the watched folder or drive it came from")
    originalName: str
    originalFolder: str
    newName: str | None = Field(description="the name it was given (planned while running)")
    newFolder: str | None
    createdAt: datetime
    updatedAt: datetime
    finishedAt: datetime | None
    extractedInfo: dict[str, Any] = Field(description="date, issuer, invoice_number, "
                                          "document_type: those found")
    confidence: float | None
    reason: str | None = Field(description="why it failed, was skipped or waits, or (done) "
                               "why it kept its name, in words")
    outcome: Literal["renamed", "kept", "review"] | None = Field(
        default=None, description="done jobs: renamed; kept (its name kept, left in place, no "
        "credit); review (its name kept, moved to the review folder, no credit)")
    attempts: int
    expiresAt: datetime | None = Field(
        description="pending_credits: until when a credit grant wakes it")
    actions: list[Literal["undo", "rename_again", "retry"]] = Field(
        description="what the owner may do with it now")


class JobListOut(BaseModel):
    jobs: list[JobOut]
    total: int
    page: int
    perPage: int
    pages: int


def job_out(view: JobView) -> JobOut:
    return JobOut(
        id=view.id, state=view.state, connection=view.connection,
        originalName=view.original_name, originalFolder=view.original_folder,
        newName=view.new_name, newFolder=view.new_folder, createdAt=view.created_at,
        updatedAt=view.updated_at, finishedAt=view.finished_at, extractedInfo=view.fields,
        confidence=view.confidence, reason=view.reason, attempts=view.attempts,
        expiresAt=view.expires_at, actions=list(view.actions),  # type: ignore[arg-type]
        outcome=view.outcome,  # type: ignore[arg-type]
    )


def _views(request: Request) -> JobViews:
    return JobViews(request.app.state.db, request.app.state.settings.credits)


@router.get("/jobs", response_model=JobListOut, responses=error_responses(400, 401, 429, 500))
def list_jobs(
    request: Request, user: User = Depends(current_user),
    state: JobState | None = Query(None, description="only jobs in this state"),
    connection: str | None = Query(None, max_length=200, description="only this connection"),
    q: str | None = Query(None, max_length=200, description="part of a file or folder name"),
    page: int = Query(1, ge=1, le=100_000), per_page: int = Query(
        25, alias="perPage", ge=1, le=MAX_PER_PAGE),
) -> JobListOut:
    """The owner's jobs, newest first, a page at a time."""
    listing = _views(request).page(user.id, JobFilter(state, connection, q, page, per_page))
    return JobListOut(jobs=[job_out(j) for j in listing.jobs], total=listing.total,
                      page=listing.page, perPage=listing.per_page, pages=listing.pages)


@router.get("/jobs/{job_id}", response_model=JobOut,
            responses=error_responses(401, 404, 429, 500))
def get_job(request: Request, job_id: int, user: User = Depends(current_user)) -> JobOut:
    """One of the owner's jobs."""
    try:
        return job_out(_views(request).get(user.id, job_id))
    except J.JobNotFound as err:
        raise ApiError(404, f"no job with id {job_id}") from err


def _act(request: Request, user: User, job_id: int, action: str) -> JobOut:
    state = request.app.state
    actions = job_actions(state.settings, state.db)
    act = {"undo": actions.undo, "rename_again": actions.rename_again, "retry": actions.retry}
    try:
        return job_out(act[action](user.id, job_id))
    except J.JobNotFound as err:
        raise ApiError(404, f"no job with id {job_id}") from err
    except JobActionError as err:
        raise ApiError(409, str(err), "CONFLICT") from err


ACTION_ERRORS = error_responses(401, 404, 409, 429, 500)


@router.post("/jobs/{job_id}/undo", response_model=JobOut, responses=ACTION_ERRORS)
def undo_job(request: Request, job_id: int, user: User = Depends(current_user)) -> JobOut:
    """Move a done job's file back to its original folder and name (never overwriting); the
    job becomes `undone` and the daemon leaves the file alone. No credit is refunded. 409 when
    the job is not done, the file is gone or its old name is taken."""
    return _act(request, user, job_id, "undo")


@router.post("/jobs/{job_id}/rename-again", response_model=JobOut, responses=ACTION_ERRORS)
def rename_job_again(request: Request, job_id: int, user: User = Depends(current_user)
                     ) -> JobOut:
    """Queue an undone job anew: it is renamed and filed again (no second charge). 409 when
    the job is not undone."""
    return _act(request, user, job_id, "rename_again")


@router.post("/jobs/{job_id}/retry", response_model=JobOut, responses=ACTION_ERRORS)
def retry_job(request: Request, job_id: int, user: User = Depends(current_user)) -> JobOut:
    """Queue a failed, skipped or pending_credits job again now. 409 in another state."""
    return _act(request, user, job_id, "retry")
