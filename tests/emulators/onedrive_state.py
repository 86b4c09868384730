"""The OneDrive emulator's state: one drive's items, its change log, the name rules, the backdoor.

See `emulators.onedrive` for the whole picture; `OneDriveDrive` is the base of `OneDriveEmulator`.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.responses import JSONResponse

from .msidentity import IdentityPlatform

INVALID_CHARS = set('"*:<>?/\\|')
RESERVED = {".lock", "con", "prn", "aux", "nul", "desktop.ini"} | {
    f"{p}{n}" for p in ("com", "lpt") for n in range(10)
}


def quick_xor_hash(data: bytes) -> str:
    """OneDrive's QuickXorHash (base64): bytes XORed into a 160-bit ring at 11-bit steps,
    then the length XORed into the last 8 bytes. Same results as Microsoft's C# sample."""
    width = 160
    # XOR of every 160th byte: fold the data in 160-byte blocks as little-endian integers
    folded = 0
    for off in range(0, len(data), width):
        folded ^= int.from_bytes(data[off : off + width], "little")
    lanes = folded.to_bytes(width, "little")
    mask = (1 << width) - 1
    acc = 0
    for i, b in enumerate(lanes):
        if b:
            s = (i * 11) % width
            acc ^= ((b << s) | (b >> (width - s))) & mask
    out = bytearray(acc.to_bytes(20, "little"))
    for i, b in enumerate(len(data).to_bytes(8, "little")):
        out[12 + i] ^= b
    return base64.b64encode(bytes(out)).decode()


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def name_problem(name: str) -> str | None:
    """Why OneDrive refuses `name`, or None."""
    if not name or name != name.strip():
        return "leading or trailing spaces, or an empty name"
    if any(c in INVALID_CHARS for c in name):
        return "a character OneDrive does not allow"
    low = name.lower()
    if low in RESERVED:
        return "a reserved name"
    if low.startswith("~$") or "_vti_" in low:
        return "a reserved prefix or part"
    if len(name) > 255:
        return "a name longer than 255 characters"
    return None


@dataclass
class Item:
    id: str
    name: str
    parent_id: str | None
    folder: bool
    created: float
    modified: float
    content: bytes = b""
    version: int = 1  # eTag counter: any change
    content_version: int = 1  # cTag counter: content changes
    seq: int = 0  # position in the change log
    deleted: bool = False
    qxh: str = ""
    sha1: str = ""
    sha256: str = ""

    def set_content(self, data: bytes) -> None:
        self.content = data
        self.qxh = quick_xor_hash(data)
        self.sha1 = hashlib.sha1(data).hexdigest().upper()
        self.sha256 = hashlib.sha256(data).hexdigest().upper()


class GraphError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}

    def response(self, inner: str | None = None) -> JSONResponse:
        err: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "innerError": {"date": iso(time.time()), "request-id": secrets.token_hex(8)},
        }
        if inner:
            err["innerError"]["code"] = inner
        return JSONResponse({"error": err}, status_code=self.status, headers=self.headers)


@dataclass
class OneDriveDrive:
    """State of one drive, one user and one tenant (the identity platform), and the tests'
    backdoor into it. `OneDriveEmulator` adds the Graph app serving it."""

    drive_type: str = "personal"  # personal | business
    token_lifetime: int = 3600
    page_size: int = 200
    clients: dict[str, str | None] = field(default_factory=lambda: {"renamerd-test-client": None})
    device_interval: int = 1
    drive_id: str = field(default_factory=lambda: secrets.token_hex(8))
    user: dict[str, str] = field(
        default_factory=lambda: {"id": "user-1", "displayName": "Ada", "mail": "ada@example.org"}
    )

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)
        self.items: dict[str, Item] = {}
        self.children: dict[str, dict[str, str]] = {}  # folder id -> lower name -> id
        self._log_seqs: list[int] = []
        self._log_ids: list[str] = []
        self._epoch = 1  # delta tokens minted before an invalidation carry an older epoch
        self.identity = IdentityPlatform(token_lifetime=self.token_lifetime, clients=self.clients,
                                         device_interval=self.device_interval,
                                         user_id=self.user["id"])
        self.downloads: dict[str, tuple[str, int, float]] = {}
        now = time.time()
        self.root = Item(id=self._new_id(), name="root", parent_id=None, folder=True,
                         created=now, modified=now)
        self.items[self.root.id] = self.root
        self.children[self.root.id] = {}
        self._log(self.root)

    # ------------------------------------------------------------------ drive state

    def _new_id(self) -> str:
        # personal ids look like "D0E6F1A2B3C4D5E6!123"; business ids are longer base32 strings
        return f"{self.drive_id.upper()}!{next(self._ids)}"

    def _log(self, item: Item) -> None:
        item.seq = next(self._seq)
        self._log_seqs.append(item.seq)
        self._log_ids.append(item.id)

    def _child(self, folder_id: str, name: str) -> Item | None:
        cid = self.children.get(folder_id, {}).get(name.lower())
        return self.items[cid] if cid else None

    def _resolve(self, path: str) -> Item | None:
        item = self.root
        for part in [p for p in path.split("/") if p]:
            if not item.folder:
                return None
            child = self._child(item.id, part)
            if child is None:
                return None
            item = child
        return item

    def _path_of(self, item: Item) -> str:
        parts: list[str] = []
        cur: Item | None = item
        while cur is not None and cur.parent_id is not None:
            parts.append(cur.name)
            cur = self.items.get(cur.parent_id)
        return "/" + "/".join(reversed(parts))

    def _is_under(self, item: Item, ancestor_id: str) -> bool:
        cur: Item | None = item
        while cur is not None:
            if cur.id == ancestor_id:
                return True
            cur = self.items.get(cur.parent_id) if cur.parent_id else None
        return False

    def _create(self, parent: Item, name: str, *, folder: bool, data: bytes = b"") -> Item:
        problem = name_problem(name)
        if problem:
            raise GraphError(400, "invalidRequest", f"The name {name!r} contains {problem}.")
        now = time.time()
        item = Item(id=self._new_id(), name=name, parent_id=parent.id, folder=folder,
                    created=now, modified=now)
        if not folder:
            item.set_content(data)
        else:
            self.children[item.id] = {}
        self.items[item.id] = item
        self.children[parent.id][name.lower()] = item.id
        self._log(item)
        return item

    def _remove(self, item: Item) -> None:
        if item.folder:
            for cid in list(self.children.get(item.id, {}).values()):
                self._remove(self.items[cid])
        parent_kids = self.children.get(item.parent_id or "", {})
        parent_kids.pop(item.name.lower(), None)
        item.deleted = True
        item.content = b""
        self._log(item)

    def _relocate(self, item: Item, parent: Item, name: str) -> None:
        self.children[item.parent_id or ""].pop(item.name.lower(), None)
        item.parent_id, item.name = parent.id, name
        self.children[parent.id][name.lower()] = item.id
        item.version += 1
        item.modified = time.time()
        self._log(item)

    # ------------------------------------------------------------------ backdoor

    def put(self, path: str, data: bytes) -> str:
        """Create or overwrite the file at `path` (parents created); return its id."""
        with self._lock:
            folder_path, _, name = path.rstrip("/").rpartition("/")
            parent = self._mkdirs(folder_path)
            existing = self._child(parent.id, name)
            if existing is not None and not existing.folder:
                existing.set_content(data)
                existing.version += 1
                existing.content_version += 1
                existing.modified = time.time()
                self._log(existing)
                return existing.id
            if existing is not None:
                raise ValueError(f"{path} is a folder")
            return self._create(parent, name, folder=False, data=data).id

    def seed(self, files: Iterable[tuple[str, bytes]]) -> int:
        """Put many files; return how many."""
        n = 0
        for path, data in files:
            self.put(path, data)
            n += 1
        return n

    def mkdir(self, path: str) -> str:
        with self._lock:
            return self._mkdirs(path).id

    def _mkdirs(self, path: str) -> Item:
        item = self.root
        for part in [p for p in path.split("/") if p]:
            child = self._child(item.id, part)
            if child is None:
                child = self._create(item, part, folder=True)
            elif not child.folder:
                raise ValueError(f"{part} is a file")
            item = child
        return item

    def read(self, path: str) -> bytes | None:
        with self._lock:
            item = self._resolve(path)
            return None if item is None or item.folder else item.content

    def item_id(self, path: str) -> str | None:
        with self._lock:
            item = self._resolve(path)
            return item.id if item else None

    def listing(self, folder: str) -> list[str]:
        """Names in `folder` (sorted), or [] when it does not exist."""
        with self._lock:
            item = self._resolve(folder)
            if item is None or not item.folder:
                return []
            return sorted(self.items[c].name for c in self.children[item.id].values())

    def delete(self, path: str) -> None:
        with self._lock:
            item = self._resolve(path)
            if item is not None and item is not self.root:
                self._remove(item)

    def move_path(self, src: str, dest_folder: str, name: str | None = None) -> None:
        """Move/rename as a user would (no conflict checks beyond refusing a taken name)."""
        with self._lock:
            item = self._resolve(src)
            parent = self._mkdirs(dest_folder)
            if item is None:
                raise ValueError(src)
            new = name or item.name
            if self._child(parent.id, new) not in (None, item):
                raise ValueError(f"{new} exists")
            self._relocate(item, parent, new)

    def invalidate_delta_tokens(self) -> None:
        """Every delta token minted so far now answers 410 Gone (resyncRequired)."""
        with self._lock:
            self._epoch += 1

    # identity backdoor, forwarded
    def issue_refresh_token(self, client_id: str | None = None) -> str:
        return self.identity.issue_refresh_token(client_id)

    def revoke_refresh_tokens(self) -> None:
        self.identity.revoke_refresh_tokens()

    def expire_access_tokens(self) -> None:
        self.identity.expire_access_tokens()

    def approve_device_code(self, user_code: str) -> bool:
        return self.identity.approve_device_code(user_code)

    def fail_next_token(self, status: int = 503, retry_after: float | None = 1) -> None:
        self.identity.fail_next_token(status, retry_after)

    @property
    def change_log_length(self) -> int:
        return len(self._log_seqs)
