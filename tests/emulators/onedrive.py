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

The state and backdoor are in `onedrive_state.py` (`OneDriveDrive`); the Graph side is here.
"""

from __future__ import annotations

import base64
import bisect
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .onedrive_state import GraphError, Item, OneDriveDrive, iso, name_problem, quick_xor_hash

__all__ = ["OneDriveEmulator", "quick_xor_hash"]


@dataclass
class OneDriveEmulator(OneDriveDrive):
    """A `OneDriveDrive` with its ASGI app: the identity platform and Graph v1.0."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.app = Starlette(routes=[
            *self.identity.routes(),
            Route("/download/{key}", self._download, methods=["GET"]),
            Route("/v1.0/{rest:path}", self._graph, methods=["GET", "POST", "PATCH", "PUT", "DELETE"]),
        ])

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
