"""A memory drive: one account's files and folders, its change log, its faults, and the
process-wide registry of drives (`drive(name)`, `forget_drive(name)`)."""

from __future__ import annotations

import hashlib
import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime

from renamerd.connectors import Conflict, NotFound, RemoteFile, TransientError

from .auth import MemoryOAuth
from .faults import MemoryFaults

ROOT_ID = "root"


@dataclass
class _Node:
    id: str
    name: str
    parent: str | None
    folder: bool
    data: bytes = b""
    revision: str = ""
    modified: datetime = field(default_factory=lambda: datetime.now(UTC))


class MemoryDrive(MemoryOAuth):
    """One account's storage, with its own miniature OAuth server (`MemoryOAuth`). All methods
    are thread-safe."""

    def __init__(self, name: str, *, case_insensitive: bool = False) -> None:
        super().__init__(name)
        self.case_insensitive = case_insensitive
        self.faults = MemoryFaults()
        self._lock = threading.RLock()
        self._ids = 0
        self._seq = 0
        self._nodes: dict[str, _Node] = {ROOT_ID: _Node(ROOT_ID, "", None, True)}
        self._children: dict[str, dict[str, str]] = {ROOT_ID: {}}
        self._log_seq: list[int] = []
        self._log_id: list[str] = []
        self._inject: dict[str, list[BaseException | None]] = {}

    # ---- plumbing

    def fold(self, name: str) -> str:
        return name.casefold() if self.case_insensitive else name

    def api(self, op: str) -> None:
        """Count one API call of kind `op`; raise an injected or random fault."""
        with self._lock:
            queued = self._inject.get(op)
            error = queued.pop(0) if queued else None
            if error is not None:
                self.faults.calls[op] += 1
                raise error
            if self.faults.decide(op):
                raise TransientError(f"memory drive {self.name}: injected fault on {op}",
                                     retry_after=self.faults.retry_after)

    def inject(self, op: str, error: BaseException, times: int = 1, *, after: int = 0) -> None:
        """Make the `times` API calls of kind `op` that follow the next `after` ones raise
        `error` (not retried if it is not a TransientError). Kinds: changes, stat, stat_path,
        download, ensure_folder, move."""
        with self._lock:
            self._inject.setdefault(op, []).extend([None] * after + [error] * times)

    def _new_id(self) -> str:
        self._ids += 1
        return f"m{self._ids:06d}"

    def _touch(self, node_id: str) -> None:
        self._seq += 1
        self._log_seq.append(self._seq)
        self._log_id.append(node_id)

    @property
    def seq(self) -> int:
        return self._seq

    def _split(self, path: str) -> list[str]:
        return [part for part in path.split("/") if part]

    def lookup(self, path: str) -> _Node | None:
        with self._lock:
            node = self._nodes[ROOT_ID]
            for part in self._split(path):
                if not node.folder:
                    return None
                child = self._children[node.id].get(self.fold(part))
                if child is None:
                    return None
                node = self._nodes[child]
            return node

    def node(self, node_id: str) -> _Node | None:
        with self._lock:
            return self._nodes.get(node_id)

    def path_of(self, node: _Node) -> str:
        with self._lock:
            parts: list[str] = []
            while node.parent is not None:
                parts.append(node.name)
                node = self._nodes[node.parent]
            return "/" + "/".join(reversed(parts))

    def _add(self, parent: str, name: str, *, folder: bool, data: bytes = b"") -> _Node:
        node = _Node(self._new_id(), name, parent, folder, data=data, revision=_rev(data))
        self._nodes[node.id] = node
        self._children[parent][self.fold(name)] = node.id
        if folder:
            self._children[node.id] = {}
        self._touch(node.id)
        return node

    def mkdir(self, path: str) -> _Node:
        """Create `path` and missing parents (no API call); an existing folder is returned.
        Raises Conflict if a file holds one of the names."""
        with self._lock:
            node = self._nodes[ROOT_ID]
            for part in self._split(path):
                child = self._children[node.id].get(self.fold(part))
                if child is None:
                    node = self._add(node.id, part, folder=True)
                else:
                    node = self._nodes[child]
                    if not node.folder:
                        raise Conflict(f"a file holds the name {part!r}")
            return node

    # ---- backdoor

    def put(self, path: str, data: bytes) -> str:
        """Create or overwrite the file at `path` (parents made); return its id."""
        with self._lock:
            parts = self._split(path)
            parent = self.mkdir("/".join(parts[:-1]))
            existing = self._children[parent.id].get(self.fold(parts[-1]))
            if existing is not None:
                node = self._nodes[existing]
                if node.folder:
                    raise Conflict(f"{path} is a folder")
                node.data = bytes(data)
                node.revision = _rev(node.data)
                node.modified = datetime.now(UTC)
                self._touch(node.id)
                return node.id
            return self._add(parent.id, parts[-1], folder=False, data=bytes(data)).id

    def read(self, path: str) -> bytes | None:
        """Content of the file at exactly `path` (exact case), or None."""
        with self._lock:
            node = self.lookup(path)
            if node is None or node.folder or self.path_of(node) != "/" + "/".join(
                self._split(path)
            ):
                return None
            return node.data

    def listing(self, folder: str) -> list[str]:
        """Sorted names directly in `folder`; [] if it is not a folder."""
        with self._lock:
            node = self.lookup(folder)
            if node is None or not node.folder:
                return []
            return sorted(self._nodes[c].name for c in self._children[node.id].values())

    def delete(self, path: str) -> None:
        """Remove the file or (recursively) the folder at `path`. Raises NotFound."""
        with self._lock:
            node = self.lookup(path)
            if node is None or node.parent is None:
                raise NotFound(path)
            self._remove(node)

    def _remove(self, node: _Node) -> None:
        if node.folder:
            for child in list(self._children[node.id].values()):
                self._remove(self._nodes[child])
            del self._children[node.id]
        assert node.parent is not None
        del self._children[node.parent][self.fold(node.name)]
        del self._nodes[node.id]
        self._touch(node.id)

    # ---- operations used by the connector (each is one API call, counted by the caller)

    def remote(self, node: _Node) -> RemoteFile:
        return RemoteFile(
            id=node.id, path=self.path_of(node), name=node.name, size=len(node.data),
            revision=node.revision, modified=node.modified, parent_id=node.parent,
        )

    def under(self, node: _Node, folder_id: str, recursive: bool) -> bool:
        if not recursive:
            return node.parent == folder_id
        parent = node.parent
        while parent is not None:
            if parent == folder_id:
                return True
            parent = self._nodes[parent].parent
        return False

    def files_under(self, folder_id: str, recursive: bool) -> list[_Node]:
        out: list[_Node] = []
        stack = [folder_id]
        while stack:
            for child in self._children[stack.pop()].values():
                node = self._nodes[child]
                if node.folder:
                    if recursive:
                        stack.append(node.id)
                else:
                    out.append(node)
        return out

    def changed_since(self, seq: int, start: int, limit: int) -> tuple[list[str], int, int]:
        """Ids touched after `seq`, from log position `start`, at most `limit`; the next
        position and the seq of the last entry returned (`seq` if none)."""
        with self._lock:
            begin = max(start, bisect_right(self._log_seq, seq))
            end = min(len(self._log_id), begin + limit)
            last = self._log_seq[end - 1] if end > begin else seq
            return self._log_id[begin:end], end, last

    def move(self, file_id: str, folder_id: str, name: str) -> _Node:
        with self._lock:
            node = self._nodes.get(file_id)
            folder = self._nodes.get(folder_id)
            if node is None or node.folder:
                raise NotFound(f"file {file_id} not found")
            if folder is None or not folder.folder:
                raise NotFound(f"folder {folder_id} not found")
            if node.parent == folder_id and node.name == name:
                return node
            holder = self._children[folder_id].get(self.fold(name))
            if holder is not None and holder != file_id:
                raise Conflict(f"{name!r} is taken in {self.path_of(folder)}")
            assert node.parent is not None
            del self._children[node.parent][self.fold(node.name)]
            node.parent, node.name = folder_id, name
            self._children[folder_id][self.fold(name)] = node.id
            self._touch(node.id)
            return node


def _rev(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


_DRIVES: dict[str, MemoryDrive] = {}
_DRIVES_LOCK = threading.Lock()


def drive(name: str, *, case_insensitive: bool = False) -> MemoryDrive:
    """The process-wide drive called `name`, created (empty) on first use."""
    with _DRIVES_LOCK:
        d = _DRIVES.get(name)
        if d is None:
            d = _DRIVES[name] = MemoryDrive(name, case_insensitive=case_insensitive)
        return d


def forget_drive(name: str) -> None:
    """Drop a drive from the registry (tests call this to start afresh). Safe to repeat."""
    with _DRIVES_LOCK:
        _DRIVES.pop(name, None)
