"""Google Drive v3 and Google OAuth 2.0 emulator, for the real google-api-python-client.

Served by `tests/emulators/base.EmulatorServer` (TLS with a trustme CA). What it speaks:

- OAuth: `GET /o/oauth2/auth` (auto-consent: 302 to the loopback `redirect_uri` with `code` and
  `state`; PKCE S256 checked at the token endpoint), `POST /token` with the grants
  `authorization_code`, `refresh_token` and the service-account JWT bearer grant
  (`urn:ietf:params:oauth:grant-type:jwt-bearer`, RS256 signature checked against the registered
  key). Errors as Google sends them: 400 `{"error": "invalid_grant", "error_description": ...}`.
  Access tokens expire after `access_token_lifetime` seconds on the server while `expires_in`
  reports `reported_expires_in` (google-auth refreshes 3m45s early, so a short honest lifetime
  would refresh before every call; a lie makes the 401 -> refresh path run, as when Google
  revokes a token early).
- Drive under `/drive/v3/`: `files.list` (the `q` language subset `'<id>' in parents`, `name`,
  `mimeType`, `trashed`, `modifiedTime`/`createdTime` comparisons, `and`/`or`/`not`/parentheses;
  `orderBy`; paging with opaque tokens; `corpora`/`driveId`), `files.get` (metadata, or content
  with `alt=media` honouring `Range`, 416 for an empty file), `files.create` (metadata only:
  folders), `files.update` (`addParents`/`removeParents`/`name`; an item keeps exactly one
  parent), `files.delete`, `changes.getStartPageToken` and `changes.list` (numeric page tokens,
  one entry per file at its latest change, `nextPageToken` then `newStartPageToken`). The `fields`
  partial-response mask is applied, so a client that forgets to ask for `parents` does not get
  them. Error bodies use Drive's `{"error": {"code", "message", "errors": [{"reason"...}]}}`.
- Shared drives: items carry `driveId`; without `supportsAllDrives=true` they are "not found",
  and listings include them only with `includeItemsFromAllDrives=true`.

Backdoor (Python, in-process, thread-safe): `put`, `mkdir`, `read`, `listing`, `find`, `delete`,
`add_shared_drive`, `issue_refresh_token`, `revoke`, `register_service_account`, `fail_next`,
`lose_reply` (the call takes effect, the answer is an error), `expire_access_tokens`, `reset`.
Memory holds the items plus one change-log entry per item (a file changed twice keeps only its
latest entry), so it grows with the drive, not with its history.

Not emulated: uploads (`/upload/drive/v3`), exports of Docs Editors files, permissions,
revisions, push notifications (`changes.watch`), `fullText` search, batch requests.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from emulators.base import EmulatorServer, Faults
from emulators.gdrive_query import ApiError, apply_fields, invalid, not_found, parse_fields, parse_query

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


# ------------------------------------------------------------------ HTTP layer


def _bool(request: Request, key: str) -> bool:
    return request.query_params.get(key, "false").lower() == "true"


def _oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def build_app(state: DriveState) -> Starlette:  # noqa: C901 - one closure per endpoint
    def authorize(request: Request) -> None:
        header = request.headers.get("authorization", "")
        tok = state.tokens.get(header[7:]) if header.startswith("Bearer ") else None
        if tok is None or tok.kind != "access" or tok.expires < time.monotonic():
            raise ApiError(401, "authError", "Invalid Credentials", location="Authorization",
                           locationType="header")
        if state.scripted:
            status, reason = state.scripted.pop(0)
            raise ApiError(status, reason, reason)

    def drive_api(fn: Callable[[Request, Any], Response]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            body = await request.body()
            try:
                with state.lock:
                    authorize(request)
                    response = fn(request, json.loads(body) if body else {})
                    lost = [i for i, (m, _) in enumerate(state.lost_replies) if m == request.method]
                    if lost:
                        status = state.lost_replies.pop(lost[0])[1]
                        raise ApiError(status, "backendError", "Backend Error")
                    return response
            except ApiError as err:
                return err.response()
        return endpoint

    def fields_of(request: Request) -> dict[str, Any] | None:
        spec = request.query_params.get("fields")
        return parse_fields(spec) if spec else None

    def file_json(item: Item, request: Request) -> JSONResponse:
        tree = fields_of(request) or {"kind": None, "id": None, "name": None, "mimeType": None}
        return JSONResponse(apply_fields(item.resource(), tree))

    def get_file(request: Request, _body: Any) -> Response:
        file_id = state._resolve_id(request.path_params["file_id"])
        all_drives = _bool(request, "supportsAllDrives")
        if file_id == state.root_id or (file_id in state.drives and all_drives):
            name = "My Drive" if file_id == state.root_id else state.drives[file_id]
            root = {"kind": "drive#file", "id": file_id, "name": name, "mimeType": FOLDER}
            return JSONResponse(apply_fields(root, fields_of(request)))
        item = state.lookup(file_id, all_drives)
        if request.query_params.get("alt") != "media":
            return file_json(item, request)
        if item.is_folder or item.mime.startswith("application/vnd.google-apps."):
            raise ApiError(403, "fileNotDownloadable", "Only files with binary content can be downloaded.")
        data, total = item.content, len(item.content)
        rng = re.fullmatch(r"bytes=(\d+)-(\d*)", request.headers.get("range", ""))
        if rng is None:
            return Response(data, media_type=item.mime)
        start = int(rng.group(1))
        end = min(int(rng.group(2)) if rng.group(2) else total - 1, total - 1)
        if start >= total:
            return Response(b"", status_code=416, headers={"content-range": f"bytes */{total}"})
        return Response(data[start:end + 1], status_code=206, media_type=item.mime,
                        headers={"content-range": f"bytes {start}-{end}/{total}"})

    def list_files(request: Request, _body: Any) -> Response:
        qp = request.query_params
        all_drives = _bool(request, "supportsAllDrives") and _bool(request, "includeItemsFromAllDrives")
        corpora, drive_id = qp.get("corpora", "user"), qp.get("driveId")
        if drive_id and (corpora != "drive" or not all_drives):
            raise invalid("The includeItemsFromAllDrives parameter must be set to true when driveId is set",
                          "includeItemsFromAllDrives")
        pred, parent_hint = parse_query(qp.get("q", "trashed = false or trashed = true"))
        page_size = min(int(qp.get("pageSize", "100")), 1000)
        if parent_hint is not None:
            parent_hint = state._resolve_id(parent_hint)
            candidates = [state.items[c] for c in state.children.get(parent_hint, ())]
        else:
            candidates = list(state.items.values())
        hits = []
        for it in candidates:
            if it.drive_id and not all_drives:
                continue
            if drive_id and it.drive_id != drive_id:
                continue
            if pred(it):
                hits.append(it)
        order = qp.get("orderBy", "")
        keys: dict[str, Callable[[Item], Any]] = {
            "createdTime": lambda it: it.created, "modifiedTime": lambda it: it.modified,
            "name": lambda it: it.name, "folder": lambda it: not it.is_folder,
        }
        hits.sort(key=lambda it: it.id)
        for part in reversed([s.strip() for s in order.split(",") if s.strip()]):
            key, _, direction = part.partition(" ")
            if key not in keys:
                raise invalid(f"Invalid orderBy {order}", "orderBy")
            hits.sort(key=keys[key], reverse=direction.strip() == "desc")
        offset = 0
        if qp.get("pageToken"):
            try:
                offset = int(base64.urlsafe_b64decode(qp["pageToken"].encode()).decode().split(":")[1])
            except (ValueError, IndexError):
                raise invalid("Invalid Value", "pageToken") from None
        page = hits[offset:offset + page_size]
        out: dict[str, Any] = {"kind": "drive#fileList", "incompleteSearch": False,
                               "files": [it.resource() for it in page]}
        if offset + page_size < len(hits):
            out["nextPageToken"] = base64.urlsafe_b64encode(f"~!!~:{offset + page_size}".encode()).decode()
        tree = fields_of(request) or {"kind": None, "nextPageToken": None, "incompleteSearch": None,
                                      "files": {"kind": None, "id": None, "name": None, "mimeType": None}}
        return JSONResponse(apply_fields(out, tree))

    def create_file(request: Request, body: dict[str, Any]) -> Response:
        parents = body.get("parents") or ["root"]
        if len(parents) != 1:
            raise ApiError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
        parent = state._resolve_id(parents[0])
        if parent in state.items:
            state.lookup(parent, _bool(request, "supportsAllDrives"))
        elif parent in state.drives and not _bool(request, "supportsAllDrives"):
            raise not_found(parent)
        mime = str(body.get("mimeType", "application/octet-stream"))
        item = state.create(str(body.get("name", "Untitled")), mime, parent)
        return file_json(item, request)

    def update_file(request: Request, body: dict[str, Any]) -> Response:
        all_drives = _bool(request, "supportsAllDrives")
        item = state.lookup(request.path_params["file_id"], all_drives)
        qp = request.query_params
        add = [state._resolve_id(p) for p in qp.get("addParents", "").split(",") if p]
        remove = [state._resolve_id(p) for p in qp.get("removeParents", "").split(",") if p]
        parents = {item.parent} if item.parent else set()
        for pid in add:
            hidden = pid in state.items and state.items[pid].drive_id and not all_drives
            if pid not in state.children or hidden:
                raise not_found(pid)
        parents = (parents - set(remove)) | set(add)
        if len(parents) != 1:
            raise ApiError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
        new_parent = parents.pop()
        if item.parent != new_parent:
            state.children[item.parent or ""].discard(item.id)
            state.children[new_parent].add(item.id)
            item.parent = new_parent
        if "name" in body:
            item.name = str(body["name"])
        if "trashed" in body:
            item.trashed = bool(body["trashed"])
        item.version += 1
        state._touch(item.id)
        return file_json(item, request)

    def delete_file(request: Request, _body: Any) -> Response:
        item = state.lookup(request.path_params["file_id"], _bool(request, "supportsAllDrives"))
        state.remove(item.id)
        return Response(status_code=204)

    def start_token(request: Request, _body: Any) -> Response:
        return JSONResponse({"kind": "drive#startPageToken", "startPageToken": str(state.next_seq + 1)})

    def list_changes(request: Request, _body: Any) -> Response:
        qp = request.query_params
        try:
            start = int(qp.get("pageToken", ""))
        except ValueError:
            raise invalid("Invalid Value", "pageToken") from None
        page_size = min(int(qp.get("pageSize", "100")), 1000)
        drive_id = qp.get("driveId")
        all_drives = _bool(request, "supportsAllDrives") and _bool(request, "includeItemsFromAllDrives")
        if drive_id and not _bool(request, "supportsAllDrives"):
            raise invalid("The driveId parameter requires supportsAllDrives", "driveId")
        changes: list[dict[str, Any]] = []
        next_token: int | None = None
        for seq, fid in state.log.items():
            if seq < start:
                continue
            item = state.items.get(fid)
            drive = item.drive_id if item else state.removed.get(fid)
            if (drive_id and drive != drive_id) or (not drive_id and drive and not all_drives):
                continue
            if len(changes) == page_size:
                next_token = seq
                break
            change: dict[str, Any] = {"kind": "drive#change", "changeType": "file", "fileId": fid,
                                      "time": state._now(), "removed": item is None}
            if item is not None:
                change["file"] = item.resource()
            if drive:
                change["driveId"] = drive
            changes.append(change)
        out: dict[str, Any] = {"kind": "drive#changeList", "changes": changes}
        if next_token is not None:
            out["nextPageToken"] = str(next_token)
        else:
            out["newStartPageToken"] = str(state.next_seq + 1)
        file_default = {"kind": None, "id": None, "name": None, "mimeType": None}
        tree = fields_of(request) or {
            "kind": None, "nextPageToken": None, "newStartPageToken": None,
            "changes": {"kind": None, "changeType": None, "time": None, "removed": None, "fileId": None,
                        "driveId": None, "file": file_default}}
        return JSONResponse(apply_fields(out, tree))

    # ---- OAuth

    async def auth_endpoint(request: Request) -> Response:
        qp = request.query_params
        redirect = qp.get("redirect_uri", "")
        host = urlsplit(redirect).hostname
        if qp.get("client_id") not in state.clients or host not in ("127.0.0.1", "localhost", "::1"):
            return Response("Error 400: redirect_uri_mismatch", status_code=400)
        if qp.get("response_type") != "code" or qp.get("code_challenge_method", "S256") != "S256":
            return Response("Error 400: invalid_request", status_code=400)
        code = "4/" + secrets.token_urlsafe(24)
        with state.lock:
            state.codes[code] = {"client": qp["client_id"], "redirect_uri": redirect,
                                 "challenge": qp.get("code_challenge", "")}
        query = urlencode({"state": qp.get("state", ""), "code": code, "scope": qp.get("scope", "")})
        return RedirectResponse(f"{redirect}?{query}", status_code=302)

    async def token_endpoint(request: Request) -> Response:
        form = await request.form()
        grant = str(form.get("grant_type", ""))
        with state.lock:
            if state.token_failures:
                state.token_failures -= 1
                return _oauth_error("internal_failure", "Backend Error", 503)
            if grant == JWT_BEARER:
                return jwt_grant(str(form.get("assertion", "")))
            client, secret = str(form.get("client_id", "")), str(form.get("client_secret", ""))
            if state.clients.get(client) != secret:
                return _oauth_error("invalid_client", "The OAuth client was not found.", 401)
            if grant == "refresh_token":
                rt = str(form.get("refresh_token", ""))
                tok = state.tokens.get(rt)
                if tok is None or tok.kind != "refresh" or tok.client != client:
                    return _oauth_error("invalid_grant", "Token has been expired or revoked.")
                state.refreshes += 1
                return JSONResponse(state.mint_access(client, rt))
            if grant == "authorization_code":
                info = state.codes.pop(str(form.get("code", "")), None)
                verifier = str(form.get("code_verifier", ""))
                if (info is None or info["client"] != client
                        or info["redirect_uri"] != form.get("redirect_uri")
                        or (info["challenge"] and _b64url(hashlib.sha256(verifier.encode()).digest())
                            != info["challenge"])):
                    return _oauth_error("invalid_grant", "Malformed auth code.")
                rt = "1//" + secrets.token_urlsafe(32)
                state.tokens[rt] = Token("refresh", client)
                return JSONResponse({**state.mint_access(client, rt), "refresh_token": rt})
            return _oauth_error("unsupported_grant_type", f"Invalid grant_type: {grant}")

    def jwt_grant(assertion: str) -> Response:
        import jwt

        try:
            unverified = jwt.decode(assertion, options={"verify_signature": False})
            key = state.service_accounts[unverified["iss"]]
            claims = jwt.decode(assertion, key, algorithms=["RS256"], audience=GOOGLE_TOKEN_AUDIENCE)
        except (jwt.PyJWTError, KeyError):
            return _oauth_error("invalid_grant", "Invalid JWT Signature.")
        return JSONResponse(state.mint_access("sa:" + str(claims["iss"])))

    base = "/drive/v3"
    routes = [
        Route(f"{base}/files", drive_api(list_files), methods=["GET"]),
        Route(f"{base}/files", drive_api(create_file), methods=["POST"]),
        Route(base + "/files/{file_id}", drive_api(get_file), methods=["GET"]),
        Route(base + "/files/{file_id}", drive_api(update_file), methods=["PATCH"]),
        Route(base + "/files/{file_id}", drive_api(delete_file), methods=["DELETE"]),
        Route(f"{base}/changes/startPageToken", drive_api(start_token), methods=["GET"]),
        Route(f"{base}/changes", drive_api(list_changes), methods=["GET"]),
        Route("/o/oauth2/auth", auth_endpoint, methods=["GET"]),
        Route("/token", token_endpoint, methods=["POST"]),
    ]
    return Starlette(routes=routes)


class DriveEmulator:
    """State + app + TLS server in one. `start()`/`stop()`; `.url`, `.ca_bundle`, `.faults`."""

    def __init__(self, **state_kwargs: Any) -> None:
        self.state = DriveState(**state_kwargs)
        self.faults = Faults(exempt=("/token", "/o/oauth2"))
        self.server = EmulatorServer(build_app(self.state), tls=True, faults=self.faults)

    def start(self) -> DriveEmulator:
        self.server.start()
        return self

    def reset(self) -> DriveEmulator:
        """A fresh, empty account on the running server; fault rate 0, counters cleared."""
        self.state.reset()
        self.faults.rate = 0.0
        self.faults.reset_counts()
        return self

    def stop(self) -> None:
        if self.server._server is not None:  # do not wait for clients' idle keep-alive sockets
            self.server._server.force_exit = True
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ca_bundle(self) -> str:
        return self.server.ca_bundle

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    @property
    def auth_uri(self) -> str:
        return f"{self.url}/o/oauth2/auth"

    def api_calls(self) -> int:
        """Drive API calls seen (OAuth endpoints not counted)."""
        return sum(n for path, n in self.faults.calls.items() if path.startswith("/drive/"))
