"""The worker: claimed jobs taken end to end, exactly once (see `worker.worker`)."""

from renamerd.runtime.connector_pool import ConnectorPool, stop_connection
from renamerd.runtime.heartbeats import Heartbeat, Heartbeats
from renamerd.runtime.worker.outcomes import LOST, STOPPED_RETRY_S
from renamerd.runtime.worker.reading import PREFETCH_BYTES, SPOOL_BYTES
from renamerd.runtime.worker.worker import EngineFn, Worker, default_engine

__all__ = [
    "LOST", "PREFETCH_BYTES", "SPOOL_BYTES", "STOPPED_RETRY_S", "ConnectorPool", "EngineFn",
    "Heartbeat", "Heartbeats", "Worker", "default_engine", "stop_connection",
]
