"""The files a local connection moved, so that it never reports them again.

`changes` skips a file whose path, size and mtime match an entry: even when the target folder lies
inside the watched one, a filed document is not picked up a second time. An entry stops matching
as soon as someone edits the file. The log is a JSONL file under ``state_dir`` (one line per move,
shared by every process of the connection under an flock), pruned of entries that no longer
match the disk once it passes `MovedLog.PRUNE_ABOVE` lines; without a ``state_dir`` it lives in
memory only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from pathlib import Path


class MovedLog:
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
        """Close the appending file descriptor. Safe to call twice."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def entries(self) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of the moved files; the file is re-read only when it changed
        (and pruned past PRUNE_ABOVE entries). Do not modify the answer."""
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
