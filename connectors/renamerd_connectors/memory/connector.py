"""The memory connector: the protocol over a `MemoryDrive`, each operation one counted "API call"
run through a `Pacer` (so injected transient faults are retried as a cloud provider's would be).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO

from renamerd.connectors import Changes, ConfigError, NotFound, Pacer, RemoteFile, TooLarge

from .drive import drive


class MemoryConnector:
    """The Connector protocol over a `MemoryDrive`. See the package docstring for options."""

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

    def list_folders(self, path: str) -> list[str]:
        """See `Connector.list_folders`. One API call. Raises NotFound."""
        d = self.drive
        self._call("list_folders")
        with d._lock:
            folder_id = self._folder(path)
            return sorted(d._nodes[c].name for c in d._children[folder_id].values()
                          if d._nodes[c].folder)

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`. Idempotent. Raises Conflict if a file holds a name."""
        self._call("ensure_folder")
        return self.drive.mkdir(path).id

    def remove_empty_folder(self, path: str) -> bool:
        """See `SupportsRemoveEmptyFolder`. One API call."""
        self._call("remove_empty_folder")
        with self.drive._lock:
            node = self.drive.lookup(path)
            if node is None or not node.folder or node.parent is None \
                    or self.drive._children[node.id]:
                return False
            self.drive.delete(path)
            return True

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
