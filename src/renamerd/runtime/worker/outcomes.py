"""The worker's state and how trouble becomes a job's next state (retry, stop, lost)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from renamerd.config import Settings
from renamerd.connectors import AuthError, Connector, ConnectorError, TransientError
from renamerd.runtime.connector_pool import ConnectorPool, stop_connection
from renamerd.runtime.heartbeats import Heartbeats
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import Job

log = logging.getLogger("renamerd.worker")

#: outcome of `Worker.run_job` when the lease was lost midway
LOST = "lost"
#: seconds a job waits when its connection was stopped (auth) before it is looked at again
STOPPED_RETRY_S = 300.0
_T = TypeVar("_T")


class WorkerState:
    """What every step of a worker uses: settings, database, queue, connectors, credits; and
    `_guarded`, which turns a step's errors into the job's next state."""

    settings: Settings
    db: Database
    queue: J.JobQueue
    pool: ConnectorPool
    credits: Credits
    tmp_dir: Path
    heartbeats: Heartbeats
    #: owners whose last reservation failed (checked before the next download)
    _broke: set[str]

    def _guarded(self, job: Job, lease: J.Lease, step: Callable[[], _T]) -> _T | str:
        """`step()`, with every error turned into the job's next state (retry, stop, lost)."""
        try:
            return step()
        except J.LeaseLost:
            log.warning("job %d: lease lost to another worker; dropping it", lease.job_id)
            return LOST
        except AuthError as err:
            stop_connection(self.db, job.connection, str(err))
            self.pool.drop(job.connection)
            return self._retry(lease, f"connection stopped: {err}", STOPPED_RETRY_S, False)
        except TransientError as err:
            self.pool.drop(job.connection)
            return self._retry(lease, f"provider: {err}", err.retry_after)
        except ConnectorError as err:
            return self._retry(lease, f"provider: {type(err).__name__}: {err}", None)
        except Exception as err:  # engine bugs, provider outages of the LLM...
            log.warning("job %d: %s", lease.job_id, type(err).__name__, exc_info=True)
            return self._retry(lease, f"{type(err).__name__}: {err}"[:500], None)

    def _open(self, name: str) -> Connector:
        """The connector, or AuthError when it cannot be opened for good (bad options, an
        undecryptable stored token): the connection is then stopped like on a refused token."""
        try:
            return self.pool.get(name)
        except (TransientError, AuthError):
            raise
        except Exception as err:
            raise AuthError(f"cannot open the connection: {type(err).__name__}: {err}") from err

    def _retry(self, lease: J.Lease, error: str, after: float | None, count: bool = True) -> str:
        def go() -> str:
            job = self.queue.retry_later(lease, error, retry_after=after, count_attempt=count)
            if job.state == J.FAILED and job.charge_ref:
                self.credits.refund(job.owner_id, job.charge_ref, reason="job failed")
            return job.state

        return self._safe(go)

    def _safe(self, fn: Callable[[], str]) -> str:
        try:
            return fn()
        except J.LeaseLost:
            return LOST
