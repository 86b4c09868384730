"""The Dropbox API v2 emulator's HTTP side: one handler per route, over a `DropboxAccount`.

RPC routes (`rpc`) take a JSON body and answer JSON; `files/download` takes its argument in the
`Dropbox-API-Arg` header; `/oauth2/token` and `/oauth2/authorize` are the OAuth endpoints.
Handlers raise `ApiFailure` (see `route_error`, `bad_input`) for Dropbox's error answers.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .consent import approved, consent_page
from .dropbox_account import DISALLOWED_NAMES, ApiFailure, DropboxAccount, _norm, bad_input, route_error

RpcHandler = Callable[[DropboxAccount, dict[str, Any]], Awaitable[dict[str, Any]]]


def authorize(account: DropboxAccount, request: Request) -> str:
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


def rpc(account: DropboxAccount, route: str, fn: RpcHandler, *, auth: bool = True) -> Route:
    """The POST route /2/`route`: checks the token (if `auth`) and the JSON body, runs
    `fn(account, args)` and answers its result, or the route error it raised."""

    async def endpoint(request: Request) -> Response:
        try:
            if auth:
                authorize(account, request)
            args = await rpc_args(request, route)
            result = await fn(account, args)
        except ApiFailure as failure:
            return failure.response()
        return JSONResponse(result)

    return Route(f"/2/{route}", endpoint, methods=["POST"])


def endpoint_for(account: DropboxAccount, fn: Callable[[DropboxAccount, Request], Awaitable[Response]]
                 ) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint running `fn(account, request)`."""

    async def endpoint(request: Request) -> Response:
        return await fn(account, request)

    return endpoint


async def list_folder(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
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


async def list_folder_continue(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
    with account.lock:
        state = account.parse_cursor("files/list_folder/continue", str(args.get("cursor")))
        return account.list_page(state)


async def latest_cursor(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
    with account.lock:
        entry = account._resolve("files/list_folder", str(args.get("path", "")))
        if entry is not None and not entry.folder:
            raise route_error("path", "not_folder")
        scope = entry.path_lower if entry else ""
        recursive = bool(args.get("recursive", False))
        return {"cursor": account.cursor(scope, recursive, len(account.log), None)}


async def longpoll(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
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


async def get_metadata(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
    path = str(args.get("path", ""))
    if path in ("", "/"):
        raise bad_input("files/get_metadata", "The root folder is unsupported.")
    with account.lock:
        entry = account._resolve("files/get_metadata", path)
        assert entry is not None
        return entry.metadata()


async def create_folder(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
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


async def move(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
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


async def delete(account: DropboxAccount, args: dict[str, Any]) -> dict[str, Any]:
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


async def download(account: DropboxAccount, request: Request) -> Response:
    route = "files/download"
    try:
        authorize(account, request)
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


async def token(account: DropboxAccount, request: Request) -> Response:
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


async def revoke_token(account: DropboxAccount, request: Request) -> Response:
    """/2/auth/token/revoke: the access token of the call, and the refresh token it came from,
    stop working (no body, as Dropbox takes it)."""
    try:
        access = authorize(account, request)
    except ApiFailure as failure:
        return failure.response()
    with account.lock:
        refresh = account.access_tokens[access][0]
    account.revoke(refresh)
    return JSONResponse(None)


async def authorize_page(account: DropboxAccount, request: Request) -> Response:
    """The consent page, approved at once: shows the code to paste, as Dropbox does."""
    q = request.query_params
    app_key = q.get("client_id", "")
    if app_key not in account.apps or q.get("response_type") != "code":
        return HTMLResponse("<p>Invalid request</p>", 400)
    if q.get("code_challenge") and q.get("code_challenge_method") != "S256":
        return HTMLResponse("<p>Unsupported code_challenge_method</p>", 400)
    redirect_uri = q.get("redirect_uri", "")
    if redirect_uri and not approved(request):
        return consent_page(request, "Dropbox", "access the files and folders in your Dropbox")
    code = secrets.token_urlsafe(32)
    with account.lock:
        account.codes[code] = (app_key, q.get("code_challenge", ""))
    if redirect_uri:  # the browser flow: back to the app with the code and its state
        sep = "&" if "?" in redirect_uri else "?"
        return RedirectResponse(
            f"{redirect_uri}{sep}{urlencode({'code': code, 'state': q.get('state', '')})}", 302)
    return HTMLResponse(
        f'<p>Enter this code into your app:</p><input id="code" value="{html.escape(code)}">'
    )


def create_app(account: DropboxAccount) -> Starlette:
    """The Dropbox API as an ASGI app over `account` (one host serves api, content, notify)."""
    routes = [
        rpc(account, "files/list_folder", list_folder),
        rpc(account, "files/list_folder/continue", list_folder_continue),
        rpc(account, "files/list_folder/get_latest_cursor", latest_cursor),
        rpc(account, "files/list_folder/longpoll", longpoll, auth=False),
        rpc(account, "files/get_metadata", get_metadata),
        rpc(account, "files/create_folder_v2", create_folder),
        rpc(account, "files/move_v2", move),
        rpc(account, "files/delete_v2", delete),
        Route("/2/files/download", endpoint_for(account, download), methods=["POST", "GET"]),
        Route("/oauth2/token", endpoint_for(account, token), methods=["POST"]),
        Route("/2/auth/token/revoke", endpoint_for(account, revoke_token), methods=["POST"]),
        Route("/oauth2/authorize", endpoint_for(account, authorize_page), methods=["GET"]),
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
