"""Local folders: poll a directory, wait for files to settle, move without ever overwriting.

Ids are absolute paths; a file's revision is "<size>-<mtime_ns>", so it survives a move (link and
rename keep the mtime, a cross-filesystem copy carries it over). `case_insensitive` is False:
`stat_path` asks the filesystem as it is.

Options (all optional):

- ``stable_checks`` (int, default 2): a file is reported once its size and mtime were the same
  on this many looks in a row (scanners and network copies write slowly). 1 reports at once.
- ``ignore`` (list of glob patterns): names skipped besides the built-in ones: dotfiles,
  ``~$*`` (office lock files), ``*.part``, ``*.crdownload``, ``*.tmp``.
- ``inotify`` (bool, default true): on Linux, wait for files with inotify
  (`wait_for_changes`): a new file is picked up as soon as it is written instead of at the
  next poll, and an idle folder is not listed between polls. The daemon still looks at the
  whole folder every ``poll_seconds`` (at most 30 s), which catches what inotify cannot see
  (changes made by another machine to a network mount). False: look every ``poll_seconds``.
- ``settle_seconds`` (number, default 2): with inotify, how long a file seen but not yet
  settled (``stable_checks`` above 1) waits before the next look.

The cursor is JSON: the watched folder, the recursive flag and, per file below it, its size,
mtime and how many looks it has been stable for. It grows with the number of files sitting in
the watched folder, not with history.

Moves: within one filesystem by `os.link` + `unlink` (the kernel refuses to replace an existing
name, so nothing is overwritten even when racing another process; not fsynced: the data never
moves); on filesystems without hard links by claiming the name with O_EXCL and renaming over the
claim; across filesystems by copying to a hidden temporary name in the destination folder,
fsync, linking it into place (never overwriting), fsync of the folder, then removing the
source. The connector remembers the files it moved (in a small file under ``state_dir``) and
never reports them again, even when the target folder lies inside the watched one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import fnmatch
import json
import logging
import os
import re
import secrets
import shutil
import stat as stat_mod
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from renamerd.connectors import (
    Changes,
    ConfigError,
    Conflict,
    ConnectorError,
    NotFound,
    RemoteFile,
    iter_chunks,
)
from renamerd_connectors.local_watch import FolderWatch, WatchUnavailable

log = logging.getLogger(__name__)

DEFAULT_IGNORE = (".*", "~$*", "*.part", "*.crdownload", "*.tmp")
_CHUNK = 1024 * 1024
_NO_LINK = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS}


def _norm(path: str) -> str:
    """Absolute, normalised, no trailing slash."""
    if path[:1] == "/" and "//" not in path and "/." not in path and path[-1:] != "/":
        return path  # already so (the file ids this connector hands out): no two passes
    return os.path.normpath(os.path.abspath(path))


def _remote_of(path: str, size: int, mtime_ns: int) -> RemoteFile:
    return RemoteFile(
        id=path, path=path, name=os.path.basename(path), size=size, revision=f"{size}-{mtime_ns}",
        modified=datetime.fromtimestamp(mtime_ns / 1e9, UTC), parent_id=os.path.dirname(path),
    )


def _remote(path: str, st: os.stat_result) -> RemoteFile:
    return _remote_of(path, st.st_size, st.st_mtime_ns)


def _number(options: dict[str, Any], key: str, default: float, *, least: float) -> float:
    """Option `key` as a number of at least `least`; ConfigError otherwise."""
    try:
        value = float(options.get(key, default))
    except (TypeError, ValueError) as err:
        raise ConfigError(f"local: {key} must be a number: {err}") from err
    if value < least:
        raise ConfigError(f"local: {key} must be at least {least:g}")
    return value


def _fsync_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class _MovedLog:
    """The files this connection moved: (path, size, mtime_ns) lines in a JSONL file.

    Appends and rewrites hold an exclusive flock, so several processes can share it.
    """

    PRUNE_ABOVE = 500

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self._memory: dict[str, tuple[int, int]] = {}
        self._cache: tuple[float, int, dict[str, tuple[int, int]]] | None = None
        #: the file, open for appending, and its inode (reopened when the file was replaced)
        self._fd: int | None = None
        self._ino = 0
        self._lock = threading.Lock()

    def add(self, path: str, st: os.stat_result) -> None:
        """Record a move: one line appended under the lock. The file stays open between moves
        (opening, locking and closing it per move cost more than the move itself)."""
        self._memory[path] = (st.st_size, st.st_mtime_ns)
        if self.file is None:
            return
        line = f'{{"p": {json.dumps(path)}, "s": {st.st_size}, "m": {st.st_mtime_ns}}}\n'
        with self._lock:
            fd = self._open()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                os.write(fd, line.encode())
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def _open(self) -> int:
        assert self.file is not None
        try:
            current = os.stat(self.file).st_ino
        except FileNotFoundError:
            current = -1
        if self._fd is not None and current != self._ino:
            self.close()  # deleted or replaced under us: write to the file that is there now
        if self._fd is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                               0o600)
            self._ino = os.fstat(self._fd).st_ino
        return self._fd

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def entries(self) -> dict[str, tuple[int, int]]:
        if self.file is None:
            return self._memory
        try:
            st = self.file.stat()
        except FileNotFoundError:
            return self._memory
        if self._cache and self._cache[:2] == (st.st_mtime, st.st_size):
            return self._cache[2]
        out: dict[str, tuple[int, int]] = {}
        with open(self.file, encoding="utf-8") as fh:
            for line in fh:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    e = json.loads(line)
                    out[str(e["p"])] = (int(e["s"]), int(e["m"]))
        if len(out) > self.PRUNE_ABOVE:
            out = self._prune(out)
        with contextlib.suppress(FileNotFoundError):
            st = self.file.stat()  # again: pruning may have rewritten it
            self._cache = (st.st_mtime, st.st_size, out)
        return out

    def _prune(self, entries: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
        """Keep only entries still matching the disk; rewrite the file under the lock."""
        assert self.file is not None
        live: dict[str, tuple[int, int]] = {}
        with open(self.file, "r+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            for line in fh.read().splitlines():  # re-read: others may have appended
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    e = json.loads(line)
                    entries[str(e["p"])] = (int(e["s"]), int(e["m"]))
            for path, key in entries.items():
                with contextlib.suppress(OSError):
                    st = os.stat(path, follow_symlinks=False)
                    if (st.st_size, st.st_mtime_ns) == key:
                        live[path] = key
            fh.seek(0)
            fh.truncate()
            for path, (size, mtime) in live.items():
                fh.write(json.dumps({"p": path, "s": size, "m": mtime}) + "\n")
            fh.flush()
        return live


class LocalConnector:
    """The Connector protocol over local (or mounted) folders. See the module docstring."""

    provider = "local"
    case_insensitive = False

    def __init__(self, options: dict[str, Any], *, name: str = "local", state_dir: str = "") -> None:
        self.stable_checks = int(_number(options, "stable_checks", 2, least=1))
        extra = options.get("ignore", [])
        if isinstance(extra, str) or not all(isinstance(x, str) for x in extra):
            raise ConfigError("local: ignore must be a list of glob patterns")
        self.ignore = DEFAULT_IGNORE + tuple(extra)
        self._ignore_re = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in self.ignore))
        self.settle_s = _number(options, "settle_seconds", 2.0, least=0)
        self.inotify = bool(options.get("inotify", True))
        self._watch: FolderWatch | None = None
        self._watch_key: tuple[str, bool] | None = None
        self._watch_seen: FolderWatch | None = None
        #: the last cursor `changes` returned and what it holds (watch, recursive, files), so
        #: that the next wait and look need not parse it again
        self._last: tuple[str, str, bool, dict[str, list[int]]] | None = None
        unknown = set(options) - {"stable_checks", "ignore", "settle_seconds", "inotify"}
        if unknown:
            raise ConfigError(f"local: unknown option(s) {', '.join(sorted(unknown))}")
        self.name = name
        slug = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        self.moved = _MovedLog(Path(state_dir) / f"local-moved-{slug}.jsonl" if state_dir else None)

    # ---- changes

    def ignored(self, name: str) -> bool:
        """Whether a file or folder name is skipped (temporary, partial, hidden)."""
        return self._ignore_re.match(name) is not None

    def _scan(self, watch: str, recursive: bool) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of the files below `watch` that are not ignored."""
        found: dict[str, tuple[int, int]] = {}
        stack = [watch]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except FileNotFoundError:
                if folder == watch:
                    raise NotFound(f"folder {watch} not found") from None
                continue
            except NotADirectoryError:
                raise NotFound(f"{watch} is not a folder") from None
            except PermissionError as err:
                if folder == watch:
                    raise ConnectorError(f"cannot read {watch}: permission denied") from err
                log.warning("local %s: skipping unreadable folder %s", self.name, folder)
                continue
            for entry in entries:
                if self.ignored(entry.name):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if recursive:
                            stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        found[entry.path] = (st.st_size, st.st_mtime_ns)
                except FileNotFoundError:
                    continue  # vanished while we looked
        return found

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """See `Connector.changes`. A file is reported once its size and mtime held still for
        `stable_checks` looks, and again whenever they change (and settle again). Files this
        connection moved are never reported. Read-only on disk; safe to repeat."""
        watch = _norm(watch)
        scanned = self._scan(watch, recursive)
        state, reset = self._load_cursor(cursor, watch, recursive)
        moved = self.moved.entries()
        new_state: dict[str, list[int]] = {}
        files: list[RemoteFile] = []
        prefix = len(watch.rstrip("/")) + 1
        for path, (size, mtime_ns) in sorted(scanned.items()):
            rel = path[prefix:]
            key = [size, mtime_ns]
            if moved.get(path) == (size, mtime_ns):
                new_state[rel] = [*key, self.stable_checks]
                continue
            old = state.get(rel)
            looks = old[2] + 1 if old is not None and old[:2] == key else 1
            if looks >= self.stable_checks:
                if old is None or old[:2] != key or old[2] < self.stable_checks:
                    files.append(_remote_of(path, size, mtime_ns))
                looks = self.stable_checks
            new_state[rel] = [*key, looks]
        new_cursor = json.dumps(
            {"v": 1, "w": watch, "r": recursive, "f": new_state}, separators=(",", ":"),
            ensure_ascii=False,
        )
        self._last = (new_cursor, watch, recursive, new_state)
        return Changes(files, new_cursor, reset=reset)

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
            try:
                data = json.loads(cursor)
                watch, recursive, files = str(data["w"]), bool(data["r"]), data["f"]
            except (ValueError, KeyError, TypeError):
                return True
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

    def _load_cursor(
        self, cursor: str | None, watch: str, recursive: bool
    ) -> tuple[dict[str, list[int]], bool]:
        if cursor is None:
            return {}, False
        last = self._last
        if last is not None and last[0] == cursor and last[1:3] == (watch, recursive):
            return last[3], False  # the one this connector just made: no need to parse it
        try:
            data = json.loads(cursor)
            if data.get("v") == 1 and data["w"] == watch and data["r"] == recursive:
                state = {str(k): [int(x) for x in v] for k, v in data["f"].items()}
                if all(len(v) == 3 for v in state.values()):
                    return state, False
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        log.info("local %s: cursor does not fit %s, listing afresh", self.name, watch)
        return {}, True

    # ---- stat, download

    def stat(self, file_id: str) -> RemoteFile | None:
        """See `Connector.stat`: the regular file at path `file_id`, or None. Read-only."""
        path = _norm(file_id)
        try:
            st = os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise ConnectorError(f"cannot stat {path}: {err.strerror}") from err
        return _remote(path, st) if stat_mod.S_ISREG(st.st_mode) else None

    def stat_path(self, path: str) -> RemoteFile | None:
        """See `Connector.stat_path`; case-sensitive as the filesystem is. Read-only."""
        return self.stat(path)

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """See `Connector.download`. Raises NotFound, TooLarge. Safe to repeat."""
        path = _norm(file_id)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound(f"file {path} not found") from None
        except PermissionError as err:
            raise ConnectorError(f"cannot read {path}: permission denied") from err
        try:
            if stat_mod.S_ISDIR(os.fstat(fd).st_mode):
                raise NotFound(f"file {path} not found")
            # straight reads (no buffered file object): a document is mostly one or two reads
            return iter_chunks(iter(lambda: os.read(fd, _CHUNK), b""), dest, max_bytes)
        finally:
            os.close(fd)

    # ---- ensure_folder, move

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`: makes `path` and parents; returns the normalised path.
        Idempotent. Raises Conflict if a file holds one of the names."""
        path = _norm(path)
        try:
            os.makedirs(path, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as err:
            raise Conflict(f"a file is in the way of folder {path}") from err
        except OSError as err:
            raise ConnectorError(f"cannot create {path}: {err.strerror}") from err
        return path

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """See `Connector.move`. Never overwrites (Conflict); a repeat is a no-op; a move
        interrupted between link and unlink is completed by repeating it."""
        if not name or name in (".", "..") or "/" in name or "\0" in name:
            raise ConnectorError(f"invalid file name {name!r}")
        src, folder = _norm(file_id), _norm(folder_id)
        dest = os.path.join(folder, name)
        src_st = self._stat_file(src)
        if src == dest:
            return _remote(dest, src_st)
        try:  # the name is taken when the link fails: only then is the destination looked at
            os.link(src, dest, follow_symlinks=False)
        except FileExistsError:
            return self._already_there(src, src_st, dest, name, folder)
        except (FileNotFoundError, NotADirectoryError):
            if not os.path.isdir(folder):
                raise NotFound(f"folder {folder} not found") from None
            raise NotFound(f"file {src} not found") from None
        except OSError as err:
            if err.errno == errno.EXDEV:
                return self._move_across(src, src_st, folder, dest)
            if err.errno in _NO_LINK:
                self._claim_and_replace(src, dest)
            else:
                raise ConnectorError(f"cannot move {src}: {err.strerror}") from err
        else:
            self._unlink(src)
        # No fsync here: a move within one filesystem never puts the data at risk (same inode;
        # the journal orders the link before the unlink), and its directory entries reach the
        # disk with the filesystem's next commit, like the job database's own commits
        # (synchronous=NORMAL). It cost 4-10 ms per document. Copies across filesystems are
        # fsynced before the source goes (`_move_across`).
        self.moved.add(dest, src_st)
        return _remote(dest, src_st)

    def _already_there(self, src: str, src_st: os.stat_result, dest: str, name: str,
                       folder: str) -> RemoteFile:
        """`dest` exists: this very file (a move stopped between link and unlink, or the same
        name in another case on a case-insensitive filesystem): finish the move; another file:
        Conflict."""
        try:
            dest_st = os.stat(dest, follow_symlinks=False)
        except FileNotFoundError:  # gone again meanwhile: let the caller try once more
            raise Conflict(f"{name!r} was taken in {folder}") from None
        if not os.path.samestat(src_st, dest_st):
            raise Conflict(f"{name!r} is taken in {folder}")
        if src_st.st_nlink >= 2:  # an earlier move stopped between link and unlink
            self._unlink(src)
        else:  # one entry, other case, on a case-insensitive filesystem
            os.rename(src, dest)
        self.moved.add(dest, src_st)
        return _remote(dest, src_st)

    def _stat_file(self, path: str) -> os.stat_result:
        try:
            st = os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound(f"file {path} not found") from None
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotFound(f"{path} is not a regular file")
        return st

    @staticmethod
    def _unlink(path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    @staticmethod
    def _claim_and_replace(src: str, dest: str) -> None:
        """No hard links here: claim `dest` with O_EXCL, then rename over our own claim."""
        try:
            fd = os.open(dest, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            raise Conflict(f"{os.path.basename(dest)!r} is taken") from None
        os.close(fd)
        try:
            os.replace(src, dest)
        except OSError as err:
            LocalConnector._unlink(dest)
            if isinstance(err, FileNotFoundError):
                raise NotFound(f"file {src} not found") from None
            raise ConnectorError(f"cannot move {src}: {err.strerror}") from err

    def _move_across(self, src: str, src_st: os.stat_result, folder: str, dest: str) -> RemoteFile:
        """Copy to a hidden temporary file beside `dest`, fsync, link into place, drop the source."""
        tmp = os.path.join(folder, f".renamerd-{secrets.token_hex(8)}.part")
        try:
            with open(src, "rb") as fin, open(tmp, "xb") as fout:
                shutil.copyfileobj(fin, fout, _CHUNK)
                fout.flush()
                os.fsync(fout.fileno())
            shutil.copystat(src, tmp)
            try:
                os.link(tmp, dest)
            except FileExistsError:
                raise Conflict(f"{os.path.basename(dest)!r} is taken in {folder}") from None
            except OSError as err:
                if err.errno not in _NO_LINK:
                    raise
                self._claim_and_replace(tmp, dest)
        except FileNotFoundError:
            raise NotFound(f"file {src} not found") from None
        except OSError as err:
            raise ConnectorError(f"cannot copy {src} to {folder}: {err.strerror}") from err
        finally:
            self._unlink(tmp)
        _fsync_dir(folder)
        self._unlink(src)
        st = os.stat(dest, follow_symlinks=False)
        self.moved.add(dest, st)
        return _remote(dest, st)

    def close(self) -> None:
        """Stop watching the folder (inotify), close the moved-files log. Safe to call twice."""
        self.moved.close()
        if self._watch is not None:
            self._watch.close()
            self._watch = None
