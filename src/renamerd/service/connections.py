"""Connections users make themselves (the web app's Connections page, `/api/v1/connections`).

The config file's `[[connections]]` stay as they are, read-only for users; these are rows of
`user_connections`, each owned by one user, each with its refresh token stored encrypted under
its name (service/secrets.py) and its provider's app settings from `[providers.<provider>]`.
`all_connections` gives the daemon both kinds as `ConnectionSettings`; every daemon process reads
them again every few seconds (runtime/daemon.py), so a change takes effect within one poll,
without a restart, on every process sharing the database.

Every method takes the acting user's id: another user's connection is `ConnectionNotFound`,
exactly as one that does not exist, and nothing changes.
"""

from __future__ import annotations

import logging
import secrets as random
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, delete, select

from renamerd.config import ConnectionSettings, Settings
from renamerd.engine.types import BELOW_CONFIDENCE, LANGUAGES, STRATEGIES, TEMPLATE_MODES
from renamerd.service import local_roots
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState, StoredSecret, User, UserConnection, utcnow

log = logging.getLogger("renamerd.connections")
#: providers a user can connect through the browser (each needs `[providers.<name>]`)
WEB_PROVIDERS = ("gdrive", "dropbox", "onedrive")
PROVIDER_NAMES = {"gdrive": "Google Drive", "dropbox": "Dropbox", "onedrive": "OneDrive",
                  "memory": "Memory drive (tests)"}
EDITABLE = ("watch", "target", "strategy", "template_mode", "custom_template", "language",
            "below_confidence", "confidence_threshold", "dry_run", "paused")


class ConnectionsError(Exception):
    """A connection request that cannot be done; the message says why, for people."""


class ConnectionNotFound(ConnectionsError):
    """No such connection of this user (it may be another user's)."""


class InvalidConnection(ConnectionsError):
    """A field value that is not allowed (the message names the field)."""


@dataclass(frozen=True)
class Fields:
    """The settings a user edits, checked. Build with `Fields.check(mapping)`."""

    values: dict[str, Any]

    @staticmethod
    def check(data: dict[str, Any]) -> Fields:
        """Only the editable keys, each checked and normalised. Raises InvalidConnection."""
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key not in EDITABLE:
                raise InvalidConnection(f"{key}: not a connection setting "
                                        f"(settings: {', '.join(EDITABLE)})")
            out[key] = _checked(key, value)
        return Fields(out)


def _policy(key: str, value: Any) -> Any:
    """below_confidence ("keep" | "review" | "rename") or confidence_threshold (0..1; a form
    gives text); None or "" is None: the server's [engine] setting applies."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if key == "below_confidence":
        if value not in BELOW_CONFIDENCE:
            raise InvalidConnection(f"below_confidence: {value!r} is not one of "
                                    f"{', '.join(BELOW_CONFIDENCE)}")
        return value
    try:
        number = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        number = float("nan")
    if not 0.0 <= number <= 1.0:
        raise InvalidConnection(f"confidence_threshold: {value!r} is not a number from 0 to 1")
    return number


def _checked(key: str, value: Any) -> Any:
    if key in ("below_confidence", "confidence_threshold"):
        return _policy(key, value)
    if key in ("dry_run", "paused"):
        if not isinstance(value, bool):
            raise InvalidConnection(f"{key}: true or false")
        return value
    if value is None and key == "custom_template":
        return None
    if not isinstance(value, str):
        raise InvalidConnection(f"{key}: text expected")
    value = value.strip()
    allowed = {"strategy": STRATEGIES, "template_mode": TEMPLATE_MODES, "language": LANGUAGES}
    if key in allowed and value not in allowed[key]:
        raise InvalidConnection(f"{key}: {value!r} is not one of {', '.join(allowed[key])}")
    if key in ("watch", "target"):
        if len(value) > 1000 or any(ord(ch) < 32 for ch in value):
            raise InvalidConnection(f"{key}: a folder path of at most 1000 characters")
        if value and not value.startswith("/"):
            value = "/" + value
        if key == "watch" and not value:
            raise InvalidConnection("watch: the folder to watch is required")
    if key == "custom_template":
        if len(value) > 65536:
            raise InvalidConnection("custom_template: at most 64 KiB")
        return value or None
    return value


class Connections:
    """The user connections of one database. Each method is one transaction."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    def list_of(self, user_id: str) -> list[UserConnection]:
        """The user's connections, oldest first. Read-only."""
        with self.db.session() as s:
            return list(s.exec(select(UserConnection).where(
                UserConnection.owner_id == user_id).order_by(col(UserConnection.created_at))))

    def get(self, user_id: str, name: str) -> UserConnection:
        """The user's connection `name`. Raises ConnectionNotFound (also for another user's)."""
        with self.db.session() as s:
            row = s.get(UserConnection, name) if len(name) <= 200 else None
        if row is None or row.owner_id != user_id:
            raise ConnectionNotFound(f"no connection {name!r}")
        return row

    def create(self, user_id: str, provider: str, fields: Fields) -> UserConnection:
        """A new connection of the user's, named after its provider ("gdrive-3f9a2c").
        Raises InvalidConnection (provider not configured, watch folder missing). Not
        idempotent: each call makes another."""
        if provider not in self.settings.providers:
            raise InvalidConnection(f"provider: {provider!r} is not configured here "
                                    f"(configured: {', '.join(self.settings.providers) or 'none'})")
        values = {"strategy": "by_date_type", **fields.values}
        if "watch" not in values:
            raise InvalidConnection("watch: the folder to watch is required")
        if provider == "local":
            self._check_local(user_id, values["watch"], values.get("target", ""))
        with self.db.write_session() as s:
            row = UserConnection(name=self._new_name(s, provider), owner_id=user_id,
                                 provider=provider, **values)
            s.add(row)
            return row

    def create_unset(self, user_id: str, provider: str) -> UserConnection:
        """A new connection just signed in, with no folders yet: not polled until its watch
        folder is saved (the person chooses it next). Raises InvalidConnection."""
        if provider not in self.settings.providers:
            raise InvalidConnection(f"provider: {provider!r} is not configured here")
        if provider == "local":
            self._check_local(user_id, "", "")
        with self.db.write_session() as s:
            row = UserConnection(name=self._new_name(s, provider), owner_id=user_id,
                                 provider=provider, watch="")
            s.add(row)
            return row

    def _new_name(self, s: Any, provider: str) -> str:
        """A free name ("gdrive-3f9a2c"): in neither the config file nor the table."""
        taken = {c.name for c in self.settings.connections}
        name = f"{provider}-{random.token_hex(3)}"
        while name in taken or s.get(UserConnection, name) is not None:
            name = f"{provider}-{random.token_hex(3)}"
        return name

    def _check_local(self, user_id: str, watch: str, target: str) -> None:
        """Raise InvalidConnection unless the user may use these server folders
        (service/local_roots.py)."""
        with self.db.session() as s:
            user = s.get(User, user_id)
        reason = local_roots.problem(self.settings.providers, user.email if user else "",
                                     watch, target)
        if reason:
            raise InvalidConnection(reason)

    def update(self, user_id: str, name: str, fields: Fields) -> UserConnection:
        """Change the given settings. Raises ConnectionNotFound, InvalidConnection (a local
        folder outside the user's roots; nothing changes then). Safe to repeat."""
        current = self.get(user_id, name)
        if current.provider == "local":
            self._check_local(user_id, fields.values.get("watch", current.watch),
                              fields.values.get("target", current.target))
        with self.db.write_session() as s:
            row = s.get(UserConnection, name)
            if row is None or row.owner_id != user_id:
                raise ConnectionNotFound(f"no connection {name!r}")
            for key, value in fields.values.items():
                setattr(row, key, value)
            row.updated_at = utcnow()
            s.add(row)
            return row

    def delete(self, user_id: str, name: str) -> None:
        """Delete the connection, its stored refresh token (revoked at the provider first,
        where it allows: `revoke`) and its poll state; its jobs' history stays readable.
        Raises ConnectionNotFound (so not safe to repeat)."""
        self.revoke(self.get(user_id, name))
        with self.db.write_session() as s:
            s.exec(delete(StoredSecret).where(col(StoredSecret.connection) == name))  # type: ignore[call-overload]
            s.exec(delete(ConnectionState).where(col(ConnectionState.name) == name))  # type: ignore[call-overload]
            s.exec(delete(UserConnection).where(col(UserConnection.name) == name))  # type: ignore[call-overload]

    def revoke(self, row: UserConnection) -> bool:
        """Best effort: revoke the connection's stored refresh token at its provider (Google,
        Dropbox; Microsoft offers no revocation of one token). Never raises; logged. Returns
        whether the provider revoked it."""
        from renamerd.service import consent
        from renamerd.service import secrets as secrets_store

        try:
            token = secrets_store.load_refresh_token(self.db, self.settings, row.name)
            options = self.settings.providers.get(row.provider)
            if not token or options is None:
                return False
            done = consent.revoke(row.provider, options, token)
        except Exception as err:  # the deletion goes on: the token is deleted here anyway
            log.warning("connection %s: the provider did not revoke its sign-in (%s)",
                        row.name, type(err).__name__)
            return False
        log.info("connection %s: sign-in %s", row.name, "revoked at the provider" if done else
                 "deleted here (the provider offers no revocation: remove the app in the "
                 "account's settings)")
        return done

    def delete_all_of(self, user_id: str) -> int:
        """Delete every connection of the user (account deletion). Returns how many."""
        rows = self.list_of(user_id)
        for row in rows:
            self.delete(user_id, row.name)
        return len(rows)


def as_settings(row: UserConnection, owner_email: str, settings: Settings) -> ConnectionSettings:
    """The daemon's view of a user connection: its provider's app options, paused as not
    enabled."""
    options = dict(settings.providers.get(row.provider, {}))
    if row.provider == "local":
        options = local_roots.connector_options(options)
    return ConnectionSettings(
        name=row.name, provider=row.provider, owner=owner_email, watch=row.watch,
        target=row.target, strategy=row.strategy, template_mode=row.template_mode,
        custom_template=row.custom_template, language=row.language,
        below_confidence=row.below_confidence, confidence_threshold=row.confidence_threshold,
        poll_seconds=settings.daemon.user_poll_seconds, enabled=not row.paused,
        dry_run=row.dry_run,
        options=options, source="user")


def all_connections(settings: Settings, db: Database, *, unset: bool = False
                    ) -> list[ConnectionSettings]:
    """The config file's connections, then the users' (those whose owner is disabled are
    left out; a provider no longer configured too; with `unset`, also those whose folders
    were not chosen yet, which the daemon does not see). Read-only."""
    with db.session() as s:
        rows = s.exec(select(UserConnection, User).where(
            col(UserConnection.owner_id) == col(User.id))).all()
    waiting = set() if unset else not_signed_in(db)
    out = list(settings.connections)
    for row, user in rows:
        if not user.disabled and row.provider in settings.providers and (row.watch or unset):
            if row.name in waiting:
                continue  # nothing to poll with until its owner signs in at the provider
            if row.provider == "local" and _outside_roots(row, user.email, settings):
                continue
            out.append(as_settings(row, user.email, settings))
    return out


def not_signed_in(db: Database) -> set[str]:
    """The users' connections of a provider they sign in to (WEB_PROVIDERS) that hold no
    refresh token yet: made through the API without `refreshToken` and never connected in
    the browser. Read-only."""
    with db.session() as s:
        rows = s.exec(select(UserConnection.name).where(
            col(UserConnection.provider).in_(WEB_PROVIDERS))).all()
        signed = set(s.exec(select(StoredSecret.connection)).all())
    return {name for name in rows if name not in signed}


#: user local connections already reported as outside their roots (logged once per process)
_REPORTED: set[str] = set()


def _outside_roots(row: UserConnection, email: str, settings: Settings) -> bool:
    """A user's local connection whose folders are no longer allowed (the admin changed
    `[providers.local] roots`): left out of the daemon's work, logged once."""
    reason = local_roots.problem(settings.providers, email, row.watch, row.target)
    if reason and row.name not in _REPORTED:
        _REPORTED.add(row.name)
        log.warning("connection %s is not watched: %s", row.name, reason)
    return reason is not None
