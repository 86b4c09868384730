"""What a worker carries through a batch: each job's context, the plans, and small pure helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from renamerd.config import ConnectionSettings
from renamerd.connectors import Connector, RemoteFile, join_path
from renamerd.engine.types import RenameResult
from renamerd.runtime.heartbeats import Heartbeat
from renamerd.service import jobs as J
from renamerd.storage.models import Job


@dataclass
class JobContext:
    job: Job
    lease: J.Lease
    conf: ConnectionSettings
    connector: Connector
    beat: Heartbeat


@dataclass
class BatchPlans:
    """What the jobs of one batch share before their plans are recorded, per (connection,
    folder): the folders ensured, and the names planned (so two jobs never plan one name)."""

    folders: dict[tuple[str, str], str] = field(default_factory=dict)
    taken: dict[tuple[str, str], list[str]] = field(default_factory=dict)


@dataclass
class Plan:
    """A fresh job, read and given a destination, not yet recorded."""

    c: JobContext
    folder: str
    folder_id: str
    name: str
    wanted: str
    summary: str
    #: False when the engine kept the document's name (confidence policy "review", or nothing
    #: better could be made): filed, but no credit is reserved or charged for it
    charged: bool = True


HasJob = TypeVar("HasJob", Plan, JobContext)


def by_owner(items: Iterable[HasJob]) -> list[tuple[str, list[HasJob]]]:
    """`items` grouped by their job's owner, in first-seen order."""
    groups: dict[str, list[HasJob]] = {}
    for item in items:
        job = item.c.job if isinstance(item, Plan) else item.job
        groups.setdefault(job.owner_id, []).append(item)
    return list(groups.items())


def reraise(err: BaseException) -> Callable[[], NoReturn]:
    def raise_it() -> NoReturn:
        raise err

    return raise_it



def same_file(job: Job, found: RemoteFile) -> bool:
    """Whether `found` (at the planned destination) is this job's file: the same id on
    providers with stable ids; on path-id providers (local) the same revision. Ids of path-id
    providers are normalised paths, so they are not compared with the planned path as typed in
    the config (a relative `target` would never match)."""
    return found.id == job.file_id or found.revision == job.revision


def join_folder(root: str, folder_path: str) -> str:
    """`folder_path` (the engine's "A/B") below `root`, dropping empty, "." and ".." parts."""
    folder = root.rstrip("/") or "/"
    for part in (folder_path or "").split("/"):
        if part and part not in (".", ".."):
            folder = join_path(folder, part)
    return folder


def result_summary(result: RenameResult) -> dict[str, Any]:
    """What a job records of the engine's answer (`Job.result`, read by service/job_views.py):
    the suggestion, the fields, whether it was renamed and what of its name was kept, why."""
    summary: dict[str, Any] = {
        "suggestedFilename": result.suggested_filename, "folderPath": result.folder_path,
        "confidence": round(float(result.confidence), 4),
        "extractedInfo": result.extracted_info, "renamed": bool(result.renamed),
    }
    if result.kept is not None:
        summary["kept"] = result.kept.to_api()
    return summary


def stays_in_place(result: RenameResult) -> bool:
    """True when the confidence policy "keep" applied: the file is neither moved nor renamed."""
    kept = result.kept
    return kept is not None and kept.reason == "below_confidence" and kept.policy == "keep"
