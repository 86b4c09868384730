"""Local (or mounted) folders: poll a directory, wait for files to settle, move without ever
overwriting. The provider's map:

SDK: none; the filesystem through `os` (scandir, link, rename), and on Linux inotify
(`inotify_simple`, `watch.py`) to wake up when a file is written.

Options (`options.py`, all optional): `stable_checks`, `ignore`, `inotify`, `settle_seconds`.

Identity (`paths.py`): ids are absolute normalised paths; a file's revision is
"<size>-<mtime_ns>", so it survives a move. `case_insensitive` is False: `stat_path` asks the
filesystem as it is.

Changes (`feed.py`): no change feed: each `changes` lists the folder and compares it with the
cursor, a JSON map of every file below the watched folder (size, mtime, looks stable). A file is
reported once it held still for `stable_checks` looks (scanners and network copies write
slowly). `wait_for_changes` blocks on inotify (or sleeps) and always asks for a full look, which
catches what inotify cannot see (another machine writing to a network mount). A cursor for
another folder or an unreadable one gives a full listing with `Changes.reset`.

Moves (`moves.py`, `moved_log.py`): `os.link` + `unlink` within a filesystem (the kernel never
replaces an existing name), an O_EXCL claim where there are no hard links, a copy + fsync +
link across filesystems. The files the connection moved are remembered (`moved_log.py`, under
``state_dir``) and never reported again, even when the target folder lies inside the watched one.

Errors: a taken name is `Conflict` (never an overwrite); a missing file or folder `NotFound`; a
permission or other system error a `ConnectorError` with the reason. There is no throttling and
there are no tokens: `TransientError` and `AuthError` never come from here.
"""

from .connector import LocalConnector

__all__ = ["LocalConnector"]
