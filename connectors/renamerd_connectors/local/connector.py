"""The local connector: the protocol's methods over the feed, the moves and the inotify watch."""

from __future__ import annotations

import errno
import logging
import os
import re
import stat as stat_mod
import time
from pathlib import Path
from typing import Any, BinaryIO

from renamerd.connectors import Changes, Conflict, ConnectorError, NotFound, RemoteFile, iter_chunks

from . import feed
from .moved_log import MovedLog
from .moves import CHUNK, move_file
from .options import LocalOptions
from .paths import norm, remote
from .watch import FolderWatch, WatchUnavailable

log = logging.getLogger(__name__)


class LocalConnector:
    """The Connector protocol over local (or mounted) folders. See the package docstring."""

    provider = "local"
    case_insensitive = False

    def __init__(self, options: dict[str, Any], *, name: str = "local", state_dir: str = "") -> None:
        opts = LocalOptions.parse(options)
        self.stable_checks = opts.stable_checks
        self.ignore = opts.ignore
        self._ignore_re = opts.ignore_pattern()
        self.settle_s = opts.settle_s
        self.inotify = opts.inotify
        self._watch: FolderWatch | None = None
        self._watch_key: tuple[str, bool] | None = None
        self._watch_seen: FolderWatch | None = None
        #: the last cursor `changes` returned and what it holds (watch, recursive, files), so
        #: that the next wait and look need not parse it again
        self._last: tuple[str, str, bool, feed.FileStates] | None = None
        self.name = name
        slug = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        self.moved = MovedLog(Path(state_dir) / f"local-moved-{slug}.jsonl" if state_dir else None)

    # ---- changes

    def ignored(self, name: str) -> bool:
        """Whether a file or folder name is skipped (temporary, partial, hidden)."""
        return self._ignore_re.match(name) is not None

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """See `Connector.changes`. A file is reported once its size and mtime held still for
        `stable_checks` looks, and again whenever they change (and settle again). Files this
        connection moved are never reported. Read-only on disk; safe to repeat."""
        watch = norm(watch)
        scanned = feed.scan(watch, recursive, self.ignored, self.name)
        state, reset = self._load_cursor(cursor, watch, recursive)
        files, new_state = feed.settle(watch, scanned, state, self.moved.entries(), self.stable_checks)
        new_cursor = feed.dump_cursor(watch, recursive, new_state)
        self._last = (new_cursor, watch, recursive, new_state)
        return Changes(files, new_cursor, reset=reset)

    def _load_cursor(self, cursor: str | None, watch: str, recursive: bool
                     ) -> tuple[feed.FileStates, bool]:
        """(the cursor's file states, whether it was refused and the folder is listed afresh)."""
        if cursor is None:
            return {}, False
        last = self._last
        if last is not None and last[0] == cursor and last[1:3] == (watch, recursive):
            return last[3], False  # the one this connector just made: no need to parse it
        state = feed.load_cursor(cursor, watch, recursive)
        if state is not None:
            return state, False
        log.info("local %s: cursor does not fit %s, listing afresh", self.name, watch)
        return {}, True

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """See `Connector.wait_for_changes`: block until a file arrives in the cursor's folder
        or is written there (inotify), at most `timeout_s`. While files the cursor saw are still
        settling, wait at most `settle_seconds`. Returns True every time: a quiet timeout still
        calls for a full look (inotify cannot see what another machine does to a network
        mount). Without inotify it just sleeps. Read-only; safe to repeat."""
        last = self._last
        if last is not None and last[0] == cursor:
            _, watch, recursive, files = last
        else:
            parsed = feed.cursor_folder(cursor)
            if parsed is None:
                return True
            watch, recursive, files = parsed
        if any(v[2] < self.stable_checks for v in files.values()):
            timeout_s = min(timeout_s, self.settle_s)
        watcher = self._watcher(watch, recursive)
        if watcher is None:
            time.sleep(max(timeout_s, 0.0))
            return True
        if watcher is not self._watch_seen:  # new watch: a file may have come before it
            self._watch_seen = watcher
            return True
        watcher.wait(timeout_s)
        return True

    def _watcher(self, watch: str, recursive: bool) -> FolderWatch | None:
        """The inotify watch of `watch` (made on first use), or None without inotify."""
        if not self.inotify:
            return None
        if self._watch is not None and self._watch_key == (watch, recursive):
            return self._watch
        self.close()
        try:
            self._watch = FolderWatch(watch, recursive, self.ignored)
        except WatchUnavailable as err:
            log.warning("local %s: %s; looking at the folder on a timer", self.name, err)
            self.inotify = False
            return None
        self._watch_key = (watch, recursive)
        return self._watch

    # ---- stat, download

    def stat(self, file_id: str) -> RemoteFile | None:
        """See `Connector.stat`: the regular file at path `file_id`, or None. Read-only."""
        path = norm(file_id)
        try:
            st = os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise ConnectorError(f"cannot stat {path}: {err.strerror}") from err
        return remote(path, st) if stat_mod.S_ISREG(st.st_mode) else None

    def stat_path(self, path: str) -> RemoteFile | None:
        """See `Connector.stat_path`; case-sensitive as the filesystem is. Read-only."""
        return self.stat(path)

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """See `Connector.download`: a regular file only; a symbolic link put where the file
        was (O_NOFOLLOW), a folder or a device is NotFound. Raises NotFound, TooLarge. Safe to
        repeat."""
        path = norm(file_id)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound(f"file {path} not found") from None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise NotFound(f"{path} is a symbolic link, not a file") from None
            if isinstance(err, PermissionError):
                raise ConnectorError(f"cannot read {path}: permission denied") from err
            raise ConnectorError(f"cannot read {path}: {err.strerror}") from err
        try:
            if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
                raise NotFound(f"{path} is not a regular file")
            # straight reads (no buffered file object): a document is mostly one or two reads
            return iter_chunks(iter(lambda: os.read(fd, CHUNK), b""), dest, max_bytes)
        finally:
            os.close(fd)

    # ---- ensure_folder, move

    def list_folders(self, path: str) -> list[str]:
        """See `Connector.list_folders`: real folders only (no links), hidden ones left out.
        Raises NotFound."""
        path = norm(path)
        try:
            with os.scandir(path) as entries:
                return sorted(e.name for e in entries
                              if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))
        except (FileNotFoundError, NotADirectoryError) as err:
            raise NotFound(f"folder {path} not found") from err
        except OSError as err:
            raise ConnectorError(f"cannot list {path}: {err.strerror}") from err

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`: makes `path` and parents; returns the normalised path.
        Idempotent. Raises Conflict if a file holds one of the names."""
        path = norm(path)
        try:
            os.makedirs(path, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as err:
            raise Conflict(f"a file is in the way of folder {path}") from err
        except OSError as err:
            raise ConnectorError(f"cannot create {path}: {err.strerror}") from err
        return path

    def remove_empty_folder(self, path: str) -> bool:
        """See `SupportsRemoveEmptyFolder`: one rmdir(2), which refuses a folder holding
        anything (hidden files too) and a link."""
        try:
            os.rmdir(norm(path))
        except OSError:
            return False
        return True

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """See `Connector.move`. Never overwrites (Conflict); a repeat is a no-op; a move
        interrupted between link and unlink is completed by repeating it (see `moves.py`)."""
        if not name or name in (".", "..") or "/" in name or "\0" in name:
            raise ConnectorError(f"invalid file name {name!r}")
        return move_file(norm(file_id), norm(folder_id), name, self.moved)

    def close(self) -> None:
        """Stop watching the folder (inotify), close the moved-files log. Safe to call twice."""
        self.moved.close()
        if self._watch is not None:
            self._watch.close()
            self._watch = None
