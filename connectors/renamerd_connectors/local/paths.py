"""Local paths as the protocol sees them: ids are absolute normalised paths, and a file's
revision is "<size>-<mtime_ns>" (a move keeps both: link and rename keep the mtime, a copy across
filesystems carries it over)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from renamerd.connectors import RemoteFile


def norm(path: str) -> str:
    """Absolute, normalised, no trailing slash."""
    if path[:1] == "/" and "//" not in path and "/." not in path and path[-1:] != "/":
        return path  # already so (the file ids this connector hands out): no two passes
    return os.path.normpath(os.path.abspath(path))


def remote_of(path: str, size: int, mtime_ns: int) -> RemoteFile:
    """The RemoteFile of the file at `path` with this size and mtime."""
    return RemoteFile(
        id=path, path=path, name=os.path.basename(path), size=size, revision=f"{size}-{mtime_ns}",
        modified=datetime.fromtimestamp(mtime_ns / 1e9, UTC), parent_id=os.path.dirname(path),
    )


def remote(path: str, st: os.stat_result) -> RemoteFile:
    """The RemoteFile of the file at `path` with stat `st`."""
    return remote_of(path, st.st_size, st.st_mtime_ns)
