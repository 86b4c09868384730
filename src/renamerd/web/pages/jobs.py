"""The Jobs page: the user's documents, newest first, paged, filtered, searched; Undo, Rename
again and Retry; updated live by `static/app.js` polling `/jobs/live` (a small JSON answer
with the rows), and complete without JavaScript."""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import JSONResponse, Response

from renamerd.runtime.job_actions import job_actions
from renamerd.service import jobs as J
from renamerd.service.job_views import JobFilter, JobPage, JobView
from renamerd.service.undo import JobActionError
from renamerd.service.web_sessions import SignedIn
from renamerd.web.errors import WebError, not_found
from renamerd.web.render import page, redirect, render_fragment
from renamerd.web.security import SignInRequired, checked, require_user, safe_next
from renamerd.web.state import WebState, web_state

router = APIRouter(include_in_schema=False)
PAGE = Query(1, alias="page", ge=1, le=100_000)

#: the states in the filter, with their words
STATE_CHOICES = [
    ("", "Any state"), ("queued", "Waiting"), ("running", "Renaming now"), ("done", "Renamed"),
    ("pending_credits", "Waiting for credits"), ("failed", "Failed"), ("skipped", "Skipped"),
    ("undone", "Undone"),
]
STATE_WORDS = {"queued": "waiting", "running": "renaming", "done": "renamed",
               "pending_credits": "waiting for credits", "failed": "failed",
               "skipped": "skipped", "undone": "undone"}
#: done jobs that were not renamed (the confidence policy), in the badge instead of "renamed"
OUTCOME_WORDS = {"kept": "kept its name", "review": "to review"}


def _filter(state: str, connection: str, q: str, page_no: int) -> JobFilter:
    try:
        return JobFilter(state=state, connection=connection, q=q, page=page_no).clean()
    except ValueError as err:
        raise WebError(400, str(err), "INVALID_REQUEST") from err


def _query(f: JobFilter, **change: Any) -> str:
    values = {"state": f.state or "", "connection": f.connection or "", "q": f.q or "",
              "page": f.page, **change}
    return urlencode({k: v for k, v in values.items() if v not in ("", None, 1)})


def _banner(state: WebState, user_id: str) -> str:
    waiting = state.jobs.waking(user_id)
    if not waiting or not state.credits.enabled:
        return ""
    days = state.settings.credits.resume_max_age_days
    return (f"{waiting} document{'s' if waiting != 1 else ''} wait{'' if waiting != 1 else 's'} "
            f"for credits: {waiting} credit{'s' if waiting != 1 else ''} would rename "
            f"{'them all' if waiting != 1 else 'it'}. A grant wakes documents at most "
            f"{days} days old.")


def _rows(request: Request, listing: JobPage, back: str) -> str:
    return render_fragment(request, "_job_rows.html", jobs=listing.jobs, back=back,
                           state_words=STATE_WORDS, outcome_words=OUTCOME_WORDS)


def _version(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


@router.get("/jobs")
def jobs_page(request: Request, state: str = "", connection: str = "", q: str = "",
              page_no: int = PAGE, me: SignedIn = Depends(require_user)) -> Response:
    web = web_state(request)
    f = _filter(state, connection, q, page_no)
    listing = web.jobs.page(me.user.id, f)
    back = "/jobs" + (f"?{_query(f)}" if _query(f) else "")
    rows = _rows(request, listing, back)
    banner = _banner(web, me.user.id)
    return page(
        request, "jobs.html", title="Jobs", listing=listing, rows=rows, banner=banner,
        filter=f, state_choices=STATE_CHOICES, connections=web.jobs.connections(me.user.id),
        live_url="/jobs/live" + (f"?{_query(f)}" if _query(f) else ""),
        version=_version(rows, listing.total, banner),
        interval=web.settings.web.live_update_s,
        newer=f"/jobs?{_query(f, page=f.page - 1)}" if f.page > 1 else "",
        older=f"/jobs?{_query(f, page=f.page + 1)}" if f.page < listing.pages else "",
    )


@router.get("/jobs/live")
def jobs_live(request: Request, state: str = "", connection: str = "", q: str = "",
              page_no: int = PAGE, me: SignedIn = Depends(require_user)) -> Response:
    """The rows of the Jobs page as JSON: {version, rows (HTML), total, banner}."""
    web = web_state(request)
    f = _filter(state, connection, q, page_no)
    listing = web.jobs.page(me.user.id, f)
    back = "/jobs" + (f"?{_query(f)}" if _query(f) else "")
    rows = _rows(request, listing, back)
    banner = _banner(web, me.user.id)
    return JSONResponse({"version": _version(rows, listing.total, banner), "rows": rows,
                         "total": listing.total, "banner": banner})


@router.get("/jobs/{job_id}")
def job_page(request: Request, job_id: int, me: SignedIn = Depends(require_user)) -> Response:
    try:
        job = web_state(request).jobs.get(me.user.id, job_id)
    except J.JobNotFound:
        raise not_found("job") from None
    return page(request, "job.html", title=f"Job {job_id}", job=job, back=f"/jobs/{job_id}",
                state_words=STATE_WORDS, outcome_words=OUTCOME_WORDS)


def _act(request: Request, me: SignedIn | None, job_id: int, action: str, back: str) -> Response:
    if me is None:
        raise SignInRequired("/jobs")
    web = web_state(request)
    actions = job_actions(web.settings, web.db)
    act = {"undo": actions.undo, "rename_again": actions.rename_again, "retry": actions.retry}
    back = safe_next(back) if back.startswith("/jobs") else "/jobs"
    try:
        job = act[action](me.user.id, job_id)
    except J.JobNotFound:
        raise not_found("job") from None
    except JobActionError as err:
        if "text/html" not in request.headers.get("accept", ""):
            raise WebError(409, str(err), "CONFLICT") from err
        return redirect(request, back, f"Nothing changed: {err}", "error")
    if "text/html" not in request.headers.get("accept", ""):
        return JSONResponse(job.to_json())
    return redirect(request, back, _done_message(action, job))


def _done_message(action: str, job: JobView) -> str:
    if action == "undo":
        return f"Moved back: {job.original_name} is in {job.original_folder} again."
    if action == "rename_again":
        return f"{job.original_name} will be renamed again in a moment."
    return f"{job.original_name} will be tried again in a moment."


@router.post("/jobs/{job_id}/undo")
def job_undo(request: Request, job_id: int, back: str = Form("/jobs"),
             me: SignedIn | None = Depends(checked)) -> Response:
    return _act(request, me, job_id, "undo", back)


@router.post("/jobs/{job_id}/rename-again")
def job_rename_again(request: Request, job_id: int, back: str = Form("/jobs"),
                     me: SignedIn | None = Depends(checked)) -> Response:
    return _act(request, me, job_id, "rename_again", back)


@router.post("/jobs/{job_id}/retry")
def job_retry(request: Request, job_id: int, back: str = Form("/jobs"),
              me: SignedIn | None = Depends(checked)) -> Response:
    return _act(request, me, job_id, "retry", back)
