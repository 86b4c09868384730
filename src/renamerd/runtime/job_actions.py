"""The owner's job actions (`service.undo.JobActions`) with connectors opened the way this
process opens them (`ConnectorPool`: the configuration, stored refresh tokens), for the web app
and the v1 API."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from renamerd.config import Settings
from renamerd.connectors import Connector
from renamerd.runtime.connector_pool import ConnectorPool
from renamerd.service.undo import JobActions
from renamerd.storage.database import Database


def job_actions(settings: Settings, db: Database) -> JobActions:
    """JobActions whose Undo opens the job's connection (and learns its target folder) for the
    move and closes it after. An unknown connection raises KeyError inside (JobActions says so
    in words)."""

    @contextlib.contextmanager
    def open_connector(name: str) -> Iterator[tuple[Connector, str]]:
        pool = ConnectorPool(settings, db)
        try:
            config = pool.config(name)
            if config is None:
                raise KeyError(name)
            yield pool.get(name), config.target_root
        finally:
            pool.close()

    return JobActions(db, settings, open_connector)
