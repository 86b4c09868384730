"""Checks of this machine: the config file, the database, the secrets key, folders and disks."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sqlalchemy.engine.url import make_url
from sqlmodel import select

from renamerd.config import SYSTEM_CONFIG, Settings, hide_password
from renamerd.runtime.doctor.findings import Finding, error, ok, warning
from renamerd.service import secrets as secrets_store
from renamerd.storage.database import Database
from renamerd.storage.health import describe_error, head_revision, ping
from renamerd.storage.models import StoredSecret

#: free space under which a folder is an error / a warning (bytes), or a warning (share)
DISK_ERROR_BYTES = 100 * 1024**2
DISK_WARNING_BYTES = 1024**3
DISK_WARNING_SHARE = 0.05


def check_config(settings: Settings) -> Finding:
    """Which file was read (valid, since the settings loaded), and a shadowed system config."""
    if settings.source_file is None:
        return ok("config", "embedded defaults (no --config, $RENAMERD_CONFIG, ./config.toml "
                            f"or {SYSTEM_CONFIG}); valid")
    used = Path(settings.source_file).resolve()
    env = sorted(k for k in os.environ if k.upper().startswith("RENAMERD_") and "__" in k)
    overrides = f", overridden by {', '.join(env)}" if env else ""
    if SYSTEM_CONFIG.is_file() and SYSTEM_CONFIG.resolve() != used:
        return warning("config", f"{used} (valid{overrides}); {SYSTEM_CONFIG} exists too and is "
                                 "NOT used: the service and this shell may see different "
                                 f"databases; run with --config {SYSTEM_CONFIG}")
    return ok("config", f"{used} (valid{overrides})")


def sqlite_path(settings: Settings) -> Path | None:
    """The SQLite database file of the settings, or None (PostgreSQL, in-memory)."""
    url = make_url(settings.database.url)
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database or ""
    return Path(database) if database and database != ":memory:" else None


def check_database(settings: Settings) -> tuple[Database | None, list[Finding]]:
    """The database opened without migrating (None when it cannot be), and whether it answers
    and is at this version's newest migration."""
    shown = hide_password(settings.database.url)
    file = sqlite_path(settings)
    if file is not None and not file.exists():
        return None, [warning("database", f"{shown} does not exist yet: the first start (or "
                                          "`renamerd db upgrade`) creates it")]
    try:
        db = Database(settings.database.url, busy_timeout_ms=5000, pool_size=1)
        ping(db)
    except Exception as err:
        return None, [error("database", describe_error(err, shown))]
    current, head = db.current_revision(), head_revision()
    if current == head:
        return db, [ok("database", f"{shown} answers; schema at the newest revision {head}")]
    if current is None:
        return db, [error("database", f"{shown} has no renamerd schema: run `renamerd db "
                                      "upgrade` (or start the service, which migrates)")]
    return db, [error("database", f"{shown} is at revision {current}, this version needs "
                                  f"{head}: run `renamerd db upgrade` (if {current} is newer, "
                                  "this renamerd is older than the one that migrated it)")]


def check_secrets(settings: Settings, db: Database) -> Finding:
    """The secrets key: present when tokens are stored, and able to decrypt every one."""
    try:
        with db.session() as s:
            stored = list(s.exec(select(StoredSecret)))
    except Exception as err:
        return error("secrets", f"cannot read the stored tokens: {describe_error(err, 'table')}")
    try:
        has_key = secrets_store.has_key(settings)
        if has_key:
            secrets_store.fernet(settings)
    except secrets_store.SecretsKeyError as err:
        return error("secrets", str(err))
    if not has_key:
        if stored:
            return error("secrets", f"{len(stored)} refresh token(s) are stored but no key is "
                                    f"configured to decrypt them; {secrets_store.MAKE_KEY_HINT}")
        return ok("secrets", "no key configured; none needed (no stored refresh tokens)")
    broken = []
    for row in stored:
        try:
            secrets_store.decrypt(settings, row.connection, row.ciphertext)
        except secrets_store.SecretsError:
            broken.append(row.connection)
    if broken:
        return error("secrets", f"the key cannot decrypt the stored token(s) of "
                                f"{', '.join(broken)} (was it changed?): put the old key after "
                                "the new one (NEW,OLD), or run `renamerd connect` again")
    return ok("secrets", f"key present; decrypts the {len(stored)} stored refresh token(s)")


def check_folders(settings: Settings) -> list[Finding]:
    """Free space and write access of the state folder and the SQLite database's folder."""
    folders = [("state folder", Path(settings.daemon.state_dir))]
    file = sqlite_path(settings)
    if file is not None:
        folders.append(("database folder", file.parent))
    findings = [_check_folder(what, path) for what, path in folders]
    if file is not None:
        mixed = _mixed_owners(file)
        if mixed:
            findings.append(mixed)
    return findings


def _check_folder(what: str, path: Path) -> Finding:
    check = f"disk ({what})"
    existing = path.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        return error(check, f"{existing} is not writable by this user: run as the service's "
                            "user, or fix the folder's owner")
    usage = shutil.disk_usage(existing)
    free = f"{usage.free / 1024**3:.1f} GiB free of {usage.total / 1024**3:.1f} GiB"
    where = str(path.absolute()) + ("" if existing == path.absolute() else " (not created yet)")
    if usage.free < DISK_ERROR_BYTES:
        return error(check, f"{where}: only {free}; free space on that disk")
    if usage.free < DISK_WARNING_BYTES or usage.free < DISK_WARNING_SHARE * usage.total:
        return warning(check, f"{where}: {free}; little space left")
    return ok(check, f"{where}: {free}")


def _mixed_owners(file: Path) -> Finding | None:
    """A SQLite database whose files (WAL, locks) belong to several users: one of them (often
    root running a command) made files the service cannot write."""
    owners: dict[int, list[str]] = {}
    for sibling in file.parent.glob(file.name + "*"):
        owners.setdefault(sibling.stat().st_uid, []).append(sibling.name)
    if len(owners) < 2:
        return None
    names = "; ".join(f"uid {uid}: {', '.join(sorted(files))}" for uid, files in owners.items())
    return warning("database files", f"owned by different users ({names}): the service may "
                                      "not be able to write them; chown them to its user")
