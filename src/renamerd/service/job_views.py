"""Jobs as their owner sees them: newest first, paged, filtered by state and connection,
searched by name; each with where the file came from and went, the extracted fields, and what
went wrong in words. The Jobs page and `GET /api/v1/jobs` read through here.

Every look-up is scoped to an owner: another user's job is `JobNotFound`, exactly like a job
that does not exist.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import col, select

from renamerd.config import CreditsSettings
from renamerd.service.jobs import states as S
from renamerd.storage.database import Database
from renamerd.storage.models import Job, utcnow

MAX_PER_PAGE = 200
#: the fields of the engine's extractedInfo shown beside a job, in this order
FIELDS = ("date", "issuer", "invoice_number", "document_type")


@dataclass(frozen=True)
class JobFilter:
    """What to list: `state`, `connection` (None: all), `q` (part of a name or folder), page."""

    state: str | None = None
    connection: str | None = None
    q: str | None = None
    page: int = 1
    per_page: int = 25

    def clean(self) -> JobFilter:
        """The filter with empty values dropped and the page bounds applied; ValueError for an
        unknown state."""
        state = self.state or None
        if state is not None and state not in S.STATES:
            raise ValueError(f"state must be one of {', '.join(S.STATES)}")
        return JobFilter(state=state, connection=self.connection or None,
                         q=(self.q or "").strip()[:200] or None, page=max(1, self.page),
                         per_page=min(MAX_PER_PAGE, max(1, self.per_page)))


@dataclass(frozen=True)
class JobView:
    """One job in words and plain values (also the JSON of the API)."""

    id: int
    state: str
    connection: str
    original_name: str
    original_folder: str
    #: where it went (done, undone: where it was), else where it was to go (the plan)
    new_name: str | None
    new_folder: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    fields: dict[str, Any]
    confidence: float | None
    #: why it failed, was skipped or waits, in words (None when nothing is wrong)
    reason: str | None
    attempts: int
    #: pending_credits: when a grant stops waking it (credits.resume_max_age_days)
    expires_at: datetime | None = None
    actions: tuple[str, ...] = field(default=())
    #: a done job: "renamed", "kept" (its name kept, left in place) or "review" (its name
    #: kept, moved to the review folder); None for the other states
    outcome: str | None = None

    @property
    def current_name(self) -> str:
        """The file's name now: the new one once renamed (done); else the original, which a
        failed, waiting or undone job's file has (its planned name was never given to it, or
        was taken back)."""
        return self.new_name if self.state == S.DONE and self.new_name else self.original_name

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("created_at", "updated_at", "finished_at", "expires_at"):
            out[key] = out[key].isoformat() if out[key] is not None else None
        out["actions"] = list(self.actions)
        return out


@dataclass(frozen=True)
class JobPage:
    jobs: list[JobView]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))


def _folder_and_name(path: str | None) -> tuple[str | None, str | None]:
    if not path:
        return None, None
    folder, name = posixpath.split(path)
    return folder or "/", name


_REASONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^insufficient credits"), "waits for credits: the account had none left"),
    (re.compile(r"^kept: (.*)"), "kept its name, no credit charged: {0}"),
    (re.compile(r"^suggested: (.*)"), "suggested {0}"),
    (re.compile(r"^paused: (.*)"), "paused: {0} (it resumes when the account is enabled)"),
    (re.compile(r"^UnsupportedDocument: (.*)"), "not a document renamerd reads: {0}"),
    (re.compile(r"^DocumentTooLarge: (.*)"), "too large to read: {0}"),
    (re.compile(r"^UnreadableDocument: (.*)"), "the document could not be read: {0}"),
    (re.compile(r"^too large: (.*)"), "the file is too large ({0})"),
    (re.compile(r"^connection stopped: (.*)"),
     "the drive refused access; its connection must be connected again ({0})"),
    (re.compile(r"^provider: (?:TransientError: )?(.*)"), "the drive answered with an error: {0}"),
    (re.compile(r"^connection '(.*)' is not configured here"),
     "its connection {0} is not configured any more"),
]


def describe_error(state: str, error: str | None) -> str | None:
    """What went wrong, in words a person reads (None when nothing did)."""
    if not error or state in (S.DONE, S.UNDONE):
        return None
    text = error.strip()
    suffix = ""
    tried = re.search(r" \(after (\d+) attempts\)$", text)
    if tried:
        text = text[: tried.start()]
        suffix = f"; gave up after {tried.group(1)} attempts"
    for pattern, words in _REASONS:
        match = pattern.match(text)
        if match:
            return words.format(*match.groups()) + suffix
    if state == S.QUEUED:
        return f"will be tried again: {text}"
    return text + suffix


_UNREAD = {"date": "the date", "issuer": "the issuer", "document_type": "the document type",
           "invoice_number": "the number", "amount": "the amount"}


def outcome_of(state: str, summary: dict[str, Any]) -> str | None:
    """"renamed", "kept" or "review" for a done job (from its recorded result), else None."""
    if state != S.DONE:
        return None
    kept = summary.get("kept") or {}
    if kept.get("reason") == "below_confidence" or summary.get("renamed") is False:
        return "review" if kept.get("policy") == "review" else "kept"
    return "renamed"


def describe_kept(summary: dict[str, Any]) -> str | None:
    """Why a done job kept (part of) its name, in words: "kept its name: nothing could be
    read (confidence 0.07, under 0.50)"; None when nothing was kept."""
    kept = summary.get("kept")
    if not isinstance(kept, dict):
        return None
    unread = [_UNREAD.get(f, str(f)) for f in kept.get("fields") or []]
    if kept.get("reason") == "unread_fields":
        return (f"renamed; \"{kept.get('text', '')}\" of its name was kept where "
                f"{' and '.join(unread) or 'some fields'} could not be read")
    if len(unread) >= 3 or not unread:
        what = "nothing could be read" if unread else "too little could be read"
    else:
        what = f"{' and '.join(unread)} could not be read"
    where = " and was moved to the review folder" if kept.get("policy") == "review" else ""
    confidence, threshold = kept.get("confidence"), kept.get("threshold")
    numbers = (f" (confidence {confidence:.2f}, under {threshold:.2f})"
               if isinstance(confidence, (int, float)) and isinstance(threshold, (int, float))
               else "")
    return f"kept its name{where}: {what}{numbers}; no credit charged"


def actions_for(state: str, outcome: str | None = None) -> tuple[str, ...]:
    """What the owner may do with a job in `state`: undo, rename_again, retry. A job that
    kept its name in place was not moved: nothing to undo."""
    if state == S.DONE:
        return () if outcome == "kept" else ("undo",)
    if state == S.UNDONE:
        return ("rename_again",)
    if state in S.RETRYABLE:
        return ("retry",)
    return ()


def view(job: Job, credits: CreditsSettings | None = None) -> JobView:
    """The JobView of a job row."""
    credits = credits or CreditsSettings()
    summary: dict[str, Any] = {}
    if job.result:
        try:
            summary = json.loads(job.result)
        except ValueError:
            summary = {}
    info = summary.get("extractedInfo") or {}
    new_folder, new_name = _folder_and_name(job.dest_path)
    if new_name is None and job.planned_name is not None:
        new_folder, new_name = job.planned_folder, job.planned_name
    old_folder, _ = _folder_and_name(job.source_path)
    expires = None
    outcome = outcome_of(job.state, summary)
    reason = describe_error(job.state, job.error)
    if job.state == S.DONE:
        reason = describe_kept(summary)
    if job.state == S.PENDING_CREDITS:
        expires = job.created_at + timedelta(days=credits.resume_max_age_days)
    return JobView(
        id=int(job.id or 0), state=job.state, connection=job.connection,
        original_name=job.name, original_folder=old_folder or "/",
        new_name=new_name, new_folder=new_folder, created_at=job.created_at,
        updated_at=job.updated_at, finished_at=job.finished_at,
        fields={k: info[k] for k in FIELDS if info.get(k)},
        confidence=summary.get("confidence"), reason=reason, attempts=job.attempts,
        expires_at=expires, actions=actions_for(job.state, outcome), outcome=outcome,
    )


def _like(q: str) -> str:
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class JobViews:
    """Reading an owner's jobs on one database."""

    def __init__(self, db: Database, credits: CreditsSettings | None = None) -> None:
        self.db = db
        self.credits = credits or CreditsSettings()

    def page(self, owner_id: str, wanted: JobFilter) -> JobPage:
        """One page of the owner's jobs, newest first. ValueError for an unknown state."""
        f = wanted.clean()
        where = [col(Job.owner_id) == owner_id]
        if f.state:
            where.append(col(Job.state) == f.state)
        if f.connection:
            where.append(col(Job.connection) == f.connection)
        if f.q:
            pattern = _like(f.q)
            where.append(or_(*(c.ilike(pattern, escape="\\") for c in (
                col(Job.name), col(Job.source_path), col(Job.dest_path),
                col(Job.planned_name)))))
        with self.db.session() as s:
            total = int(s.exec(select(func.count()).select_from(Job).where(*where)).one())
            rows = list(s.exec(select(Job).where(*where).order_by(col(Job.id).desc())
                               .offset((f.page - 1) * f.per_page).limit(f.per_page)))
        return JobPage([view(j, self.credits) for j in rows], total, f.page, f.per_page)

    def get(self, owner_id: str, job_id: int) -> JobView:
        """The owner's job; JobNotFound when it does not exist or is someone else's."""
        return view(self.row(owner_id, job_id), self.credits)

    def row(self, owner_id: str, job_id: int) -> Job:
        """The owner's job row; JobNotFound when it does not exist or is someone else's."""
        S.check_job_id(job_id)
        with self.db.session() as s:
            job = s.get(Job, job_id)
        if job is None or job.owner_id != owner_id:
            raise S.JobNotFound(f"no job with id {job_id}")
        return job

    def counts(self, owner_id: str) -> dict[str, int]:
        """The owner's jobs per state (every state, zeros included)."""
        out = dict.fromkeys(S.STATES, 0)
        with self.db.session() as s:
            for state, n in s.exec(select(Job.state, func.count())  # type: ignore[call-overload]
                                   .where(col(Job.owner_id) == owner_id).group_by(Job.state)):
                out[state] = int(n)
        return out

    def connections(self, owner_id: str) -> list[str]:
        """The names of the connections the owner has jobs in, sorted."""
        with self.db.session() as s:
            return sorted(s.exec(select(Job.connection).where(  # type: ignore[call-overload]
                col(Job.owner_id) == owner_id).distinct()))

    def waking(self, owner_id: str) -> int:
        """How many of the owner's pending_credits jobs a grant would wake now (those at most
        credits.resume_max_age_days old): one credit each renames them all."""
        oldest = utcnow() - timedelta(days=self.credits.resume_max_age_days)
        with self.db.session() as s:
            return int(s.exec(select(func.count()).select_from(Job).where(
                col(Job.owner_id) == owner_id, col(Job.state) == S.PENDING_CREDITS,
                col(Job.created_at) >= oldest)).one())
