"""Refresh tokens from `renamerd connect`, encrypted at rest (Fernet: AES-128-CBC + HMAC-SHA256).

The key comes from `[secrets] key`, the environment variable ``RENAMERD_SECRETS__KEY`` (which
wins over the file, as every setting does) or `[secrets] key_file`. Several keys may be given,
separated by commas: the first encrypts, all decrypt, so a key can be rotated by putting the new
one first and running `renamerd connect` again (or leaving old tokens readable meanwhile).

Each ciphertext also carries the connection's name, so a row copied onto another connection is
refused rather than used. The database never holds a token in clear.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlmodel import select

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import ConfigError
from renamerd.storage.database import Database
from renamerd.storage.models import StoredSecret, utcnow

log = logging.getLogger(__name__)

REFRESH_TOKEN = "refresh_token"  # noqa: S105 (a row kind, not a secret)
MAKE_KEY_HINT = (
    "make one with: python -c \"from cryptography.fernet import Fernet; "
    "print(Fernet.generate_key().decode())\" and put it in RENAMERD_SECRETS__KEY, "
    "[secrets] key_file or [secrets] key"
)

#: providers that keep no refresh token
_NO_TOKEN_PROVIDERS = frozenset({"local"})


class SecretsError(ConfigError):
    """A stored secret cannot be written or read (no key, wrong key, damaged row)."""


class SecretsKeyError(SecretsError):
    """No encryption key is configured, or the configured one is malformed."""


def _keys(settings: Settings) -> list[str]:
    raw = settings.secrets.key.strip()
    if not raw and settings.secrets.key_file:
        path = Path(settings.secrets.key_file)
        try:
            raw = path.read_text().strip()
            mode = path.stat().st_mode
        except OSError as err:
            raise SecretsKeyError(
                f"cannot read secrets key_file {settings.secrets.key_file}: {err.strerror}"
            ) from err
        if mode & 0o077:
            log.warning("secrets key_file %s can be read by other users; chmod 600 it", path)
    return [k.strip() for k in raw.split(",") if k.strip()]


def has_key(settings: Settings) -> bool:
    """Whether a key is configured (it may still be malformed). Raises SecretsKeyError only for
    an unreadable key_file."""
    return bool(_keys(settings))


def fernet(settings: Settings) -> MultiFernet:
    """The cipher for stored secrets. Raises SecretsKeyError (with how to make a key) when
    none is configured or one is not a valid Fernet key."""
    keys = _keys(settings)
    if not keys:
        raise SecretsKeyError(f"no secrets key is configured; {MAKE_KEY_HINT}")
    try:
        return MultiFernet([Fernet(k.encode()) for k in keys])
    except (ValueError, TypeError) as err:
        raise SecretsKeyError(
            f"the secrets key is not a valid Fernet key (32 url-safe base64 bytes); {MAKE_KEY_HINT}"
        ) from err


def encrypt(settings: Settings, connection: str, secret: str) -> str:
    """Ciphertext (text) binding `secret` to `connection`. Raises SecretsKeyError."""
    plain = json.dumps({"c": connection, "s": secret}).encode()
    return fernet(settings).encrypt(plain).decode("ascii")


def decrypt(settings: Settings, connection: str, ciphertext: str) -> str:
    """The secret in `ciphertext`. Raises SecretsKeyError, or SecretsError when the key does
    not fit or the row belongs to another connection."""
    try:
        plain = fernet(settings).decrypt(ciphertext.encode("ascii"))
    except InvalidToken as err:
        raise SecretsError(
            f"the stored token of connection {connection!r} cannot be decrypted with the "
            "configured secrets key (was the key changed?); run `renamerd connect` again"
        ) from err
    try:
        data = json.loads(plain)
        owner, secret = data["c"], data["s"]
    except (ValueError, KeyError, TypeError) as err:
        raise SecretsError(f"the stored token of connection {connection!r} is damaged") from err
    if owner != connection or not isinstance(secret, str):
        raise SecretsError(f"the stored token of connection {connection!r} belongs elsewhere")
    return secret


def store_refresh_token(db: Database, settings: Settings, connection: str, token: str) -> None:
    """Encrypt and store (insert or replace) the refresh token of `connection`.

    Raises SecretsKeyError before touching the database if no key is configured. Safe to repeat.
    """
    if not token:
        raise ValueError("refresh token is empty")
    ciphertext = encrypt(settings, connection, token)
    with db.write_session() as session:
        row = session.get(StoredSecret, (connection, REFRESH_TOKEN))
        if row is None:
            session.add(StoredSecret(connection=connection, kind=REFRESH_TOKEN,
                                     ciphertext=ciphertext))
        else:
            row.ciphertext = ciphertext
            row.updated_at = utcnow()
            session.add(row)


def load_refresh_token(db: Database, settings: Settings, connection: str) -> str | None:
    """The stored refresh token of `connection`, or None if none was stored. Read-only.

    Raises SecretsKeyError / SecretsError when a token is stored but cannot be decrypted.
    """
    with db.session() as session:
        row = session.exec(
            select(StoredSecret).where(
                StoredSecret.connection == connection, StoredSecret.kind == REFRESH_TOKEN
            )
        ).first()
    if row is None:
        return None
    return decrypt(settings, connection, row.ciphertext)


def delete_refresh_token(db: Database, connection: str) -> bool:
    """Forget the stored token of `connection`; True if there was one. Safe to repeat."""
    with db.write_session() as session:
        row = session.get(StoredSecret, (connection, REFRESH_TOKEN))
        if row is None:
            return False
        session.delete(row)
        return True


def connector_options(db: Database, settings: Settings, conn: ConnectionSettings) -> dict[str, Any]:
    """`conn.options` for opening the connector, with the stored refresh token filled in when
    the config gives none (neither ``refresh_token`` nor ``refresh_token_file``).

    Secret references (``{ env = ... }``) are left for `connector.resolve_options`. Read-only.
    Raises SecretsError when a stored token exists but cannot be decrypted (the daemon stops
    that connection with this message).
    """
    options = dict(conn.options)
    if conn.provider in _NO_TOKEN_PROVIDERS:
        return options
    if "refresh_token" in options or "refresh_token_file" in options:
        return options
    token = load_refresh_token(db, settings, conn.name)
    if token is not None:
        options["refresh_token"] = token
    return options
