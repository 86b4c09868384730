"""An in-memory connector: cloud-drive semantics without a network, for tests of the daemon.

Drives live in a process-wide registry, selected by the option ``drive`` (any name); every
connector opened on the same name sees the same files, like two clients of one account. A drive
behaves like the cloud providers: stable ids that survive a move, a change feed with an integer
cursor ("mem:<seq>") that also reports files moved into the watched folder, optional
case-insensitive names (option ``case_insensitive``), pages of ``page_size`` entries, each page
one "API call".

Tests reach behind the connector through the drive itself (`drive(name)`):

    d = memory.drive("t1", case_insensitive=True)
    d.put("/inbox/a.pdf", b"...")       # create or overwrite, parents made
    d.read("/lib/x.pdf"); d.listing("/lib"); d.delete("/inbox/a.pdf")
    d.faults.rate = 0.2                 # 20% of API calls raise TransientError (retried inside)
    d.inject("move", AuthError("revoked"), times=1)   # the next move fails so
    d.faults.total_calls                # API calls seen
    d.auth_required = True              # connectors then need a valid refresh_token option
    code = d.issue_code(); d.revoke(token)   # for `renamerd connect memory` and revocation tests

Options: ``drive`` (required), ``case_insensitive`` (bool, default false; fixed when the drive is
first created), ``page_size`` (default 500), ``min_sleep`` (pacer seconds between calls, default 0),
``refresh_token`` (checked only when the drive has ``auth_required``).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import threading
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, BinaryIO

from renamerd.connectors import (
    AuthError,
    Changes,
    ConfigError,
    Conflict,
    NotFound,
    Pacer,
    RemoteFile,
    TooLarge,
    TransientError,
)

ROOT_ID = "root"


@dataclass
class MemoryFaults:
    """Fault injection and call counting, shaped like `tests/emulators/base.Faults`."""

    rate: float = 0.0
    seed: int = 1234
    retry_after: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def reset_counts(self) -> None:
        self.calls.clear()
        self.injected.clear()

    def decide(self, op: str) -> bool:
        """Count the call; True when it should fail."""
        self.calls[op] += 1
        if self.rate > 0 and self._rng.random() < self.rate:
            self.injected[op] += 1
            return True
        return False


@dataclass
class _Node:
    id: str
    name: str
    parent: str | None
    folder: bool
    data: bytes = b""
    revision: str = ""
    modified: datetime = field(default_factory=lambda: datetime.now(UTC))


class MemoryDrive:
    """One account's storage. All methods are thread-safe."""

    def __init__(self, name: str, *, case_insensitive: bool = False) -> None:
        self.name = name
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
        self.auth_required = False
        self._codes: set[str] = set()
        self._tokens: set[str] = set()

    # ---- authorisation (a miniature OAuth server)

    def issue_code(self) -> str:
        """A one-time authorisation code, as a person would copy from a consent page."""
        with self._lock:
            code = f"code-{secrets.token_hex(6)}"
            self._codes.add(code)
            return code

    def exchange(self, code: str) -> str:
        """Trade a code for a new refresh token. Raises AuthError for an unknown or used code."""
        with self._lock:
            if code not in self._codes:
                raise AuthError(f"memory drive {self.name}: authorisation code refused")
            self._codes.discard(code)
            token = f"mrt-{secrets.token_urlsafe(24)}"
            self._tokens.add(token)
            return token

    def revoke(self, token: str) -> None:
        """Invalidate a refresh token (the user removed the app's access). Safe to repeat."""
        with self._lock:
            self._tokens.discard(token)

    def check_token(self, token: str | None) -> None:
        """Raise AuthError unless auth is off or `token` is a live refresh token."""
        if self.auth_required and (token is None or token not in self._tokens):
            raise AuthError(f"memory drive {self.name}: refresh token revoked or unknown; "
                            "run `renamerd connect` again")

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


class MemoryConnector:
    """The Connector protocol over a `MemoryDrive`. See the module docstring for options."""

    provider = "memory"

    def __init__(self, options: dict[str, Any], *, name: str = "memory", state_dir: str = "") -> None:
        drive_name = options.get("drive")
        if not drive_name or not isinstance(drive_name, str):
            raise ConfigError("memory connector: option 'drive' (a name) is required")
        try:
            self.page_size = int(options.get("page_size", 500))
            min_sleep = float(options.get("min_sleep", 0.0))
        except (TypeError, ValueError) as err:
            raise ConfigError(f"memory connector: bad option: {err}") from err
        if self.page_size < 1:
            raise ConfigError("memory connector: page_size must be at least 1")
        self.name = name
        self.drive = drive(drive_name, case_insensitive=bool(options.get("case_insensitive")))
        self.case_insensitive = self.drive.case_insensitive
        self.pacer = Pacer(min_sleep=min_sleep, retries=10, max_sleep=1.0)
        token = options.get("refresh_token")
        self._token = token if isinstance(token, str) else None

    @classmethod
    def connect_flow(
        cls, options: dict[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
    ) -> str:
        """The code-paste flow `renamerd connect memory` runs: show where to authorise, read the
        code, return a refresh token. Raises ConfigError without ``drive``, AuthError for a bad
        code. Not safe to repeat with the same code (codes are single-use)."""
        name = options.get("drive")
        if not name or not isinstance(name, str):
            raise ConfigError("memory connector: option 'drive' (a name) is required")
        d = drive(name, case_insensitive=bool(options.get("case_insensitive")))
        echo(f"Open memory://authorize?drive={name} and allow access, then paste the code.")
        code = prompt("Authorisation code").strip()
        return d.exchange(code)

    def _call(self, op: str) -> None:
        self.drive.check_token(self._token)
        self.pacer.call(lambda: self.drive.api(op), what=f"memory {op}")

    def _folder(self, path: str) -> str:
        node = self.drive.lookup(path)
        if node is None or not node.folder:
            raise NotFound(f"folder {path} not found")
        return node.id

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """See `Connector.changes`. Cursor "mem:<seq>"; a foreign cursor gives a full listing
        with reset=True. One API call per page. Read-only; safe to repeat."""
        d = self.drive
        self._call("changes")
        with d._lock:
            folder_id = self._folder(watch)
            seq = d.seq
        since = _parse_cursor(cursor)
        if since is None or since > seq:
            with d._lock:
                nodes = d.files_under(folder_id, recursive)
                files = [d.remote(n) for n in nodes]
            for _ in range(1, -(-len(files) // self.page_size)):
                self._call("changes")  # the further pages of a full listing
            return Changes(files, f"mem:{seq}", reset=cursor is not None)
        files_by_id: dict[str, RemoteFile] = {}
        position, last = 0, since
        while True:
            ids, position, last_in_page = d.changed_since(since, position, self.page_size)
            last = max(last, last_in_page)
            with d._lock:
                for node_id in ids:
                    node = d.node(node_id)
                    if node is None or node.folder or not d.under(node, folder_id, recursive):
                        continue
                    files_by_id[node.id] = d.remote(node)
            if len(ids) < self.page_size:
                break
            self._call("changes")
        # the cursor covers exactly what was read: a change landing meanwhile comes next time
        return Changes(list(files_by_id.values()), f"mem:{last}")

    def stat(self, file_id: str) -> RemoteFile | None:
        """See `Connector.stat`. Read-only."""
        self._call("stat")
        with self.drive._lock:
            node = self.drive.node(file_id)
            return None if node is None or node.folder else self.drive.remote(node)

    def stat_path(self, path: str) -> RemoteFile | None:
        """See `Connector.stat_path` (case-insensitive if the drive is). Read-only."""
        self._call("stat_path")
        with self.drive._lock:
            node = self.drive.lookup(path)
            return None if node is None or node.folder else self.drive.remote(node)

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """See `Connector.download`. Raises NotFound, TooLarge. Safe to repeat."""
        self._call("download")
        node = self.drive.node(file_id)
        if node is None or node.folder:
            raise NotFound(f"file {file_id} not found")
        data = node.data
        if len(data) > max_bytes:
            dest.write(data[:max_bytes])
            raise TooLarge(f"file is larger than {max_bytes} bytes")
        dest.write(data)
        return len(data)

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`. Idempotent. Raises Conflict if a file holds a name."""
        self._call("ensure_folder")
        return self.drive.mkdir(path).id

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """See `Connector.move`. Never overwrites (Conflict); a repeat is a no-op."""
        self._call("move")
        with self.drive._lock:
            return self.drive.remote(self.drive.move(file_id, folder_id, name))

    def close(self) -> None:
        """Nothing to release. Safe to call twice."""


def _parse_cursor(cursor: str | None) -> int | None:
    if not cursor or not cursor.startswith("mem:"):
        return None
    try:
        return int(cursor[4:])
    except ValueError:
        return None


__all__ = ["MemoryConnector", "MemoryDrive", "MemoryFaults", "drive", "forget_drive"]
