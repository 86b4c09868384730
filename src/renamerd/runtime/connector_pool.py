"""Opened connectors, one per (connection, thread), and stopping a connection that needs a person."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import Connector, open_connector
from renamerd.service.connections import all_connections
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState

log = logging.getLogger("renamerd.worker")


class ConnectorPool:
    """Opened connectors, one per (connection, thread) since a connector is used from one thread
    at a time. Secrets come from `secrets_store.connector_options` when that module exists."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        self.by_name = {c.name: c for c in all_connections(settings, db)}
        self._local = threading.local()
        self._all: list[Connector] = []
        self._lock = threading.Lock()
        #: bumped when a connection's settings change: cached connectors of an older one reopen
        self._generation: dict[str, int] = {}

    def reconfigure(self, connections: list[ConnectionSettings]) -> list[str]:
        """New connection settings (a config reload). Returns the names added, removed or
        changed; every thread's connector of such a name is reopened on its next use. Safe to
        repeat."""
        new = {c.name: c for c in connections}
        with self._lock:
            changed = sorted(n for n in set(self.by_name) | set(new)
                             if self.by_name.get(n) != new.get(n))
            for name in changed:
                self._generation[name] = self._generation.get(name, 0) + 1
            self.by_name = new
        return changed

    def config(self, name: str) -> ConnectionSettings | None:
        return self.by_name.get(name)

    def get(self, name: str) -> Connector:
        """This thread's connector for connection `name`. Raises KeyError for an unknown
        connection, ConnectorError (ConfigError, AuthError) when it cannot be opened."""
        cache: dict[str, tuple[int, Connector]] = getattr(self._local, "cache", None) or {}
        self._local.cache = cache
        generation = self._generation.get(name, 0)
        cached = cache.get(name)
        if cached is not None and cached[0] != generation:  # its settings changed: reopen
            _close(cache.pop(name)[1])
            cached = None
        if cached is None:
            cached = cache[name] = (generation, self.open_new(name))
        return cached[1]

    def open_new(self, name: str) -> Connector:
        """A new connector for `name`, closed by `close()`. Same errors as `get`."""
        conf = self.by_name[name]
        state_dir = str(Path(self.settings.daemon.state_dir) / "connections" / name)
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        connector = open_connector(conf.provider, self._options(conf), name=name,
                                   state_dir=state_dir)
        self._keep_rotated_tokens(conf, connector)
        with self._lock:
            self._all.append(connector)
        return connector

    def _options(self, conf: ConnectionSettings) -> dict[str, Any]:
        try:
            from renamerd.service import secrets as secrets_store  # type: ignore[attr-defined]
        except ImportError:
            return dict(conf.options)
        return dict(secrets_store.connector_options(self.db, self.settings, conf))

    def _keep_rotated_tokens(self, conf: ConnectionSettings, connector: Connector) -> None:
        """Providers that rotate refresh tokens (Microsoft: on every refresh) announce the new
        one through `on_token_rotated`; store it encrypted, so a restart months later still
        signs in. Only for tokens that came from the store (the config file is the admin's)."""
        if not hasattr(connector, "on_token_rotated"):
            return
        if "refresh_token" in conf.options or "refresh_token_file" in conf.options:
            return
        from renamerd.service import secrets as secrets_store

        if not secrets_store.has_key(self.settings):
            return

        def store(token: str) -> None:
            try:
                secrets_store.store_refresh_token(self.db, self.settings, conf.name, token)
            except Exception:  # never let bookkeeping break a provider call
                log.warning("could not store the rotated refresh token of %s", conf.name)

        connector.on_token_rotated = store

    def drop(self, name: str) -> None:
        """Forget this thread's connector for `name` (reopened on next use)."""
        cache = getattr(self._local, "cache", {})
        cached = cache.pop(name, None)
        if cached is not None:
            _close(cached[1])

    def close(self) -> None:
        with self._lock:
            connectors, self._all = self._all, []
        for c in connectors:
            _close(c)


def _close(connector: Connector) -> None:
    try:
        connector.close()
    except Exception:
        log.debug("closing a connector failed", exc_info=True)


#: called as listener(name, message) after a connection was stopped (notifications)
StopListener = Callable[[str, str], None]
_stop_listeners: list[StopListener] = []


def add_stop_listener(listener: StopListener) -> None:
    """Call `listener(name, message)` after every `stop_connection` in this process. Idempotent."""
    if listener not in _stop_listeners:
        _stop_listeners.append(listener)


def stop_connection(db: Database, name: str, message: str) -> None:
    """Mark connection `name` stopped with `message` (an AuthError: a person must reconnect),
    then tell the stop listeners (which must not raise; a failing one is logged)."""
    with db.write_session() as s:
        state = s.get(ConnectionState, name) or ConnectionState(name=name)
        state.status = "stopped"
        state.error = message[:2000]
        s.add(state)
    log.error("connection %s stopped: %s", name, message)
    for listener in list(_stop_listeners):
        try:
            listener(name, message)
        except Exception:
            log.exception("stop listener failed")


def list_folders(settings: Settings, db: Database, conf: ConnectionSettings, path: str
                 ) -> list[str]:
    """The folders in `path` of connection `conf` (also one the daemon does not poll yet: a
    web connection whose folders are being chosen), through a connector opened for this call.
    Raises like `Connector.list_folders` and like opening it."""
    pool = ConnectorPool(settings, db)
    pool.by_name[conf.name] = conf
    try:
        return pool.open_new(conf.name).list_folders(path)
    finally:
        pool.close()
