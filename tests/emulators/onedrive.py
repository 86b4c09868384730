"""An emulator of Microsoft Graph (OneDrive), with the identity platform (`emulators.msidentity`)
mounted beside it, so msal and the connector find everything at one TLS address.

One ASGI app, served by `tests.emulators.base.EmulatorServer`, answering in the real wire format:

- identity platform under ``/{tenant}``: tenant discovery, token endpoint, device code (see
  `emulators.msidentity`);
- Graph v1.0, under ``/v1.0``: the drive (``/me/drive`` or ``/drives/{id}``), items addressed by id
  (``/items/{id}``) or path (``/root:/a/b:``), ``/children`` (paged with ``@odata.nextLink``),
  ``/content`` (302 to a short-lived pre-authenticated URL that refuses an Authorization
  header), ``/delta`` (``@odata.nextLink`` / ``@odata.deltaLink``, ``token=latest``, 410 Gone
  ``resyncRequired`` for invalidated tokens, no ``parentReference.path`` in delta items, business
  drives omit ``cTag`` and only allow delta on the root), PATCH rename/move with
  ``parentReference`` and ``@microsoft.graph.conflictBehavior`` (fail/replace/rename; 409
  ``nameAlreadyExists``), POST children to create folders, PUT content for small uploads.
  Names are case-insensitive and the OneDrive name rules are enforced. Expired or unknown access
  tokens give 401 ``InvalidAuthenticationToken``.

Memory stays proportional to the drive: delta pages walk an append-only change log from a
bisected position (a token is a position in it), never a materialised listing.

Backdoor for tests (plain methods, call them from the test thread): `put`, `seed`, `read`,
`listing`, `mkdir`, `delete`, `move_path`, `invalidate_delta_tokens`, and, forwarded to the
identity platform, `issue_refresh_token`, `revoke_refresh_tokens`, `expire_access_tokens`,
`approve_device_code`, `fail_next_token`.

Not emulated: upload sessions, copy, permissions/sharing, thumbnails, $select/$expand/$filter,
batching (``$batch``), webhooks (subscriptions), SharePoint sites addressing, national clouds'
differences, Range downloads, Graph's own throttling (the `Faults` middleware injects it).
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import itertools
import json
import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

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
class OneDriveEmulator:
    """State of one drive, one user and one tenant, plus the ASGI app serving it."""

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
        self.app = Starlette(routes=[
            *self.identity.routes(),
            Route("/download/{key}", self._download, methods=["GET"]),
            Route("/v1.0/{rest:path}", self._graph, methods=["GET", "POST", "PATCH", "PUT", "DELETE"]),
        ])

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

    # ------------------------------------------------------------------ Graph

    def _item_json(self, item: Item, base: str, *, delta: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": item.id}
        parent = self.items.get(item.parent_id) if item.parent_id else None
        if item.deleted:
            out["deleted"] = {"state": "deleted"}
            if self.drive_type == "personal":
                out["name"] = item.name
            if parent is not None:
                out["parentReference"] = {"driveId": self.drive_id, "driveType": self.drive_type,
                                          "id": parent.id}
            return out
        out.update({
            "name": item.name,
            "createdDateTime": iso(item.created),
            "lastModifiedDateTime": iso(item.modified),
            "eTag": f'"{{{item.id}}},{item.version}"',
            "size": len(item.content) if not item.folder else self._folder_size(item),
            "webUrl": f"{base}/web/{quote(item.id)}",
            "fileSystemInfo": {"createdDateTime": iso(item.created),
                               "lastModifiedDateTime": iso(item.modified)},
        })
        if not (delta and self.drive_type == "business"):
            out["cTag"] = f'"c:{{{item.id}}},{item.content_version}"'
        if item.parent_id is None:
            out["root"] = {}
        if parent is not None:
            ref: dict[str, Any] = {"driveId": self.drive_id, "driveType": self.drive_type,
                                   "id": parent.id, "name": parent.name}
            if not delta:
                ref["path"] = "/drive/root:" + quote(self._path_of(parent) if parent.parent_id
                                                     else "", safe="/")
            out["parentReference"] = ref
        if item.folder:
            out["folder"] = {"childCount": len(self.children[item.id])}
        else:
            hashes = {"quickXorHash": item.qxh, "sha256Hash": item.sha256}
            if self.drive_type == "personal":
                hashes["sha1Hash"] = item.sha1
            out["file"] = {"mimeType": "application/pdf" if item.name.lower().endswith(".pdf")
                           else "application/octet-stream", "hashes": hashes}
            if not delta:
                out["@microsoft.graph.downloadUrl"] = self._download_url(item, base)
        return out

    def _folder_size(self, item: Item) -> int:
        return sum(len(self.items[c].content) for c in self.children[item.id].values())

    def _download_url(self, item: Item, base: str) -> str:
        now = time.time()
        self.downloads = {k: v for k, v in self.downloads.items() if v[2] > now}
        key = secrets.token_urlsafe(24)
        self.downloads[key] = (item.id, item.content_version, now + 300)
        return f"{base}/download/{key}?tempauth={secrets.token_urlsafe(12)}"

    async def _download(self, request: Request) -> Response:
        if "authorization" in request.headers:
            return JSONResponse({"error": {"code": "unauthenticated", "message":
                                "Pre-authenticated URLs must not carry an Authorization header."}},
                                status_code=401)
        with self._lock:
            entry = self.downloads.get(request.path_params["key"])
            if entry is None or entry[2] < time.time():
                return JSONResponse({"error": {"code": "unauthenticated",
                                               "message": "The URL has expired."}}, status_code=401)
            item = self.items.get(entry[0])
            if item is None or item.deleted:
                return JSONResponse({"error": {"code": "itemNotFound", "message": "gone"}},
                                    status_code=404)
            data = item.content
        return Response(data, media_type="application/octet-stream")

    def _auth(self, request: Request) -> None:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer ") or not header[7:].strip():
            raise GraphError(401, "InvalidAuthenticationToken", "Access token is empty.",
                             {"WWW-Authenticate": 'Bearer realm="", error="invalid_token"'})
        if not self.identity.access_token_valid(header[7:].strip()):
            raise GraphError(401, "InvalidAuthenticationToken",
                             "Access token has expired or is not yet valid.",
                             {"WWW-Authenticate": 'Bearer realm="", error="invalid_token"'})

    async def _graph(self, request: Request) -> Response:
        base = f"{request.url.scheme}://{request.url.netloc}"
        try:
            body = await request.body()
            with self._lock:
                self._auth(request)
                return self._dispatch(request, base, body)
        except GraphError as err:
            inner = "resyncChangesApplyDifferences" if err.status == 410 else None
            return err.response(inner)

    def _dispatch(self, request: Request, base: str, body: bytes) -> Response:
        raw = request.scope.get("raw_path", request.url.path.encode()).decode()
        rest = raw.split("?", 1)[0][len("/v1.0/"):]
        if rest.startswith("me/drive"):
            prefix, rest = "me/drive", rest[len("me/drive"):]
        elif rest.startswith("drives/"):
            drive, _, tail = rest[len("drives/"):].partition("/")
            if unquote(drive) != self.drive_id:
                raise GraphError(404, "itemNotFound", "The drive cannot be found.")
            prefix, rest = f"drives/{drive}", "/" + tail if tail else ""
        elif rest == "me":
            return JSONResponse(self.user)
        else:
            raise GraphError(400, "BadRequest", f"Resource not found for the segment '{rest}'.")
        if rest in ("", "/"):
            if request.method != "GET":
                raise GraphError(405, "invalidRequest", "Method not allowed.")
            return JSONResponse({"id": self.drive_id, "driveType": self.drive_type,
                                 "owner": {"user": {"id": self.user["id"],
                                                    "displayName": self.user["displayName"]}},
                                 "quota": {"total": 5 << 30, "used": 0, "state": "normal"}})
        item, action, path_name = self._address(rest.lstrip("/"))
        drive_base = f"{base}/v1.0/{prefix}"
        method = request.method
        if action == "content" and method == "PUT":
            return self._put_content(item, path_name, body, base)
        if item is None:
            raise GraphError(404, "itemNotFound", "The resource could not be found.")
        if action == "" and method == "GET":
            return JSONResponse(self._item_json(item, base))
        if action == "" and method == "PATCH":
            return self._patch(request, item, body, base)
        if action == "" and method == "DELETE":
            if item is self.root:
                raise GraphError(403, "accessDenied", "The root cannot be deleted.")
            self._remove(item)
            return Response(status_code=204)
        if action == "children" and method == "GET":
            return self._list_children(request, item, base, drive_base)
        if action == "children" and method == "POST":
            return self._post_child(request, item, body, base)
        if action == "content" and method == "GET":
            if item.folder:
                raise GraphError(400, "invalidRequest", "Folders have no content.")
            return RedirectResponse(self._download_url(item, base), status_code=302)
        if action == "delta" and method == "GET":
            return self._delta(request, item, drive_base, base)
        raise GraphError(400, "invalidRequest", f"Unsupported request {method} {action or 'item'}.")

    def _address(self, rest: str) -> tuple[Item | None, str, str | None]:
        """(item or None, action, unresolved path for PUT content) for a drive-relative path."""
        if rest.startswith("root:"):
            tail = rest[len("root:"):]
            path_part, sep, action = tail.partition(":")
            action = action.lstrip("/") if sep else ""
            path = "/".join(unquote(p) for p in path_part.split("/"))
            return self._resolve(path), action, path
        if rest == "root" or rest.startswith("root/"):
            return self.root, rest[len("root/"):] if rest != "root" else "", None
        if rest.startswith("items/"):
            item_id, _, tail = rest[len("items/"):].partition("/")
            item_id = unquote(item_id)
            if ":" in item_id:  # items/{parent-id}:/name:/content
                parent_id, _, sub = item_id.partition(":")
                parent = self.items.get(parent_id)
                sub_path, _, action = (sub + ("/" + tail if tail else "")).partition(":")
                if parent is None or parent.deleted:
                    return None, action.lstrip("/"), None
                path = self._path_of(parent) + "/".join(unquote(p) for p in sub_path.split("/"))
                return self._resolve(path), action.lstrip("/"), path
            item = self.items.get(item_id)
            if item is None or item.deleted:
                return None, tail, None
            return item, tail, None
        raise GraphError(400, "BadRequest", "Unsupported item address.")

    def _put_content(self, item: Item | None, path: str | None, body: bytes, base: str) -> Response:
        if item is not None and item.folder:
            raise GraphError(409, "nameAlreadyExists", "A folder with that name exists.")
        if item is None:
            if path is None:
                raise GraphError(404, "itemNotFound", "The resource could not be found.")
            folder_path, _, name = path.rstrip("/").rpartition("/")
            parent = self._resolve(folder_path)
            if parent is None or not parent.folder:
                raise GraphError(404, "itemNotFound", "The parent folder does not exist.")
            item = self._create(parent, name, folder=False, data=body)
            return JSONResponse(self._item_json(item, base), status_code=201)
        item.set_content(body)
        item.version += 1
        item.content_version += 1
        item.modified = time.time()
        self._log(item)
        return JSONResponse(self._item_json(item, base))

    @staticmethod
    def _conflict_behavior(request: Request, payload: dict[str, Any]) -> str:
        value = request.query_params.get("@microsoft.graph.conflictBehavior") or payload.get(
            "@microsoft.graph.conflictBehavior") or "fail"
        if value not in ("fail", "replace", "rename"):
            raise GraphError(400, "invalidRequest", f"Invalid conflictBehavior {value!r}.")
        return str(value)

    def _free(self, parent: Item, name: str) -> str:
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        n = 1
        candidate = name
        while self._child(parent.id, candidate) is not None:
            candidate = f"{stem} {n}{'.' + ext if ext else ''}"
            n += 1
        return candidate

    @staticmethod
    def _json_body(body: bytes) -> dict[str, Any]:
        try:
            payload = json.loads(body or b"{}")
        except ValueError as err:
            raise GraphError(400, "BadRequest", "Unable to read JSON request payload.") from err
        if not isinstance(payload, dict):
            raise GraphError(400, "BadRequest", "The request body must be a JSON object.")
        return payload

    def _patch(self, request: Request, item: Item, body: bytes, base: str) -> Response:
        payload = self._json_body(body)
        behavior = self._conflict_behavior(request, payload)
        if item is self.root:
            raise GraphError(400, "invalidRequest", "The root cannot be moved or renamed.")
        parent = self.items[item.parent_id or ""]
        ref = payload.get("parentReference")
        if ref:
            if ref.get("driveId") not in (None, self.drive_id):
                raise GraphError(400, "invalidRequest", "Items cannot be moved between drives.")
            if "id" in ref:
                target = self.items.get(str(ref["id"]))
            elif "path" in ref:
                target = self._resolve(unquote(str(ref["path"]).split("root:", 1)[-1]))
            else:
                target = None
            if target is None or target.deleted:
                raise GraphError(404, "itemNotFound", "The parent item could not be found.")
            if not target.folder:
                raise GraphError(400, "invalidRequest", "The parent must be a folder.")
            if item.folder and self._is_under(target, item.id):
                raise GraphError(400, "invalidRequest", "A folder cannot be moved into itself.")
            parent = target
        name = str(payload.get("name") or item.name)
        problem = name_problem(name)
        if problem:
            raise GraphError(400, "invalidRequest", f"The name {name!r} contains {problem}.")
        other = self._child(parent.id, name)
        if other is not None and other is not item:
            if behavior == "fail":
                raise GraphError(409, "nameAlreadyExists",
                                 "The specified item name already exists.")
            if behavior == "replace" and not other.folder and not item.folder:
                self._remove(other)
            else:
                name = self._free(parent, name)
        if parent.id != item.parent_id or name != item.name:
            self._relocate(item, parent, name)
        return JSONResponse(self._item_json(item, base))

    def _post_child(self, request: Request, parent: Item, body: bytes, base: str) -> Response:
        if not parent.folder:
            raise GraphError(400, "invalidRequest", "Children can only be created in folders.")
        payload = self._json_body(body)
        behavior = self._conflict_behavior(request, payload)
        name = str(payload.get("name") or "")
        if "folder" not in payload:
            raise GraphError(400, "invalidRequest", "Only folders can be created this way.")
        other = self._child(parent.id, name)
        if other is not None:
            if behavior == "fail":
                raise GraphError(409, "nameAlreadyExists",
                                 "The specified item name already exists.")
            if behavior == "replace" and other.folder:
                return JSONResponse(self._item_json(other, base), status_code=200)
            name = self._free(parent, name)
        item = self._create(parent, name, folder=True)
        return JSONResponse(self._item_json(item, base), status_code=201)

    def _list_children(self, request: Request, folder: Item, base: str, drive_base: str) -> Response:
        if not folder.folder:
            return JSONResponse({"value": []})
        top = min(int(request.query_params.get("$top", self.page_size)), 1000)
        start = request.query_params.get("$skiptoken", "")
        names = sorted(self.children[folder.id])
        pos = bisect.bisect_right(names, unquote(start)) if start else 0
        page = names[pos : pos + top]
        out: dict[str, Any] = {"value": [self._item_json(self.items[self.children[folder.id][n]], base)
                                         for n in page]}
        if pos + top < len(names):
            out["@odata.nextLink"] = (f"{drive_base}/items/{quote(folder.id)}/children"
                                      f"?$top={top}&$skiptoken={quote(page[-1])}")
        return JSONResponse(out)

    # delta ---------------------------------------------------------------

    def _delta_token(self, scope: str, seq: int, initial: bool) -> str:
        raw = json.dumps({"s": scope, "q": seq, "e": self._epoch, "i": int(initial)})
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def _delta(self, request: Request, scope: Item, drive_base: str, base: str) -> Response:
        if self.drive_type == "business" and scope is not self.root:
            raise GraphError(400, "invalidRequest",
                             "Delta is only supported on the root of a OneDrive for Business "
                             "or SharePoint drive.")
        scope_url = (f"{drive_base}/root/delta" if scope is self.root
                     else f"{drive_base}/items/{quote(scope.id)}/delta")
        token = request.query_params.get("token")
        top = min(int(request.query_params.get("$top", self.page_size)), 1000)
        last = self._log_seqs[-1] if self._log_seqs else 0
        if token == "latest":
            return JSONResponse({"value": [], "@odata.deltaLink":
                                 f"{scope_url}?token={self._delta_token(scope.id, last, False)}"})
        since, initial = 0, True
        if token:
            try:
                state = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
                since, initial, epoch, tscope = int(state["q"]), bool(state["i"]), state["e"], state["s"]
            except (ValueError, KeyError, TypeError) as err:
                raise GraphError(400, "invalidRequest", "Invalid delta token.") from err
            if epoch != self._epoch or tscope != scope.id:
                raise GraphError(410, "resyncRequired",
                                 "Resync required. Replace any local items with the server's version "
                                 "(including deletes) if you're sure that the service was up to date "
                                 "with your local changes when you last sync'd.",
                                 {"Location": scope_url})
        pos = bisect.bisect_right(self._log_seqs, since)
        values: list[dict[str, Any]] = []
        seq = since
        while pos < len(self._log_seqs) and len(values) < top:
            seq, item_id = self._log_seqs[pos], self._log_ids[pos]
            pos += 1
            item = self.items[item_id]
            if item.seq != seq:  # superseded by a later entry
                continue
            if item.deleted and initial:
                continue
            if not self._is_under(item, scope.id):
                continue
            values.append(self._item_json(item, base, delta=True))
        out: dict[str, Any] = {"value": values}
        if pos < len(self._log_seqs):
            out["@odata.nextLink"] = f"{scope_url}?token={self._delta_token(scope.id, seq, initial)}"
        else:
            out["@odata.deltaLink"] = f"{scope_url}?token={self._delta_token(scope.id, last, False)}"
        return JSONResponse(out)
