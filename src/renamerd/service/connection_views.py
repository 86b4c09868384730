"""Connections as a person sees them: whose, where, and their state in words (from
`connection_states`): watching, paused, needs re-consent (with the provider's message), the last
poll. Read-only; the Overview, the Connections page and the Admin page use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import select

from renamerd.config import ConnectionSettings, Settings
from renamerd.service.accounts import AccountError, normalize_email
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState, User

WATCHING = "watching"
PAUSED = "paused"
NEEDS_CONSENT = "needs re-consent"
STARTING = "waiting for the first poll"
UNSET = "choose its folders"
NOT_SIGNED_IN = "not signed in yet: Reconnect to sign in at the provider"


@dataclass(frozen=True)
class ConnectionView:
    name: str
    provider: str
    owner: str
    watch: str
    target: str
    #: where it is declared: "config" (config.toml, read-only here) or "user" (its owner's)
    source: str
    #: WATCHING, PAUSED, NEEDS_CONSENT, STARTING, UNSET or NOT_SIGNED_IN
    state: str
    #: the last error in words, or None
    error: str | None
    last_poll_at: datetime | None

    @property
    def in_error(self) -> bool:
        return self.state == NEEDS_CONSENT or self.error is not None


def _owner(conf: ConnectionSettings) -> str:
    try:
        return normalize_email(conf.owner)
    except AccountError:
        return conf.owner


def _view(conf: ConnectionSettings, state: ConnectionState | None,
          unsigned: frozenset[str] | set[str] = frozenset()) -> ConnectionView:
    error = state.error if state is not None else None
    if conf.name in unsigned:
        word = NOT_SIGNED_IN
    elif not conf.watch:
        word = UNSET
    elif not conf.enabled:
        word = PAUSED
    elif state is not None and state.status == "stopped":
        word = NEEDS_CONSENT
    elif state is None or state.last_poll_at is None:
        word = STARTING
    else:
        word = WATCHING
    return ConnectionView(
        name=conf.name, provider=conf.provider, owner=_owner(conf), watch=conf.watch,
        target=conf.target_root, source=conf.source, state=word, error=error,
        last_poll_at=state.last_poll_at if state is not None else None)


def _states(db: Database, names: list[str]) -> dict[str, ConnectionState]:
    if not names:
        return {}
    with db.session() as s:
        rows = s.exec(select(ConnectionState).where(
            ConnectionState.name.in_(names)))  # type: ignore[attr-defined]
        return {row.name: row for row in rows}


def all_connections(settings: Settings, db: Database) -> list[ConnectionView]:
    """Every connection with its state: the config file's in order, then the users' (also
    those whose folders are not chosen or that are not signed in yet)."""
    from renamerd.service.connections import all_connections as every
    from renamerd.service.connections import not_signed_in

    confs = every(settings, db, unset=True)
    states = _states(db, [c.name for c in confs])
    unsigned = not_signed_in(db)
    return [_view(c, states.get(c.name), unsigned) for c in confs]


def connections_of(settings: Settings, db: Database, user: User) -> list[ConnectionView]:
    """The user's connections (the config file's naming the user's e-mail as owner, then
    those the user made) with their state."""
    from renamerd.service.connections import all_connections as every
    from renamerd.service.connections import not_signed_in

    mine = [c for c in every(settings, db, unset=True) if _owner(c) == user.email]
    states = _states(db, [c.name for c in mine])
    unsigned = not_signed_in(db)
    return [_view(c, states.get(c.name), unsigned) for c in mine]
