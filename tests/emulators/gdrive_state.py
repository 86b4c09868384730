"""The Drive v3 emulator's state: items, shared drives, the change log, OAuth clients and tokens.

`DriveState` is also the backdoor tests use (`put`, `mkdir`, `read`, `listing`, `find`,
`delete`, `revoke`, `fail_next`, `lose_reply`, ...); see `emulators.gdrive` for the whole picture.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
import threading
import time
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from emulators.gdrive_query import not_found

FOLDER = "application/vnd.google-apps.folder"
#: google-auth signs service-account assertions for Google's endpoint whatever token_uri is
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Item:
    id: str
    name: str
    mime: str
    parent: str | None
    drive_id: str | None
    created: str
    modified: str
    content: bytes = b""
    head_revision: str = ""
    version: int = 1
    trashed: bool = False

    @property
    def is_folder(self) -> bool:
        return self.mime == FOLDER

    def resource(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "drive#file", "id": self.id, "name": self.name, "mimeType": self.mime,
            "parents": [self.parent] if self.parent else [], "trashed": self.trashed,
            "createdTime": self.created, "modifiedTime": self.modified,
            "version": str(self.version),
        }
        if self.drive_id:
            out["driveId"] = self.drive_id
        if not self.is_folder:
            out["size"] = str(len(self.content))
            out["md5Checksum"] = hashlib.md5(self.content).hexdigest()  # noqa: S324
            out["headRevisionId"] = self.head_revision
        return out


# ------------------------------------------------------------------ state


@dataclass
class Token:
    kind: str  # "refresh" | "access"
    client: str
    expires: float = float("inf")
    refresh: str = ""


@dataclass
class DriveState:
    access_token_lifetime: float = 3600.0
    reported_expires_in: int = 3599
    clients: dict[str, str] = field(default_factory=lambda: {"emu-client": "emu-secret"})
    items: dict[str, Item] = field(default_factory=dict)
    children: dict[str, set[str]] = field(default_factory=dict)
    drives: dict[str, str] = field(default_factory=dict)
    log: dict[int, str] = field(default_factory=dict)
    seq_of: dict[str, int] = field(default_factory=dict)
    removed: dict[str, str | None] = field(default_factory=dict)
    next_seq: int = 100
    tokens: dict[str, Token] = field(default_factory=dict)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    #: show a consent page with an Allow button before redirecting (the browser flow);
    #: False: redirect at once (the CLI's loopback flow, approved by the person beforehand)
    consent_page: bool = False
    service_accounts: dict[str, Any] = field(default_factory=dict)
    scripted: list[tuple[int, str]] = field(default_factory=list)
    lost_replies: list[tuple[str, int]] = field(default_factory=list)
    #: the next this many token requests are answered 503
    token_failures: int = 0
    refreshes: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _clock: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.root_id = "0A" + self._new_id()[2:12] + "Uk9PVA"
        self.children[self.root_id] = set()

    def reset(self) -> None:
        """Empty the account (items, tokens, log, knobs back to defaults), keeping this object."""
        fresh = DriveState()
        with self.lock:
            for f in fields(self):
                if f.name != "lock":
                    setattr(self, f.name, getattr(fresh, f.name))
            self.root_id = fresh.root_id

    # ---- internals (call with the lock held)

    def _new_id(self) -> str:
        return "1" + hashlib.sha1(b"%d" % next(self._ids)).hexdigest()[:32]  # noqa: S324

    def _now(self) -> str:
        t = _EPOCH + timedelta(milliseconds=next(self._clock))
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

    def _touch(self, item_id: str) -> None:
        old = self.seq_of.pop(item_id, None)
        if old is not None:
            self.log.pop(old, None)
        self.next_seq += 1
        self.log[self.next_seq] = item_id
        self.seq_of[item_id] = self.next_seq

    def _drive_of_root(self, root: str) -> str | None:
        return root if root in self.drives else None

    def create(self, name: str, mime: str, parent: str, content: bytes = b"") -> Item:
        if parent not in self.children:
            raise not_found(parent)
        drive = self.items[parent].drive_id if parent in self.items else self._drive_of_root(parent)
        now = self._now()
        item = Item(self._new_id(), name, mime, parent, drive, now, now, content,
                    head_revision="0B" + secrets.token_hex(12))
        self.items[item.id] = item
        self.children[parent].add(item.id)
        if item.is_folder:
            self.children[item.id] = set()
        self._touch(item.id)
        return item

    def lookup(self, file_id: str, all_drives: bool) -> Item:
        item = self.items.get(file_id)
        if item is None or (item.drive_id and not all_drives):
            raise not_found(file_id)
        return item

    def _resolve_id(self, file_id: str) -> str:
        return self.root_id if file_id == "root" else file_id

    def _children_named(self, parent: str, name: str) -> list[Item]:
        kids = [self.items[c] for c in self.children.get(parent, ())]
        return sorted((k for k in kids if k.name == name and not k.trashed), key=lambda k: k.created)

    def _walk(self, path: str, *, create: bool) -> str | None:
        parts = [s for s in path.strip("/").split("/") if s]
        cur = self.root_id
        if parts and parts[0].startswith("drive:"):
            cur = parts.pop(0)[len("drive:"):]
        for part in parts:
            found = [k for k in self._children_named(cur, part) if k.is_folder]
            if found:
                cur = found[0].id
            elif create:
                cur = self.create(part, FOLDER, cur).id
            else:
                return None
        return cur

    def _find_file(self, path: str) -> Item | None:
        folder, _, name = path.rstrip("/").rpartition("/")
        pid = self._walk(folder, create=False)
        if pid is None:
            return None
        files = [k for k in self._children_named(pid, name) if not k.is_folder]
        return files[0] if files else None

    # ---- backdoor (paths: "/a/b" in My Drive, "/drive:<id>/a/b" in a shared drive)

    def mkdir(self, path: str) -> str:
        with self.lock:
            fid = self._walk(path, create=True)
            assert fid is not None
            return fid

    def put(self, path: str, data: bytes, mime: str = "application/pdf") -> str:
        """Create or overwrite (same id, new revision) the file at `path`; parents made."""
        with self.lock:
            folder, _, name = path.rstrip("/").rpartition("/")
            existing = self._find_file(path)
            if existing is not None:
                existing.content = data
                existing.version += 1
                existing.head_revision = "0B" + secrets.token_hex(12)
                existing.modified = self._now()
                self._touch(existing.id)
                return existing.id
            pid = self._walk(folder, create=True)
            assert pid is not None
            return self.create(name, mime, pid, data).id

    def find(self, path: str) -> Item | None:
        with self.lock:
            return self._find_file(path)

    def read(self, path: str) -> bytes | None:
        with self.lock:
            item = self._find_file(path)
            return None if item is None else item.content

    def listing(self, folder: str) -> list[str]:
        with self.lock:
            pid = self._walk(folder, create=False)
            if pid is None:
                return []
            return sorted(self.items[c].name for c in self.children[pid] if not self.items[c].trashed)

    def delete(self, path: str) -> None:
        with self.lock:
            item = self._find_file(path) or self.items.get(self._walk(path, create=False) or "")
            if item is None:
                raise KeyError(path)
            self.remove(item.id)

    def remove(self, item_id: str) -> None:
        item = self.items.pop(item_id)
        if item.parent is not None:
            self.children.get(item.parent, set()).discard(item_id)
        for child in list(self.children.pop(item_id, ())):
            self.remove(child)
        old = self.seq_of.pop(item_id, None)
        if old is not None:
            self.log.pop(old, None)
        self.next_seq += 1
        self.log[self.next_seq] = item_id
        self.seq_of[item_id] = self.next_seq
        self.removed[item_id] = item.drive_id

    def add_shared_drive(self, name: str) -> str:
        with self.lock:
            drive_id = "0A" + secrets.token_hex(8) + "Uk9PVA"
            self.drives[drive_id] = name
            self.children[drive_id] = set()
            return drive_id

    def issue_refresh_token(self, client_id: str = "emu-client") -> str:
        with self.lock:
            token = "1//" + secrets.token_urlsafe(32)
            self.tokens[token] = Token("refresh", client_id)
            return token

    def revoke(self, token: str) -> None:
        """Revoke a refresh token and every access token minted from it."""
        with self.lock:
            self.tokens.pop(token, None)
            for key, tok in list(self.tokens.items()):
                if tok.refresh == token:
                    del self.tokens[key]

    def expire_access_tokens(self) -> None:
        with self.lock:
            for key, tok in list(self.tokens.items()):
                if tok.kind == "access":
                    del self.tokens[key]

    def register_service_account(self, client_email: str, public_key_pem: bytes) -> None:
        with self.lock:
            self.service_accounts[client_email] = public_key_pem

    def fail_next(self, status: int, reason: str, count: int = 1) -> None:
        """The next `count` Drive (not OAuth) calls fail with `status` and Drive's `reason`."""
        with self.lock:
            self.scripted.extend([(status, reason)] * count)

    def lose_reply(self, method: str, status: int = 503, count: int = 1) -> None:
        """The next `count` Drive calls with HTTP `method` take effect, but the client gets
        `status` instead of the answer (as when a reply is lost): retries must be idempotent."""
        with self.lock:
            self.lost_replies.extend([(method.upper(), status)] * count)

    # ---- token minting

    def mint_access(self, client: str, refresh: str = "") -> dict[str, Any]:
        token = "ya29." + secrets.token_urlsafe(32)
        self.tokens[token] = Token("access", client, time.monotonic() + self.access_token_lifetime, refresh)
        return {"access_token": token, "expires_in": self.reported_expires_in, "token_type": "Bearer",
                "scope": "https://www.googleapis.com/auth/drive"}
