"""What is wrong with a database, in words: the driver's errors as one line naming the problem
and what to do, and how far its schema is from this version's migrations."""

from __future__ import annotations

from sqlalchemy import text

from renamerd.storage.database import MIGRATIONS, Database

#: (words in the driver's message or error class, what it means, what to do); first match wins
_PROBLEMS: tuple[tuple[tuple[str, ...], str, str], ...] = (
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
     "is unreachable", "is the database server running, and is database.url right?"),
    (("file is not a database", "malformed"), "is damaged or not a SQLite database",
     "check database.url; restore the file from a backup"),
    (("disk i/o error", "database or disk is full", "no space left"),
     "cannot be written (disk full or failing)", "free space on its disk"),
)


def describe_error(err: BaseException, shown_url: str) -> str:
    """One line for a database error (SQLAlchemy's, or the driver's under it): "the database
    URL <problem>: <what to do>". `shown_url` is the URL as it may be shown (no password)."""
    cause = getattr(err, "orig", None) or err
    words = " ".join(str(cause).split()).lower()
    kind = type(cause).__name__.lower()
    for needles, problem, todo in _PROBLEMS:
        if any(n in words or n in kind for n in needles):
            return f"the database {shown_url} {problem}: {todo}"
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    return f"the database {shown_url} failed: {first}"


def head_revision() -> str | None:
    """The newest migration of this version of renamerd."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(cfg).get_current_head()


def ping(db: Database) -> None:
    """One round trip (`SELECT 1`). Raises the driver's error when the database cannot answer."""
    with db.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
