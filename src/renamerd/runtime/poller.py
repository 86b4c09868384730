"""Polling connections: take a connection's poll lease, ask its provider what changed since the
stored cursor, and write the new files as jobs with the new cursor in one transaction.

A poll first takes the connection's *poll lease* in `connection_states` (owner + expiry), so
with many processes on one database a connection is polled by one process at a time; the lease
is renewed on every poll and handed over when it expires. Providers with a long poll (Dropbox)
are polled back to back by `loop` in a thread of their own; the others by the scheduler.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from sqlalchemy.exc import IntegrityError

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import AuthError, Connector, ConnectorError, TransientError, load_connector
from renamerd.runtime import notifications
from renamerd.runtime import observability as obs
from renamerd.runtime.connector_pool import ConnectorPool, stop_connection
from renamerd.service import jobs as J
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState, User, utcnow

log = logging.getLogger("renamerd.daemon")

#: longest a poller keeps a moved cursor in memory before writing it (when no files are new)
CURSOR_FLUSH_S = 30.0
#: least time between two back-to-back polls of a long-polling connection
LONGPOLL_FLOOR_S = 0.2


def long_polls(conf: ConnectionSettings) -> bool:
    """Whether the connection's provider can wait for changes (a long poll)."""
    try:
        return hasattr(load_connector(conf.provider), "wait_for_changes")
    except ConnectorError:
        return False



class Poller:
    """The polls of one process. `owners` maps each connection to its owner's user id (set by
    the daemon at start). Thread-safe per connection (one poll of a connection at a time)."""

    def __init__(self, settings: Settings, db: Database, queue: J.JobQueue, pool: ConnectorPool,
                 identity: str, stopping: threading.Event) -> None:
        self.settings = settings
        self.db = db
        self.queue = queue
        self.pool = pool
        self.identity = identity
        self.stopping = stopping
        self.owners: dict[str, str] = {}
        #: per connection: the connector its polls use and the settings it was opened with
        self._poll_connectors: dict[str, tuple[ConnectionSettings, Connector]] = {}
        self._poll_locks: dict[str, threading.Lock] = {}
        #: per connection: the newest cursor and when it was last written to the database
        self._cursors: dict[str, tuple[str, float]] = {}
        #: polls writing their jobs now; `halt` waits for them, and none starts after it
        self._writing = 0
        self._writes = threading.Condition()

    def halt(self, timeout: float) -> bool:
        """Stop polling (sets `stopping`): from now on no poll writes jobs, not even one that
        was listing its folder when this was called (its files stay where they are, and its
        cursor unmoved, for the next start). Waits up to `timeout` seconds for the writes
        already under way (one transaction each); returns whether they ended in time."""
        with self._writes:
            self.stopping.set()
            return self._writes.wait_for(lambda: self._writing == 0, timeout)

    def poll(self, name: str) -> int:
        """Poll connection `name` once if this process holds (or takes) its poll lease.

        Returns the number of new jobs (0 when another process holds the lease or the
        connection is stopped). Never raises: provider errors are logged and counted.
        """
        return self._poll_once(name) or 0

    def _poll_once(self, name: str) -> int | None:
        """`poll`, telling apart a poll that reached the provider (the number of new jobs)
        from one that did not (None: stopping, no lease, stopped connection, an error).

        One poll of a connection at a time: when its settings change, the poll started for
        the old ones (a long poll's wait) may still be running while the new settings' first
        poll begins; the second waits for the first, then opens a connector of its own."""
        if self.stopping.is_set():
            return None
        with self._poll_locks.setdefault(name, threading.Lock()):
            return self._poll_locked(name)

    def _poll_locked(self, name: str) -> int | None:
        if self.stopping.is_set():
            return None
        conf = self.pool.config(name)
        if conf is None or not conf.enabled or self._owner_disabled(name):
            return None
        cursor = self._take_poll_lease(conf)
        if cursor is False:
            return None
        try:
            connector = self._poll_connector(conf)
            wait = getattr(connector, "wait_for_changes", None)
            if (callable(wait) and isinstance(cursor, str) and cursor
                    and not wait(cursor, min(conf.poll_seconds, 30.0))):
                return 0  # the provider's long poll says nothing changed
            changes = connector.changes(conf.watch, cursor if isinstance(cursor, str) else None,
                                        recursive=conf.recursive)
        except AuthError as err:
            obs.provider_error(name, "auth")
            stop_connection(self.db, name, str(err))
            self._drop_poll_connector(name)
            return None
        except TransientError as err:
            obs.provider_error(name, "transient")
            log.warning("poll of %s: %s", name, err)
            self._drop_poll_connector(name)
            notifications.poll_failed(name, str(err))
            return None
        except ConnectorError as err:
            obs.provider_error(name, type(err).__name__)
            log.warning("poll of %s: %s: %s", name, type(err).__name__, err)
            notifications.poll_failed(name, f"{type(err).__name__}: {err}")
            return None
        except Exception as err:
            if self.stopping.is_set():  # its connector was closed under a long poll
                log.debug("poll of %s ended by the stop", name, exc_info=True)
            else:
                log.exception("poll of %s failed", name)
                notifications.poll_failed(name, type(err).__name__)
            return None
        notifications.poll_succeeded(name)
        return self._record(conf, changes.files, changes.cursor,
                            cursor if isinstance(cursor, str) else None)

    def loop(self, conf: ConnectionSettings) -> None:
        """Polls back to back for providers with a long poll (Dropbox): each poll blocks in the
        provider's wait until something changes (or `poll_seconds` pass), so a new file is
        picked up at once instead of at the next scheduled poll. After a poll that did not reach
        the provider (no lease, an error), sleeps out the rest of `poll_seconds`: no busy loop."""
        while not self.stopping.is_set():
            if self.pool.config(conf.name) != conf:  # removed or changed by a reload
                return
            started = time.monotonic()
            if self._poll_once(conf.name) is not None:
                # the provider was asked: its next wait blocks until news; the floor keeps a
                # long poll that answers at once (a misbehaving server) from spinning
                self.stopping.wait(max(0.0, LONGPOLL_FLOOR_S - (time.monotonic() - started)))
                continue
            rest = conf.poll_seconds - (time.monotonic() - started)
            if rest > 0:
                self.stopping.wait(rest)

    def _owner_disabled(self, name: str) -> bool:
        """Whether the connection's owner is disabled (`renamerd users disable`): its folders
        are not polled until it is enabled again."""
        owner = self.owners.get(name)
        if owner is None:
            return False
        with self.db.session() as s:
            user = s.get(User, owner)
        return user is None or user.disabled

    def _take_poll_lease(self, conf: ConnectionSettings) -> str | None | bool:
        """Take or renew the poll lease; the stored cursor (None: none yet) or False when
        another process holds the lease or the connection is stopped."""
        now = utcnow()
        ttl = max(2 * conf.poll_seconds, 5.0) + 30.0 * hasattr(
            self._poll_connectors.get(conf.name, (None, None))[1], "wait_for_changes")
        with self.db.session() as s:  # the common cases need no write lock
            seen = s.get(ConnectionState, conf.name)
        if seen is not None:
            if seen.status == "stopped":
                return False
            if seen.poll_lease_until is not None:
                left = (seen.poll_lease_until - now).total_seconds()
                if seen.poll_owner not in (None, self.identity) and left > 0:
                    return False
                if seen.poll_owner == self.identity and left > ttl / 2:
                    return self._cursor_of(conf.name, seen.cursor)
        with self.db.write_session() as s:
            state = self._state_for_update(s, conf.name)
            if state.status == "stopped":
                return False
            if (state.poll_owner not in (None, self.identity) and state.poll_lease_until
                    and state.poll_lease_until > now):
                return False
            if state.poll_owner != self.identity:
                self._cursors.pop(conf.name, None)  # taking over: the stored cursor rules
            state.poll_owner = self.identity
            state.poll_lease_until = now + timedelta(seconds=ttl)
            s.add(state)
            return self._cursor_of(conf.name, state.cursor)

    def _cursor_of(self, name: str, stored: str | None) -> str | None:
        """The newest cursor while this process holds the lease: the one kept in memory
        (written to the database with new files, or every CURSOR_FLUSH_S), else the stored one."""
        cached = self._cursors.get(name)
        return cached[0] if cached is not None else stored

    def _state_for_update(self, s: object, name: str) -> ConnectionState:
        from sqlmodel import Session, select

        assert isinstance(s, Session)
        query = select(ConnectionState).where(ConnectionState.name == name).with_for_update()
        state = s.exec(query).first()
        if state is None:
            try:  # processes starting together all find no row: one insert wins
                with s.begin_nested():
                    s.add(ConnectionState(name=name))
            except IntegrityError:
                pass
            state = s.exec(query.execution_options(populate_existing=True)).one()
        return state

    def _record(self, conf: ConnectionSettings, files: list, cursor: str,  # type: ignore[type-arg]
                old_cursor: str | None = None) -> int:
        if not files and cursor == old_cursor:
            return 0  # an idle poll writes nothing
        written = self._cursors.get(conf.name, (None, 0.0))[1]
        if not files and time.monotonic() - written < CURSOR_FLUSH_S:
            # only the cursor moved (a local folder's settle counters, files leaving): keep it
            # in memory; an older stored cursor only re-reports files, which enqueue ignores
            self._cursors[conf.name] = (cursor, written)
            return 0
        with self._writes:
            if self.stopping.is_set():
                return 0  # stopping: no new jobs; the next start lists these files again
            self._writing += 1
        try:
            with self.db.write_session() as s:
                state = self._state_for_update(s, conf.name)
                if state.poll_owner != self.identity:
                    self._cursors.pop(conf.name, None)
                    return 0  # the lease moved on while we listed; the new owner will see them
                new = self.queue.enqueue_many(conf.name, self.owners[conf.name], files,
                                              session=s)
                state.cursor = cursor
                state.last_poll_at = utcnow()
                s.add(state)
        finally:
            with self._writes:
                self._writing -= 1
                self._writes.notify_all()
        self._cursors[conf.name] = (cursor, time.monotonic())
        J.emit_many((job, "new", J.QUEUED, {}) for job in new)
        if new:
            self.queue.notify()
        return len(new)

    def _poll_connector(self, conf: ConnectionSettings) -> Connector:
        held = self._poll_connectors.get(conf.name)
        if held is not None and held[0] == conf:
            return held[1]
        self._drop_poll_connector(conf.name)  # its settings changed: open it anew
        connector = self.pool.open_new(conf.name)
        self._poll_connectors[conf.name] = (conf, connector)
        return connector

    def _drop_poll_connector(self, name: str) -> None:
        held = self._poll_connectors.pop(name, None)
        if held is not None:
            connector = held[1]
            try:
                connector.close()
            except Exception:
                log.debug("close failed", exc_info=True)

    def reset_states(self) -> None:
        names = list(self.pool.by_name)
        with self.db.write_session() as s:
            for name in names:
                state = self._state_for_update(s, name)
                if state.status == "stopped":
                    log.info("connection %s was stopped (%s); trying it again", name, state.error)
                state.status, state.error = "ok", None
                s.add(state)

    def release_leases(self) -> None:
        try:
            with self.db.write_session() as s:
                for conf in list(self.pool.by_name.values()):
                    state = self._state_for_update(s, conf.name)
                    if state.poll_owner == self.identity:
                        cached = self._cursors.pop(conf.name, None)
                        if cached is not None:
                            state.cursor = cached[0]
                        state.poll_owner, state.poll_lease_until = None, None
                        s.add(state)
        except Exception:
            log.warning("could not release the poll leases", exc_info=True)
        for name in list(self._poll_connectors):
            self._drop_poll_connector(name)
