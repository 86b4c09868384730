"""What went wrong, as the one line a CLI command prints on stderr, and its exit code.

`describe(err, app)` turns any exception that escaped a command into (message, exit code): the
database's errors (unreachable, locked, read-only, not migrated), permission and file errors,
a connector's, a missing driver; 2 for a bad config or usage, 1 for everything else. Each
message names what failed and what to do; `--verbose` adds the traceback (the caller's job).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from renamerd.config import ConfigFileError, hide_password

if TYPE_CHECKING:
    from renamerd.commands.context import AppContext

#: (words in the driver's message, what it means, what to do); the first match wins
_DATABASE_PROBLEMS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("database is locked",), "is locked by another process",
     "wait for it (database.sqlite_busy_timeout_ms) or find what holds it, then try again"),
    (("readonly database", "read-only"), "cannot be written (read-only file or folder)",
     "run as the user owning the database and its folder (the service's user), or fix their "
     "permissions"),
    (("unable to open database file",), "cannot be opened (missing or unwritable folder)",
     "check that its folder exists and is writable by this user"),
    (("no such table", "undefinedtable", "does not exist"), "lacks tables of this version",
     "run `renamerd db upgrade` (migrations) with the same config"),
    (("password authentication failed", "authentication failed"), "refused the credentials",
     "check the user and password in database.url"),
    (("connection refused", "could not connect", "connection failed", "timeout expired",
      "could not translate host name", "name or service not known", "no route to host",
      "server closed the connection", "connection timed out"),
     "is unreachable",
     "is the database server running, and is database.url right?"),
    (("file is not a database", "malformed"), "is damaged or not a SQLite database",
     "check database.url; restore the file from a backup"),
    (("disk i/o error", "database or disk is full", "no space left"),
     "cannot be written (disk full or failing)", "free space on its disk"),
)


def describe(err: BaseException, app: AppContext | None = None) -> tuple[str, int]:
    """The one-line message (without "error: ") and exit code for `err`. Never raises."""
    from sqlalchemy import exc as sa_exc

    if isinstance(err, ConfigFileError):
        return str(err), 2
    if isinstance(err, sa_exc.ArgumentError):
        return f"database.url{_where(app)} is not a valid database URL: {err}", 2
    if isinstance(err, sa_exc.NoSuchModuleError):
        return f"database.url{_where(app)} names an unknown database kind: {err}", 2
    if isinstance(err, sa_exc.DBAPIError | sa_exc.OperationalError):
        return _database_line(err, app), 1
    if _is_alembic(err):
        return _migration_line(err, app), 1
    if isinstance(err, ModuleNotFoundError):
        return _missing_module_line(err), 1
    if isinstance(err, PermissionError):
        return _permission_line(err), 1
    if isinstance(err, OSError):
        where = f" {err.filename}" if err.filename else ""
        return f"{err.strerror or err}{':' if where else ''}{where}", 1
    connector_line = _connector_line(err)
    if connector_line:
        return connector_line, 1
    return (f"unexpected {type(err).__name__}: {_first_line(err)} "
            "(run again with --verbose for the traceback)"), 1


def _where(app: AppContext | None) -> str:
    source = getattr(app, "loaded_from", None) if app is not None else None
    return f" (in {source})" if source else ""


def _database_name(app: AppContext | None) -> str:
    settings = getattr(app, "_settings", None) if app is not None else None
    if settings is None:
        return "the database"
    return f"the database {hide_password(settings.database.url)}"


def _database_line(err: BaseException, app: AppContext | None) -> str:
    text = " ".join(str(getattr(err, "orig", None) or err).split()).lower()
    kind = type(getattr(err, "orig", None) or err).__name__.lower()
    name = _database_name(app)
    for words, problem, todo in _DATABASE_PROBLEMS:
        if any(w in text or w in kind for w in words):
            return f"{name} {problem}: {todo}"
    return f"{name} failed: {_first_line(getattr(err, 'orig', None) or err)}"


def _is_alembic(err: BaseException) -> bool:
    return type(err).__module__.startswith("alembic")


def _migration_line(err: BaseException, app: AppContext | None) -> str:
    text = _first_line(err)
    if "Can't locate revision" in text or "No such revision" in text:
        return (f"{_database_name(app)} was migrated by a newer renamerd ({text}): install that "
                "version again, or restore a backup made before the upgrade")
    return f"migrating {_database_name(app)} failed: {text}"


def _missing_module_line(err: ModuleNotFoundError) -> str:
    extras = {"psycopg": "postgres", "redis": "redis", "dropbox": "dropbox", "msal": "onedrive",
              "googleapiclient": "gdrive", "google": "gdrive"}
    top = (err.name or "").split(".")[0]
    if top in extras:
        return (f"the Python package {top} is not installed: "
                f"pip install 'renamerd[{extras[top]}]'")
    return f"the Python package {err.name} is missing: reinstall renamerd ({err})"


def _permission_line(err: PermissionError) -> str:
    path = err.filename or ""
    folder = os.path.dirname(path) if path else ""
    who = _user_name()
    target = f"{path}" if path else "a file"
    hint = (f"run as the user owning it (the service's user), or let {who} write "
            f"{folder or 'it'}")
    return f"permission denied on {target} (running as {who}): {hint}"


def _user_name() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return f"uid {os.geteuid()}"


def _connector_line(err: BaseException) -> str | None:
    from renamerd.connectors import AuthError, ConnectorError

    if isinstance(err, AuthError):
        return (f"the provider refused the credentials: {_first_line(err)}; "
                "run `renamerd connect PROVIDER --connection NAME` again")
    if isinstance(err, ConnectorError):  # their messages name the option or the provider
        return _first_line(err)
    return None


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
