"""The statements of the job queue's hot path (SQLAlchemy Core, built once at import), and job
objects made from the rows they return."""

from __future__ import annotations

from sqlalchemy import and_, bindparam, func, insert, or_, update
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select

from renamerd.service.jobs.states import QUEUED, RUNNING
from renamerd.storage.models import Job

INSERT_JOBS = insert(Job).returning(col(Job.id), sort_by_parameter_order=True)
LAST_JOB_ID = select(func.max(Job.id))
JOBS_AFTER = select(Job.id, Job.file_id, Job.revision).where(
    col(Job.id) > bindparam("after"), col(Job.connection) == bindparam("connection"))
#: every column of a job row, None where the row has no value
_NO_VALUES: dict[str, object] = dict.fromkeys(Job.model_fields)
_mapped = False


def _configure() -> None:
    global _mapped
    configure_mappers()  # attribute access on new instances needs configured mappers
    _mapped = True


#: the columns a new job's row is written with (enqueue_many's rows)
NEW_JOB_COLUMNS = ("connection", "owner_id", "file_id", "revision", "source_path", "name",
                    "size", "state", "attempts", "lease_generation", "next_attempt_at",
                    "created_at", "updated_at")


#: the INSERT of new jobs on SQLite (their ids are read back after it: see `_insert`)
INSERT_NEW_JOBS = insert(Job)


def set_written(job: Job, values: dict[str, object]) -> None:
    """Give `job` (the caller's copy) the values just written to its row: straight into a
    detached copy (what `claim` hands out), as committed values into one a session holds (so
    the session has nothing to flush)."""
    if job._sa_instance_state.session_id is None:  # type: ignore[attr-defined]
        job.__dict__.update(values)
    else:
        for key, value in values.items():
            set_committed_value(job, key, value)


def loaded_job(values: dict[str, object]) -> Job:
    """A detached Job holding `values` (columns of a row just written or read), made the way
    the ORM makes the objects it loads: no validation, which is what makes `Job(**values)`
    ~30 times slower (it cost more than a poll's whole INSERT). Columns not in `values` are
    None. The object belongs to no session; do not `session.add` it."""
    if not _mapped:
        _configure()
    job: Job = Job._sa_class_manager.new_instance()  # type: ignore[attr-defined]
    job.__dict__.update(_NO_VALUES)
    job.__dict__.update(values)
    return job


DUE = or_(  # queued and due, or running with a lease that ran out (its worker died)
    and_(col(Job.state) == QUEUED, col(Job.next_attempt_at) <= bindparam("now")),
    and_(col(Job.state) == RUNNING, col(Job.lease_until) < bindparam("now")),
)
CLAIMABLE_PROBE = select(Job.id).where(DUE).limit(1)
#: another claimer's live lease (few jobs run at a time: the state index finds them)
OTHERS_AT_WORK = (select(Job.id).where(
    col(Job.state) == RUNNING, col(Job.lease_owner) != bindparam("owner"),
    col(Job.lease_until) >= bindparam("now")).limit(1))
JOBS = Job.__table__  # type: ignore[attr-defined]
EXPIRED = (
    select(Job.id).where(col(Job.state) == RUNNING, col(Job.lease_until) < bindparam("now"))
    .order_by(col(Job.lease_until)).limit(bindparam("limit")).with_for_update(skip_locked=True))
QUEUED_DUE = (
    select(Job.id).where(col(Job.state) == QUEUED, col(Job.next_attempt_at) <= bindparam("now"))
    .order_by(col(Job.next_attempt_at), col(Job.id)).limit(bindparam("limit"))
    .with_for_update(skip_locked=True))
#: UPDATE of the running job under a lease; the columns set are the other parameters given
#: (executed with one parameter set per job: SQLAlchemy makes the SET clause from their keys)
FENCED_UPDATE = update(Job).where(col(Job.id) == bindparam("job"),
                                   col(Job.lease_generation) == bindparam("gen"),
                                   col(Job.state) == RUNNING)
CLAIM = (update(Job).where(col(Job.id).in_(bindparam("jobs", expanding=True))).values(
    state=RUNNING, lease_owner=bindparam("owner"), lease_until=bindparam("until"),
    lease_generation=col(Job.lease_generation) + 1, attempts=col(Job.attempts) + 1,
    updated_at=bindparam("now")).returning(*JOBS.c))
LEASES_QUERY = select(Job.id, Job.lease_generation, Job.state).where(
    col(Job.id).in_(bindparam("jobs", expanding=True)))
LEASES = LEASES_QUERY
LEASES_FOR_UPDATE = LEASES_QUERY.with_for_update()
