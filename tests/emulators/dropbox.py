"""An emulator of the Dropbox API v2 (the routes renamerd uses), speaking Dropbox's wire format.

The official `dropbox` SDK talks to it unchanged over TLS (trustme CA): RPC routes take a JSON
body and answer JSON; `files/download` takes its argument in the `Dropbox-API-Arg` header and
answers the metadata in `Dropbox-API-Result`; route errors are 409 with
``{"error_summary": "path/not_found/..", "error": {".tag": "path", ...}}``; auth errors are 401
(`expired_access_token`, `invalid_access_token`); throttling is 429 with a `too_many_requests`
or `too_many_write_operations` reason, `retry_after` and a Retry-After header.

Emulated routes: ``/oauth2/authorize`` (auto-approves and shows the code), ``/oauth2/token``
(authorization_code with PKCE, refresh_token; access tokens expire, refresh tokens are
revocable and then give `invalid_grant`), ``files/list_folder`` (+ ``/continue``,
``/get_latest_cursor``, ``/longpoll``), ``files/get_metadata``, ``files/download``,
``files/move_v2``, ``files/create_folder_v2``, ``files/delete_v2``.

Cursors are stateless tokens holding (path, recursive, change sequence number); an incremental
``continue`` reads only the change log since that number, never the whole tree, so a poll costs
the same on a drive of 50 or 50,000 files. `DropboxAccount` is the backdoor tests use directly.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import itertools
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from .base import EmulatorServer, Faults

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


# --------------------------------------------------------------------------- the ASGI app


def create_app(account: DropboxAccount) -> Starlette:
    """The Dropbox API as an ASGI app over `account` (one host serves api, content, notify)."""

    def authorize(request: Request) -> str:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            raise ApiFailure(400, "Error in call to API function: missing Authorization header")
        token = header[len("Bearer ") :]
        with account.lock:
            found = account.access_tokens.get(token)
        if found is None:
            raise ApiFailure(401, {".tag": "invalid_access_token"})
        if found[1] <= time.time():
            raise ApiFailure(401, {".tag": "expired_access_token"})
        return token

    async def rpc_args(request: Request, route: str) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            raise bad_input(route, 'Bad HTTP "Content-Type" header. Expecting "application/json"')
        try:
            args = json.loads(await request.body() or b"null")
        except ValueError as err:
            raise bad_input(route, "could not decode input as JSON") from err
        if not isinstance(args, dict):
            raise bad_input(route, "request body: expected an object")
        return args

    def rpc(route: str, *, auth: bool = True) -> Any:
        def wrap(fn: Any) -> Any:
            async def endpoint(request: Request) -> Response:
                try:
                    if auth:
                        authorize(request)
                    args = await rpc_args(request, route)
                    result = await fn(args)
                except ApiFailure as failure:
                    return failure.response()
                return JSONResponse(result)

            return Route(f"/2/{route}", endpoint, methods=["POST"])

        return wrap

    @rpc("files/list_folder")
    async def list_folder(args: dict[str, Any]) -> dict[str, Any]:
        with account.lock:
            entry = account._resolve("files/list_folder", str(args.get("path", "")))
            if entry is not None and not entry.folder:
                raise route_error("path", "not_folder")
            scope = entry.path_lower if entry else ""
            recursive = bool(args.get("recursive", False))
            state = {"p": scope, "r": recursive, "s": len(account.log), "a": ""}
            page = account.list_page(state)
            if recursive and entry is not None:  # Dropbox lists the folder itself first
                page["entries"].insert(0, entry.metadata())
            return page

    @rpc("files/list_folder/continue")
    async def list_folder_continue(args: dict[str, Any]) -> dict[str, Any]:
        with account.lock:
            state = account.parse_cursor("files/list_folder/continue", str(args.get("cursor")))
            return account.list_page(state)

    @rpc("files/list_folder/get_latest_cursor")
    async def latest_cursor(args: dict[str, Any]) -> dict[str, Any]:
        with account.lock:
            entry = account._resolve("files/list_folder", str(args.get("path", "")))
            if entry is not None and not entry.folder:
                raise route_error("path", "not_folder")
            scope = entry.path_lower if entry else ""
            recursive = bool(args.get("recursive", False))
            return {"cursor": account.cursor(scope, recursive, len(account.log), None)}

    @rpc("files/list_folder/longpoll", auth=False)
    async def longpoll(args: dict[str, Any]) -> dict[str, Any]:
        timeout = int(args.get("timeout", 30))
        if not 30 <= timeout <= 480:
            raise bad_input("files/list_folder/longpoll", "timeout: must be within 30..480")
        with account.lock:
            state = account.parse_cursor("files/list_folder/longpoll", str(args.get("cursor")))
        deadline = time.monotonic() + min(timeout, account.longpoll_cap)
        changes = False
        while True:
            with account.lock:
                if account.epoch != state["e"]:
                    raise route_error("reset")
                changes = account.changed_since(state)
            if changes or time.monotonic() >= deadline:
                break
            try:
                await asyncio.sleep(0.02)
            except asyncio.CancelledError:  # the server stops while a client's wait ran out
                break
        out: dict[str, Any] = {"changes": changes}
        if account.longpoll_backoff is not None:
            out["backoff"] = account.longpoll_backoff
        return out

    @rpc("files/get_metadata")
    async def get_metadata(args: dict[str, Any]) -> dict[str, Any]:
        path = str(args.get("path", ""))
        if path in ("", "/"):
            raise bad_input("files/get_metadata", "The root folder is unsupported.")
        with account.lock:
            entry = account._resolve("files/get_metadata", path)
            assert entry is not None
            return entry.metadata()

    @rpc("files/create_folder_v2")
    async def create_folder(args: dict[str, Any]) -> dict[str, Any]:
        path = _norm(str(args.get("path", "")))
        if not path:
            raise route_error("path", "disallowed_name")
        with account.lock:
            account._check_busy("path")
            occupant = account._lookup_path(path)
            if occupant is not None:
                raise route_error("path", "conflict", "folder" if occupant.folder else "file")
            try:
                account._make_folders(path)
            except ApiFailure as failure:
                raise route_error("path", "conflict", "file") from failure
            entry = account._lookup_path(path)
            assert entry is not None
            return {"metadata": entry.metadata()}

    @rpc("files/move_v2")
    async def move(args: dict[str, Any]) -> dict[str, Any]:
        with account.lock:
            account._check_busy("to")
            try:
                entry = account._resolve("files/move_v2", str(args.get("from_path", "")))
            except ApiFailure as failure:
                if failure.status == 409:
                    raise route_error("from_lookup", "not_found") from failure
                raise
            if entry is None:
                raise route_error("from_lookup", "not_found")
            to = _norm(str(args.get("to_path", "")))
            name = to.rsplit("/", 1)[-1]
            if not to or name.lower() in DISALLOWED_NAMES or name != name.rstrip(" "):
                raise route_error("to", "disallowed_name")
            if args.get("autorename"):
                raise bad_input("files/move_v2", "autorename is not emulated")
            occupant = account._lookup_path(to)
            if occupant is not None and not (occupant is entry and entry.path_display != to):
                raise route_error("to", "conflict", "folder" if occupant.folder else "file")
            if entry.folder and (to.lower() + "/").startswith(entry.path_lower + "/"):
                raise route_error("cant_move_folder_into_itself")
            parent, _, _ = to.rpartition("/")
            try:
                parent_display = account._make_folders(parent)
            except ApiFailure as failure:
                raise route_error("to", "conflict", "file_ancestor") from failure
            account._move(entry, f"{parent_display}/{name}")
            return {"metadata": entry.metadata()}

    @rpc("files/delete_v2")
    async def delete(args: dict[str, Any]) -> dict[str, Any]:
        with account.lock:
            try:
                entry = account._resolve("files/delete_v2", str(args.get("path", "")))
            except ApiFailure as failure:
                if failure.status == 409:
                    raise route_error("path_lookup", "not_found") from failure
                raise
            if entry is None:
                raise route_error("path_write", "disallowed_name")
            meta = entry.metadata()
            account._delete(entry)
            return {"metadata": meta}

    async def download(request: Request) -> Response:
        route = "files/download"
        try:
            authorize(request)
            raw = request.headers.get("dropbox-api-arg") or request.query_params.get("arg")
            try:
                args = json.loads(raw or "")
            except ValueError as err:
                raise bad_input(route, "could not decode Dropbox-API-Arg") from err
            with account.lock:
                entry = account._resolve(route, str(args.get("path", "")))
                if entry is None or entry.folder:
                    raise route_error("path", "not_file")
                meta, data = entry.metadata(), entry.data
        except ApiFailure as failure:
            return failure.response()
        headers = {"Dropbox-API-Result": json.dumps(meta, ensure_ascii=True)}
        return Response(data, media_type="application/octet-stream", headers=headers)

    async def token(request: Request) -> Response:
        form = await request.form()
        grant = form.get("grant_type")
        app_key = str(form.get("client_id", ""))

        def oauth_error(error: str, description: str, status: int = 400) -> Response:
            return JSONResponse({"error": error, "error_description": description}, status)

        with account.lock:
            if app_key not in account.apps:
                return oauth_error("invalid_client", "Invalid client_id or client_secret")
            secret = form.get("client_secret")
            if secret is not None and secret != account.apps[app_key]:
                return oauth_error("invalid_client", "Invalid client_id or client_secret")
            if grant == "refresh_token":
                refresh = str(form.get("refresh_token", ""))
                if account.refresh_tokens.get(refresh) != app_key:
                    return oauth_error("invalid_grant", "refresh token is invalid or revoked")
                body: dict[str, Any] = {}
            elif grant == "authorization_code":
                code = str(form.get("code", ""))
                found = account.codes.pop(code, None)
                if found is None or found[0] != app_key:
                    return oauth_error("invalid_grant", "code doesn't exist or has expired")
                challenge = found[1]
                verifier = str(form.get("code_verifier", ""))
                if challenge:
                    digest = hashlib.sha256(verifier.encode()).digest()
                    if base64.urlsafe_b64encode(digest).decode().rstrip("=") != challenge:
                        return oauth_error("invalid_grant", "invalid code verifier")
                elif secret is None:
                    return oauth_error("invalid_client", "No client_secret or code_verifier")
                refresh = "rt-" + secrets.token_urlsafe(24)
                account.refresh_tokens[refresh] = app_key
                body = {
                    "refresh_token": refresh,
                    "uid": "12345",
                    "account_id": "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
                }
            else:
                return oauth_error("unsupported_grant_type", f"grant_type {grant!r}")
            access = "sl." + secrets.token_urlsafe(32)
            account.access_tokens[access] = (refresh, time.time() + account.access_token_ttl)
            account.token_grants += 1
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "bearer",
                "expires_in": int(account.access_token_ttl),
                "scope": "files.content.read files.content.write files.metadata.read",
                **body,
            }
        )

    async def authorize_page(request: Request) -> Response:
        """The consent page, approved at once: shows the code to paste, as Dropbox does."""
        q = request.query_params
        app_key = q.get("client_id", "")
        if app_key not in account.apps or q.get("response_type") != "code":
            return HTMLResponse("<p>Invalid request</p>", 400)
        if q.get("code_challenge") and q.get("code_challenge_method") != "S256":
            return HTMLResponse("<p>Unsupported code_challenge_method</p>", 400)
        code = secrets.token_urlsafe(32)
        with account.lock:
            account.codes[code] = (app_key, q.get("code_challenge", ""))
        return HTMLResponse(
            f'<p>Enter this code into your app:</p><input id="code" value="{html.escape(code)}">'
        )

    routes = [
        list_folder,
        list_folder_continue,
        latest_cursor,
        longpoll,
        get_metadata,
        create_folder,
        move,
        delete,
        Route("/2/files/download", download, methods=["POST", "GET"]),
        Route("/oauth2/token", token, methods=["POST"]),
        Route("/oauth2/authorize", authorize_page, methods=["GET"]),
    ]
    return Starlette(routes=routes)


class DropboxThrottleShape:
    """Give 429s injected by `Faults` Dropbox's shape: a RateLimitError body, integer seconds.

    Sits outside `FaultMiddleware`; responses the emulator itself shaped pass unchanged.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}

        async def reshape(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 429:
                held["start"] = message
                return
            if message["type"] == "http.response.body" and "start" in held:
                body = message.get("body", b"")
                if b"error_summary" not in body:
                    headers = dict(held["start"]["headers"])
                    seconds = int(float(headers.get(b"retry-after", b"1")))
                    body = json.dumps(
                        {
                            "error_summary": "too_many_requests/..",
                            "error": {
                                "reason": {".tag": "too_many_requests"},
                                "retry_after": seconds,
                            },
                        }
                    ).encode()
                    held["start"]["headers"] = [
                        (b"content-type", b"application/json"),
                        (b"retry-after", str(seconds).encode()),
                    ]
                await send(held.pop("start"))
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, reshape)


class DropboxEmulator:
    """The account, its ASGI app and a TLS server on 127.0.0.1; `.url` is the `endpoint`."""

    def __init__(self, *, faults: Faults | None = None, **account_options: Any) -> None:
        self.account = DropboxAccount(**account_options)
        self.faults = faults or Faults(retry_after=0)
        self.server = EmulatorServer(create_app(self.account), tls=True, faults=self.faults)
        self.server.app = DropboxThrottleShape(self.server.app)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ca_bundle(self) -> str:
        return self.server.ca_bundle

    def start(self) -> DropboxEmulator:
        self.server.start()
        return self

    def reset(self, **account_options: Any) -> None:
        """A fresh, empty account (see `DropboxAccount.reset`) and fault injector, same server."""
        self.account.reset(**account_options)
        self.faults.rate = 0.0
        self.faults.retry_after = 0
        self.faults.exempt = ()
        self.faults.reset_counts()

    def stop(self) -> None:
        if self.server._server is not None:
            # don't wait for keep-alive connections a client still holds (say, in a traceback)
            self.server._server.force_exit = True
        self.server.stop()

    def __enter__(self) -> DropboxEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
