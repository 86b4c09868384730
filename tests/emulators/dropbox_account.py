"""The Dropbox API v2 emulator's state: one account's files, change log, apps and tokens.

`DropboxAccount` is also the backdoor tests use directly; `ApiFailure` (with `route_error` and
`bad_input`) is a Dropbox error answer, raised by the account and the route handlers alike.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from starlette.responses import JSONResponse, PlainTextResponse, Response

BLOCK = 4 * 1024 * 1024
DISALLOWED_NAMES = {"desktop.ini", "thumbs.db", ".ds_store", "icon\r", ".dropbox", ".dropbox.attr"}


def content_hash(data: bytes) -> str:
    """Dropbox's content hash: SHA-256 over the SHA-256 digests of each 4 MiB block."""
    digests = b"".join(
        hashlib.sha256(data[i : i + BLOCK]).digest() for i in range(0, len(data), BLOCK)
    )
    return hashlib.sha256(digests).hexdigest()


def _stamp(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiFailure(Exception):
    """A Dropbox route error (409) or another HTTP error the handlers answer with."""

    def __init__(self, status: int, error: Any, summary: str | None = None) -> None:
        super().__init__(summary or str(error))
        self.status = status
        self.error = error
        self.summary = summary

    def response(self) -> Response:
        if self.status == 400:
            return PlainTextResponse(str(self.error), status_code=400)
        tags: list[str] = []
        node = self.error
        while isinstance(node, dict) and ".tag" in node:
            tags.append(node[".tag"])
            node = node.get(node[".tag"])
        if isinstance(node, str):
            tags.append(node)
        summary = self.summary or "/".join(tags) + "/.."
        headers = {}
        if self.status == 429:
            headers["Retry-After"] = str(self.error["retry_after"])
        return JSONResponse(
            {"error_summary": summary, "error": self.error}, self.status, headers=headers
        )


def route_error(*tags: str) -> ApiFailure:
    """409 with the nested union of `tags`, e.g. route_error("path", "not_found")."""
    error: dict[str, Any] = {".tag": tags[-1]}
    for tag in reversed(tags[:-1]):
        error = {".tag": tag, tag: error}
    return ApiFailure(409, error)


def bad_input(route: str, message: str) -> ApiFailure:
    return ApiFailure(400, f'Error in call to API function "{route}": {message}')


@dataclass
class Entry:
    id: str
    path_display: str
    folder: bool
    data: bytes = b""
    rev: str = ""
    hash: str = ""
    modified: float = 0.0

    @property
    def path_lower(self) -> str:
        return self.path_display.lower()

    @property
    def name(self) -> str:
        return self.path_display.rsplit("/", 1)[-1]

    def metadata(self) -> dict[str, Any]:
        base = {
            "name": self.name,
            "id": self.id,
            "path_lower": self.path_lower,
            "path_display": self.path_display,
        }
        if self.folder:
            return {".tag": "folder", **base}
        return {
            ".tag": "file",
            **base,
            "client_modified": _stamp(self.modified),
            "server_modified": _stamp(self.modified),
            "rev": self.rev,
            "size": len(self.data),
            "is_downloadable": True,
            "content_hash": self.hash,
        }


@dataclass
class Change:
    """One line of the change log: an entry (by id) was written, or a path was vacated."""

    id: str | None
    path_lower: str
    path_display: str


@dataclass
class DropboxAccount:
    """One emulated Dropbox account and app registry; also the tests' backdoor.

    Thread-safe: the server thread and the test thread share it under `lock`.
    """

    page_size: int = 500
    #: seconds an access token lives (Dropbox: 14400); reported truthfully as `expires_in`
    access_token_ttl: float = 14400.0
    #: longest a longpoll is held open here (Dropbox may return early, too)
    longpoll_cap: float = 30.0
    #: `backoff` to put in longpoll answers (None: omit)
    longpoll_backoff: int | None = None
    #: the next N writes (move, create folder, delete) are refused as too_many_write_operations:
    #: alternately 409 (a WriteError) and 429 (a RateLimitError with retry_after 1)
    busy_writes: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)
    entries: dict[str, Entry] = field(default_factory=dict)
    by_path: dict[str, str] = field(default_factory=dict)
    log: list[Change] = field(default_factory=list)
    epoch: int = 1
    apps: dict[str, str] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)  # token -> app key
    access_tokens: dict[str, tuple[str, float]] = field(default_factory=dict)  # -> (refresh, exp)
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (app, challenge)
    token_grants: int = 0
    _revs: Iterator[int] = field(default_factory=lambda: itertools.count(0x100000000))

    def reset(self, **options: Any) -> None:
        """Empty the account and apply `options` (the constructor's), as if newly made."""
        fresh = DropboxAccount(**options)
        with self.lock:
            for f in fields(self):
                if f.name != "lock":
                    setattr(self, f.name, getattr(fresh, f.name))
            self.epoch = fresh.epoch + self.epoch  # cursors of the old account answer reset

    # ---- backdoor: apps and tokens

    def add_app(self, app_key: str = "test-app", app_secret: str = "test-secret") -> str:
        with self.lock:
            self.apps[app_key] = app_secret
        return app_key

    def issue_refresh_token(self, app_key: str = "test-app") -> str:
        """A refresh token as if a person had connected the account (no code exchange)."""
        token = "rt-" + secrets.token_urlsafe(24)
        with self.lock:
            self.refresh_tokens[token] = app_key
        return token

    def revoke(self, refresh_token: str) -> None:
        """Revoke a refresh token and every access token issued from it."""
        with self.lock:
            self.refresh_tokens.pop(refresh_token, None)
            for access, (refresh, _) in list(self.access_tokens.items()):
                if refresh == refresh_token:
                    del self.access_tokens[access]

    def expire_access_tokens(self) -> None:
        """Let every live access token expire now (as if hours had passed)."""
        with self.lock:
            for access, (refresh, _) in list(self.access_tokens.items()):
                self.access_tokens[access] = (refresh, 0.0)

    def invalidate_cursors(self) -> None:
        """Make every cursor handed out so far answer `reset` (as Dropbox may, rarely)."""
        with self.lock:
            self.epoch += 1

    # ---- backdoor: files

    def put(self, path: str, data: bytes) -> dict[str, Any]:
        """Create or overwrite the file at `path` (parents made); returns its metadata."""
        with self.lock:
            parent, _, _ = path.rstrip("/").rpartition("/")
            parent_display = self._make_folders(parent)
            name = path.rstrip("/").rsplit("/", 1)[-1]
            existing = self._lookup_path(path)
            if existing is not None and existing.folder:
                raise ValueError(f"{path} is a folder")
            if existing is None:
                entry = Entry(_new_id(), f"{parent_display}/{name}", folder=False)
                self._add(entry)
            else:
                entry = existing
            entry.data = bytes(data)
            entry.hash = content_hash(entry.data)
            entry.rev = f"{next(self._revs):x}"
            entry.modified = time.time()
            self._changed(entry)
            return entry.metadata()

    def read(self, path: str) -> bytes | None:
        """The content at `path` (exact case of the last component), None if no such file."""
        with self.lock:
            entry = self._lookup_path(path)
            if entry is None or entry.folder or entry.name != path.rsplit("/", 1)[-1]:
                return None
            return entry.data

    def listing(self, folder: str) -> list[str]:
        """Names directly in `folder` (case-insensitive lookup), sorted; [] if none."""
        prefix = _norm(folder).lower()
        with self.lock:
            return sorted(
                e.name for e in self.entries.values() if _parent(e.path_lower) == prefix
            )

    def delete(self, path: str) -> None:
        with self.lock:
            entry = self._lookup_path(path)
            if entry is None:
                raise KeyError(path)
            self._delete(entry)

    def lookup(self, path: str) -> Entry | None:
        with self.lock:
            return self._lookup_path(path)

    # ---- internals (call with the lock held)

    def _check_busy(self, write_tag: str) -> None:
        if self.busy_writes <= 0:
            return
        self.busy_writes -= 1
        if self.busy_writes % 2:
            raise route_error(write_tag, "too_many_write_operations")
        raise ApiFailure(
            429, {"reason": {".tag": "too_many_write_operations"}, "retry_after": 1},
            summary="too_many_write_operations/..",
        )

    def _lookup_path(self, path: str) -> Entry | None:
        entry_id = self.by_path.get(_norm(path).lower())
        return self.entries.get(entry_id) if entry_id else None

    def _resolve(self, route: str, path: str) -> Entry | None:
        """`path` as the API takes it: "" (root: None), "/a/b", or "id:..."."""
        if path.startswith("id:"):
            entry = self.entries.get(path)
            if entry is None:
                raise route_error("path", "not_found")
            return entry
        if path.startswith("ns:") or (path and not path.startswith("/")):
            raise bad_input(route, f"'path' value {path!r} is not a valid path")
        if path in ("", "/"):
            return None
        entry = self._lookup_path(path)
        if entry is None:
            raise route_error("path", "not_found")
        return entry

    def _make_folders(self, path: str) -> str:
        """Create `path` and its parents as needed; returns its display path ("" for root)."""
        display = ""
        for part in [p for p in path.split("/") if p]:
            candidate = f"{display}/{part}"
            existing = self._lookup_path(candidate)
            if existing is None:
                existing = Entry(_new_id(), candidate, folder=True)
                self._add(existing)
                self._changed(existing)
            elif not existing.folder:
                raise route_error("path", "conflict", "file")
            display = existing.path_display
        return display

    def _add(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        self.by_path[entry.path_lower] = entry.id

    def _changed(self, entry: Entry) -> None:
        self.log.append(Change(entry.id, entry.path_lower, entry.path_display))

    def _vacated(self, path_display: str) -> None:
        self.log.append(Change(None, path_display.lower(), path_display))

    def _subtree(self, entry: Entry) -> list[Entry]:
        prefix = entry.path_lower + "/"
        return [e for e in self.entries.values() if e.path_lower.startswith(prefix)]

    def _delete(self, entry: Entry) -> None:
        for e in [*self._subtree(entry), entry]:
            del self.entries[e.id]
            del self.by_path[e.path_lower]
            self._vacated(e.path_display)

    def _move(self, entry: Entry, to_display: str) -> None:
        old_prefix = entry.path_display
        moving = [entry, *(self._subtree(entry) if entry.folder else [])]
        for e in moving:
            del self.by_path[e.path_lower]
            self._vacated(e.path_display)
        for e in moving:
            e.path_display = to_display + e.path_display[len(old_prefix) :]
            self.by_path[e.path_lower] = e.id
            self._changed(e)

    # ---- cursors and listings

    def cursor(self, path_lower: str, recursive: bool, seq: int, after: str | None) -> str:
        raw = json.dumps({"e": self.epoch, "p": path_lower, "r": recursive, "s": seq, "a": after})
        return "AAE" + base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def parse_cursor(self, route: str, cursor: str) -> dict[str, Any]:
        try:
            raw = base64.urlsafe_b64decode(cursor[3:] + "=" * (-len(cursor[3:]) % 4))
            state = json.loads(raw)
            assert cursor.startswith("AAE") and isinstance(state, dict)
        except Exception as err:
            raise bad_input(route, 'Invalid "cursor" parameter') from err
        if state["e"] != self.epoch:
            raise route_error("reset")
        return state

    def in_scope(self, path_lower: str, scope: str, recursive: bool) -> bool:
        if recursive:
            return path_lower == scope or path_lower.startswith(scope + "/") or scope == ""
        return _parent(path_lower) == scope

    def list_page(self, state: dict[str, Any]) -> dict[str, Any]:
        """One page of entries for a cursor state: the initial listing, then the change log."""
        scope, recursive = state["p"], state["r"]
        if state["a"] is not None:  # still in the initial listing
            after = state["a"]
            items = sorted(
                (
                    e
                    for e in self.entries.values()
                    if e.path_lower != scope
                    and e.path_lower > after
                    and self.in_scope(e.path_lower, scope, recursive)
                ),
                key=lambda e: e.path_lower,
            )
            page = items[: self.page_size]
            if len(items) > len(page):
                nxt = self.cursor(scope, recursive, state["s"], page[-1].path_lower)
                return {"entries": [e.metadata() for e in page], "cursor": nxt, "has_more": True}
            return {
                "entries": [e.metadata() for e in page],
                "cursor": self.cursor(scope, recursive, state["s"], None),
                "has_more": False,
            }
        seq = state["s"]
        end = min(len(self.log), seq + self.page_size)
        out: dict[str, dict[str, Any]] = {}
        for change in self.log[seq:end]:
            entry = self.entries.get(change.id) if change.id else None
            if entry is not None and self.in_scope(entry.path_lower, scope, recursive):
                out[entry.path_lower] = entry.metadata()
            elif (
                change.id is None
                and change.path_lower not in self.by_path
                and self.in_scope(change.path_lower, scope, recursive)
            ):
                out[change.path_lower] = {
                    ".tag": "deleted",
                    "name": change.path_display.rsplit("/", 1)[-1],
                    "path_lower": change.path_lower,
                    "path_display": change.path_display,
                }
        return {
            "entries": list(out.values()),
            "cursor": self.cursor(scope, recursive, end, None),
            "has_more": end < len(self.log),
        }

    def changed_since(self, state: dict[str, Any]) -> bool:
        scope, recursive = state["p"], state["r"]
        return any(
            self.in_scope(c.path_lower, scope, recursive) for c in self.log[state["s"] :]
        )


def _new_id() -> str:
    return "id:" + secrets.token_urlsafe(16).replace("-", "a").replace("_", "b")[:22]


def _norm(path: str) -> str:
    path = "/" + path.strip("/")
    return "" if path == "/" else path


def _parent(path_lower: str) -> str:
    return path_lower.rpartition("/")[0]
