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
from renamerd.storage.health import describe_error

if TYPE_CHECKING:
    from renamerd.commands.context import AppContext

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
    settings = getattr(app, "_settings", None) if app is not None else None
    shown = hide_password(settings.database.url) if settings is not None else "(database.url)"
    return describe_error(err, shown)


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
