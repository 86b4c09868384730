"""The Drive v3 emulator's HTTP side: one handler per endpoint, over a `DriveState`.

Drive endpoints (`drive_api`) run under the state's lock after the bearer token is checked and
answer Drive's JSON, masked by the `fields` parameter; the OAuth endpoints (`auth_endpoint`,
`token_endpoint`) answer as Google's do. Handlers raise `ApiError` for Drive's error bodies.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from emulators.consent import approved, consent_page
from emulators.gdrive_query import ApiError, apply_fields, invalid, not_found, parse_fields, parse_query
from emulators.gdrive_state import FOLDER, GOOGLE_TOKEN_AUDIENCE, JWT_BEARER, DriveState, Item, Token

DriveHandler = Callable[[DriveState, Request, Any], Response]


def _bool(request: Request, key: str) -> bool:
    return request.query_params.get(key, "false").lower() == "true"


def _oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def authorize(state: DriveState, request: Request) -> None:
    header = request.headers.get("authorization", "")
    tok = state.tokens.get(header[7:]) if header.startswith("Bearer ") else None
    if tok is None or tok.kind != "access" or tok.expires < time.monotonic():
        raise ApiError(401, "authError", "Invalid Credentials", location="Authorization",
                       locationType="header")
    if state.scripted:
        status, reason = state.scripted.pop(0)
        raise ApiError(status, reason, reason)


def drive_api(state: DriveState, fn: DriveHandler) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint running `fn(state, request, body)` under the state's lock, after the token
    check; a reply `lose_reply` asked for is replaced by an error after the call took effect."""

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        try:
            with state.lock:
                authorize(state, request)
                response = fn(state, request, json.loads(body) if body else {})
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


def get_file(state: DriveState, request: Request, _body: Any) -> Response:
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


def list_files(state: DriveState, request: Request, _body: Any) -> Response:
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


def create_file(state: DriveState, request: Request, body: dict[str, Any]) -> Response:
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


def update_file(state: DriveState, request: Request, body: dict[str, Any]) -> Response:
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


def delete_file(state: DriveState, request: Request, _body: Any) -> Response:
    item = state.lookup(request.path_params["file_id"], _bool(request, "supportsAllDrives"))
    state.remove(item.id)
    return Response(status_code=204)


def start_token(state: DriveState, request: Request, _body: Any) -> Response:
    return JSONResponse({"kind": "drive#startPageToken", "startPageToken": str(state.next_seq + 1)})


def list_changes(state: DriveState, request: Request, _body: Any) -> Response:
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


async def auth_endpoint(state: DriveState, request: Request) -> Response:
    qp = request.query_params
    redirect = qp.get("redirect_uri", "")
    host = urlsplit(redirect).hostname
    if qp.get("client_id") not in state.clients or host not in ("127.0.0.1", "localhost", "::1"):
        return Response("Error 400: redirect_uri_mismatch", status_code=400)
    if qp.get("response_type") != "code" or qp.get("code_challenge_method", "S256") != "S256":
        return Response("Error 400: invalid_request", status_code=400)
    if state.consent_page and not approved(request):
        return consent_page(request, "Google Drive", "see, edit, create and delete your files")
    code = "4/" + secrets.token_urlsafe(24)
    with state.lock:
        state.codes[code] = {"client": qp["client_id"], "redirect_uri": redirect,
                             "challenge": qp.get("code_challenge", "")}
    query = urlencode({"state": qp.get("state", ""), "code": code, "scope": qp.get("scope", "")})
    return RedirectResponse(f"{redirect}?{query}", status_code=302)


async def revoke_endpoint(state: DriveState, request: Request) -> Response:
    """oauth2.googleapis.com/revoke: the token (refresh or access) and what came from it."""
    form = await request.form()
    token = str(form.get("token", "") or request.query_params.get("token", ""))
    with state.lock:
        known = token in state.tokens
    if not known:
        return _oauth_error("invalid_token", "Token expired or revoked")
    state.revoke(token)
    return JSONResponse({})


async def token_endpoint(state: DriveState, request: Request) -> Response:
    form = await request.form()
    grant = str(form.get("grant_type", ""))
    with state.lock:
        if state.token_failures:
            state.token_failures -= 1
            return _oauth_error("internal_failure", "Backend Error", 503)
        if grant == JWT_BEARER:
            return jwt_grant(state, str(form.get("assertion", "")))
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


def jwt_grant(state: DriveState, assertion: str) -> Response:
    import jwt

    try:
        unverified = jwt.decode(assertion, options={"verify_signature": False})
        key = state.service_accounts[unverified["iss"]]
        claims = jwt.decode(assertion, key, algorithms=["RS256"], audience=GOOGLE_TOKEN_AUDIENCE)
    except (jwt.PyJWTError, KeyError):
        return _oauth_error("invalid_grant", "Invalid JWT Signature.")
    return JSONResponse(state.mint_access("sa:" + str(claims["iss"])))


def endpoint_for(state: DriveState, fn: Callable[[DriveState, Request], Awaitable[Response]]
                 ) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint running `fn(state, request)`."""

    async def endpoint(request: Request) -> Response:
        return await fn(state, request)

    return endpoint


def build_app(state: DriveState) -> Starlette:
    """Drive v3 under /drive/v3 and Google's OAuth endpoints, as an ASGI app over `state`."""
    base = "/drive/v3"
    routes = [
        Route(f"{base}/files", drive_api(state, list_files), methods=["GET"]),
        Route(f"{base}/files", drive_api(state, create_file), methods=["POST"]),
        Route(base + "/files/{file_id}", drive_api(state, get_file), methods=["GET"]),
        Route(base + "/files/{file_id}", drive_api(state, update_file), methods=["PATCH"]),
        Route(base + "/files/{file_id}", drive_api(state, delete_file), methods=["DELETE"]),
        Route(f"{base}/changes/startPageToken", drive_api(state, start_token), methods=["GET"]),
        Route(f"{base}/changes", drive_api(state, list_changes), methods=["GET"]),
        Route("/o/oauth2/auth", endpoint_for(state, auth_endpoint), methods=["GET"]),
        Route("/token", endpoint_for(state, token_endpoint), methods=["POST"]),
        Route("/revoke", endpoint_for(state, revoke_endpoint), methods=["POST"]),
    ]
    return Starlette(routes=routes)
