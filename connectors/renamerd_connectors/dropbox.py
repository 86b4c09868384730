"""Dropbox, through the official SDK (API v2): refresh-token auth, list_folder feed, longpoll.

Options (`[connections.options]`): `app_key` (required), `app_secret` (optional: tokens from the
PKCE flow of `renamerd connect dropbox` refresh without it), `refresh_token` (required; usually
stored by `renamerd connect`), `endpoint` (one https base address standing in for the api,
content and notify hosts and the token endpoint: proxies and tests), `ca_bundle` (a PEM file of
CAs to trust instead of the system ones), `timeout` (seconds per request, default 100).

Feed: `files/list_folder` (recursive or not) paged with `continue` until `has_more` is false;
the stored cursor is Dropbox's cursor wrapped with the watched path, so a changed `watch` starts
over instead of continuing another folder's feed. `wait_for_changes` uses `list_folder/longpoll`
(no API quota, returns when something under the watched folder changes).

Identity: ids are Dropbox's "id:..." (they survive moves); `revision` is `content_hash`, which
also survives moves and renames (`rev` does not). Dropbox is case-insensitive: lookups go by
`path_lower`, names come from `path_display`. Moves use `files/move_v2` with autorename off, so
a taken name (in any case) gives `Conflict`, never an overwrite.

Errors: the SDK's own retries are switched off; 429 (`too_many_requests`,
`too_many_write_operations`, honouring `retry_after`), 5xx and network errors become
`TransientError` and are retried by the connection's `Pacer`. An expired access token is
refreshed by the SDK; a revoked refresh token (`invalid_grant`) becomes `AuthError`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from datetime import UTC
from typing import Any, BinaryIO, TypeVar
from urllib.parse import urlsplit

import dropbox
import requests
from dropbox import exceptions as dbx_errors
from dropbox import files as dbx_files
from dropbox.oauth import DropboxOAuth2FlowNoRedirect
from dropbox.session import API_HOST, HOST_API, HOST_CONTENT, HOST_NOTIFY, WEB_HOST
from requests.adapters import HTTPAdapter
from stone.backends.python_rsrc import stone_base, stone_validators

from renamerd.connectors import (
    AuthError,
    Changes,
    ConfigError,
    Conflict,
    ConnectorError,
    NotFound,
    Pacer,
    RemoteFile,
    TooLarge,
    TransientError,
    iter_chunks,
    join_path,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: what `ensure_folder("/")` returns; `move` accepts it (and any "/path") as a folder id
ROOT_ID = "/"
LONGPOLL_MIN, LONGPOLL_MAX = 30, 480
#: Dropbox adds up to 90 s of jitter to a longpoll's timeout
LONGPOLL_JITTER = 90
CHUNK = 64 * 1024


class _Reset(ConnectorError):
    """Dropbox invalidated the cursor (`reset`): list the folder again."""


def _tags(error: Any) -> list[str]:
    """The tag path of a Stone union error: RelocationError('to', WriteError('conflict', ...))
    gives ["to", "conflict", ...]."""
    tags: list[str] = []
    while isinstance(error, stone_base.Union):
        tags.append(error._tag)
        error = error._value
    return tags


def _api_path(path: str) -> str:
    """Provider path to the API's form: "/" is "" (the root), no trailing slash."""
    path = "/" + path.strip("/")
    return "" if path == "/" else path


def _split_endpoint(endpoint: str) -> str:
    """'https://host:port/prefix' -> 'host:port/prefix' (the SDK builds https://{host}/2/...)."""
    parts = urlsplit(endpoint)
    if parts.scheme != "https" or not parts.netloc:
        raise ConfigError(
            f"option endpoint: {endpoint!r} must be an https:// address (the Dropbox SDK "
            "speaks https only)"
        )
    return parts.netloc + parts.path.rstrip("/")


class _Client(dropbox.Dropbox):  # type: ignore[misc]
    """The SDK client with every host, the token endpoint included, at one address."""

    def __init__(self, *, host: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._token_host = host or API_HOST
        if host:
            self._host_map = {HOST_API: host, HOST_CONTENT: host, HOST_NOTIFY: host}

    def refresh_access_token(self, host: str | None = None, scope: Any = None) -> None:
        super().refresh_access_token(host=host or self._token_host, scope=scope)


class _Flow(DropboxOAuth2FlowNoRedirect):  # type: ignore[misc]
    """The SDK's no-redirect PKCE flow with the authorize page and token endpoint movable."""

    def __init__(self, *args: Any, host: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._host = host

    def build_url(self, target: str, params: Any = None, host: str = API_HOST) -> str:
        return super().build_url(target, params, self._host or host)  # type: ignore[no-any-return]


class _Session(requests.Session):
    """A requests session whose `ca_bundle` wins over REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE.

    (requests lets those variables override `Session.verify`; proxies from the environment
    still apply.)
    """

    def __init__(self, ca_bundle: str | None) -> None:
        super().__init__()
        self.ca_bundle = ca_bundle
        self.verify = ca_bundle or True
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=8)
        self.mount("https://", adapter)

    def merge_environment_settings(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        settings: dict[str, Any] = super().merge_environment_settings(*args, **kwargs)
        if self.ca_bundle:
            settings["verify"] = self.ca_bundle
        return settings


def _check_options(options: dict[str, Any], *, need_token: bool) -> dict[str, Any]:
    known = {"app_key", "app_secret", "refresh_token", "endpoint", "ca_bundle", "timeout"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f"unknown dropbox option(s): {', '.join(unknown)}")
    required = ["app_key", "refresh_token"] if need_token else ["app_key"]
    for key in required:
        if not isinstance(options.get(key), str) or not options[key].strip():
            hint = " (run: renamerd connect dropbox --connection NAME)" * (key == "refresh_token")
            raise ConfigError(f"dropbox option {key} is required{hint}")
    for key in ("app_secret", "endpoint", "ca_bundle"):
        if options.get(key) is not None and not isinstance(options[key], str):
            raise ConfigError(f"dropbox option {key} must be a string")
    ca = options.get("ca_bundle")
    if ca and not os.path.isfile(ca):
        raise ConfigError(f"dropbox option ca_bundle: no such file {ca!r}")
    timeout = options.get("timeout", 100)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError("dropbox option timeout must be a positive number of seconds")
    return {
        "app_key": options["app_key"].strip(),
        "app_secret": (options.get("app_secret") or "").strip() or None,
        "refresh_token": (options.get("refresh_token") or "").strip(),
        "host": _split_endpoint(options["endpoint"]) if options.get("endpoint") else None,
        "ca_bundle": ca or None,
        "timeout": float(timeout),
    }


class DropboxConnector:
    """One Dropbox account (see the module docstring for options, feed and error mapping)."""

    provider = "dropbox"
    case_insensitive = True

    def __init__(
        self, options: dict[str, Any], *, name: str, state_dir: str = "", pacer: Pacer | None = None
    ) -> None:
        opts = _check_options(dict(options), need_token=True)
        self.name = name
        self.state_dir = state_dir
        self.pacer = pacer or Pacer()
        self._timeout = opts["timeout"]
        self._longpoll_not_before = 0.0
        self._dbx = _Client(
            host=opts["host"],
            oauth2_refresh_token=opts["refresh_token"],
            app_key=opts["app_key"],
            app_secret=opts["app_secret"],
            session=_Session(opts["ca_bundle"]),
            max_retries_on_error=0,
            max_retries_on_rate_limit=0,
            timeout=self._timeout,
            user_agent="renamerd",
        )

    # ---- calls and error mapping

    def _auth_error(self, reason: str) -> AuthError:
        return AuthError(
            f"Dropbox refused the credentials of connection {self.name!r} ({reason}); "
            f"reconnect with: renamerd connect dropbox --connection {self.name}"
        )

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one SDK call under the Pacer, mapping SDK errors to connector errors.

        Transient trouble is retried by the Pacer; route errors become NotFound, Conflict,
        _Reset or ConnectorError (too_many_write_operations and internal_error are transient).
        """
        forced_refresh = False
        refresh_first = False

        def attempt() -> T:
            nonlocal forced_refresh, refresh_first
            try:
                if refresh_first:
                    refresh_first = False
                    self._dbx.refresh_access_token()
                return fn()
            except dbx_errors.ApiError as err:
                raise self._route_error(what, err.error) from None
            except dbx_errors.RateLimitError as err:
                reason = _tags(getattr(err.error, "reason", None)) or ["too_many_requests"]
                raise TransientError(
                    f"{what}: Dropbox throttled the call ({reason[0]})", retry_after=err.backoff
                ) from None
            except dbx_errors.InternalServerError as err:
                raise TransientError(f"{what}: Dropbox server error {err.status_code}") from None
            except dbx_errors.AuthError as err:
                tags = _tags(err.error) or ["other"]
                if tags[0] == "invalid_access_token" and not forced_refresh:
                    # a revoked access token, or a refused refresh: try once more afresh
                    forced_refresh = refresh_first = True
                    raise TransientError(f"{what}: renewing the access token", 0) from None
                if tags[0] == "invalid_access_token":
                    raise self._auth_error("invalid_grant: access revoked or expired") from None
                raise self._auth_error("/".join(tags)) from None
            except dbx_errors.BadInputError as err:
                raise self._bad_input(what, err) from None
            except dbx_errors.HttpError as err:
                if err.status_code in (408, 425):
                    raise TransientError(f"{what}: HTTP {err.status_code}") from None
                raise ConnectorError(f"{what}: Dropbox answered HTTP {err.status_code}") from None
            except requests.exceptions.SSLError as err:
                raise ConnectorError(f"{what}: TLS verification failed ({err})") from None
            except requests.RequestException as err:
                raise TransientError(f"{what}: network error ({type(err).__name__})") from None
            except stone_validators.ValidationError as err:
                raise TransientError(f"{what}: unreadable answer from Dropbox ({err})") from None

        return self.pacer.call(attempt, what=f"dropbox {self.name}: {what}")

    def _bad_input(self, what: str, err: dbx_errors.BadInputError) -> ConnectorError:
        message = str(err.message or "")
        if "invalid_client" in message:
            return self._auth_error("invalid_client: check app_key and app_secret")
        return ConnectorError(f"{what}: Dropbox rejected the request: {message[:300]}")

    def _route_error(self, what: str, error: Any) -> ConnectorError:
        tags = _tags(error)
        summary = "/".join(tags) or repr(error)
        if "reset" in tags:
            return _Reset(f"{what}: cursor reset by Dropbox")
        if "too_many_write_operations" in tags or "internal_error" in tags:
            return TransientError(f"{what}: Dropbox is busy ({summary})")
        if "conflict" in tags:
            return Conflict(f"{what}: the name is taken ({summary})")
        if {"not_found", "not_file", "not_folder"} & set(tags):
            return NotFound(f"{what}: not found ({summary})")
        return ConnectorError(f"{what}: Dropbox refused ({summary})")

    # ---- metadata

    @staticmethod
    def _remote(md: dbx_files.FileMetadata) -> RemoteFile:
        modified = md.server_modified
        if modified is not None and modified.tzinfo is None:
            modified = modified.replace(tzinfo=UTC)
        return RemoteFile(
            id=md.id,
            path=md.path_display or md.path_lower,
            name=md.name,
            size=int(md.size),
            revision=md.content_hash or md.rev,
            modified=modified,
        )

    def _metadata(self, what: str, path_or_id: str) -> Any | None:
        """get_metadata, or None when nothing is there."""
        try:
            return self._call(what, lambda: self._dbx.files_get_metadata(path_or_id))
        except NotFound:
            return None

    # ---- the Connector protocol

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """See `Connector.changes`. Read-only; safe to repeat with the same cursor.

        Cost: one `continue` call per 2,000 changed entries, one call for an idle poll.
        Raises NotFound if `watch` is not a folder, AuthError, TransientError.
        """
        path = _api_path(watch)
        state = self._parse_cursor(cursor)
        reset = False
        if state is not None and (state["w"] != path.lower() or state["r"] != recursive):
            state, reset = None, True  # the stored cursor follows another folder
        for _attempt in range(3):
            try:
                if state is None:
                    found, latest = self._list(path, recursive)
                else:
                    found, latest = self._continue(state["c"])
                wrapped = json.dumps({"w": path.lower(), "r": recursive, "c": latest})
                return Changes(files=list(found.values()), cursor=wrapped, reset=reset)
            except _Reset:
                log.info("dropbox %s: cursor reset, listing %s again", self.name, watch)
                state, reset = None, True
        raise TransientError(f"changes: Dropbox keeps resetting the cursor of {watch}")

    @staticmethod
    def _parse_cursor(cursor: str | None) -> dict[str, Any] | None:
        if not cursor:
            return None
        try:
            state = json.loads(cursor)
            if isinstance(state, dict) and {"w", "r", "c"} <= set(state):
                return state
        except ValueError:
            pass
        return None  # not ours (an older format): start over

    def _list(self, path: str, recursive: bool) -> tuple[dict[str, RemoteFile], str]:
        def first() -> Any:
            return self._dbx.files_list_folder(path, recursive=recursive, include_deleted=False)

        result = self._call("list_folder", first)
        found: dict[str, RemoteFile] = {}
        self._take(result.entries, found)
        if result.has_more:
            more, cursor = self._continue(result.cursor)
            found.update(more)
            return found, cursor
        return found, result.cursor

    def _continue(self, cursor: str) -> tuple[dict[str, RemoteFile], str]:
        found: dict[str, RemoteFile] = {}
        while True:
            result = self._call(
                "list_folder/continue",
                lambda c=cursor: self._dbx.files_list_folder_continue(c),  # type: ignore[misc]
            )
            self._take(result.entries, found)
            cursor = result.cursor
            if not result.has_more:
                return found, cursor

    def _take(self, entries: list[Any], found: dict[str, RemoteFile]) -> None:
        for md in entries:
            if isinstance(md, dbx_files.FileMetadata) and md.is_downloadable is not False:
                found[md.id] = self._remote(md)
            elif isinstance(md, dbx_files.DeletedMetadata):
                for key in [k for k, f in found.items() if f.path.lower() == md.path_lower]:
                    del found[key]

    def latest_cursor(self, watch: str, *, recursive: bool = True) -> str:
        """A cursor for "from now on" without listing what is there (optional capability).

        One API call; read-only. Raises NotFound if `watch` is not a folder.
        """
        path = _api_path(watch)
        result = self._call(
            "list_folder/get_latest_cursor",
            lambda: self._dbx.files_list_folder_get_latest_cursor(path, recursive=recursive),
        )
        return json.dumps({"w": path.lower(), "r": recursive, "c": result.cursor})

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """Block up to about `timeout_s` until something under the cursor's folder changes.

        Returns True when `changes` has news (or the cursor was reset), False on a quiet
        timeout. Uses `list_folder/longpoll` (no authentication, no API quota; Dropbox holds it
        30..480 s, so a shorter wait ends on the client side). Honours Dropbox's `backoff`.
        Read-only, safe to repeat. Raises TransientError when Dropbox cannot be reached.
        """
        state = self._parse_cursor(cursor)
        if state is None:
            return True
        deadline = time.monotonic() + max(timeout_s, 0.0)
        pause = self._longpoll_not_before - time.monotonic()
        if pause > 0:
            time.sleep(min(pause, max(timeout_s, 0.0)))
            if time.monotonic() >= deadline:
                return False
        remaining = max(deadline - time.monotonic(), 0.1)
        wire = int(min(max(remaining, LONGPOLL_MIN), LONGPOLL_MAX))
        client_timeout = remaining if remaining < LONGPOLL_MIN else wire + LONGPOLL_JITTER
        arg = dbx_files.ListFolderLongpollArg(state["c"], wire)

        def poll() -> Any:
            try:
                return self._dbx.request(
                    dbx_files.list_folder_longpoll, "files", arg, None, timeout=client_timeout
                )
            except requests.exceptions.ReadTimeout:
                if remaining < LONGPOLL_MIN:
                    return None  # our own short wait ended first
                raise

        try:
            result = self._call("list_folder/longpoll", poll)
        except _Reset:
            return True
        if result is None:
            return False
        if result.backoff:
            self._longpoll_not_before = time.monotonic() + result.backoff
        return bool(result.changes)

    def stat(self, file_id: str) -> RemoteFile | None:
        """See `Connector.stat`: None if gone (or a folder). Read-only."""
        md = self._metadata("get_metadata", file_id)
        return self._remote(md) if isinstance(md, dbx_files.FileMetadata) else None

    def stat_path(self, path: str) -> RemoteFile | None:
        """See `Connector.stat_path` (case-insensitive). None if no file is there. Read-only."""
        if not _api_path(path):
            return None
        md = self._metadata("get_metadata", _api_path(path))
        return self._remote(md) if isinstance(md, dbx_files.FileMetadata) else None

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """See `Connector.download`: streams `files/download`, stopping past `max_bytes`.

        Raises NotFound, TooLarge. Safe to repeat; a retried attempt rewinds `dest` first.
        """
        start = dest.tell() if dest.seekable() else None

        def fetch() -> int:
            if start is not None:
                dest.seek(start)
                dest.truncate()
            md, response = self._dbx.files_download(file_id)
            try:
                if md.size is not None and md.size > max_bytes:
                    raise TooLarge(f"file is {md.size} bytes, more than {max_bytes}")
                return iter_chunks(response.iter_content(CHUNK), dest, max_bytes)
            finally:
                response.close()

        return self._call("download", fetch)

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`: the folder's "id:..." ("/" for the root). Idempotent.

        Raises Conflict if a file sits where a folder should be.
        """
        api_path = _api_path(path)
        if not api_path:
            return ROOT_ID
        for _attempt in range(3):
            md = self._metadata("get_metadata", api_path)
            if isinstance(md, dbx_files.FolderMetadata):
                return str(md.id)
            if md is not None:
                raise Conflict(f"ensure_folder: a file is in the way at {path}")
            try:
                created = self._call(
                    "create_folder_v2",
                    lambda: self._dbx.files_create_folder_v2(api_path, autorename=False),
                )
                return str(created.metadata.id)
            except Conflict:
                continue  # created meanwhile (or a file): look again
        raise Conflict(f"ensure_folder: cannot create {path}")

    def _folder_path(self, folder_id: str) -> str:
        if folder_id == ROOT_ID:
            return ""
        if folder_id.startswith("/"):
            return _api_path(folder_id)
        md = self._metadata("get_metadata", folder_id)
        if not isinstance(md, dbx_files.FolderMetadata):
            raise NotFound(f"move: folder {folder_id} not found")
        return str(md.path_display or md.path_lower)

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """See `Connector.move`: `files/move_v2`, autorename off. Never overwrites.

        Raises Conflict (the name is taken, in any case), NotFound (file or folder gone).
        Safe to repeat: a file already at `name` in the folder is returned unchanged.
        """
        if not name or "/" in name:
            raise ConnectorError(f"move: invalid name {name!r}")
        to_path = join_path(self._folder_path(folder_id), name)

        def relocate() -> Any:
            return self._dbx.files_move_v2(
                file_id, to_path, autorename=False, allow_ownership_transfer=False
            )

        try:
            result = self._call("move_v2", relocate)
        except Conflict:
            there = self.stat_path(to_path)
            if there is not None and there.id == file_id and there.name == name:
                return there  # already moved (an earlier attempt went through)
            raise
        except NotFound as err:
            raise NotFound(f"move: file {file_id} not found ({err})") from None
        return self._remote(result.metadata)

    def close(self) -> None:
        """Close the HTTP session. Safe to call twice."""
        self._dbx.close()

    # ---- connecting an account

    @classmethod
    def connect_flow(
        cls,
        options: dict[str, Any],
        *,
        echo: Callable[[str], None],
        prompt: Callable[[str], str],
    ) -> str:
        """Run Dropbox's PKCE code flow at a terminal and return the refresh token.

        Prints the authorize URL, asks for the code Dropbox shows after "Allow", exchanges it
        at the token endpoint (`endpoint` option, else api.dropboxapi.com). Raises ConfigError
        for bad options, AuthError when Dropbox refuses the code. Each run needs a new code.
        """
        opts = _check_options(dict(options), need_token=False)
        flow = _Flow(
            opts["app_key"],
            use_pkce=True,
            token_access_type="offline",  # noqa: S106 (a mode, not a secret)
            ca_certs=opts["ca_bundle"],
            timeout=opts["timeout"],
            host=opts["host"],
        )
        flow.requests_session = _Session(opts["ca_bundle"])
        url = flow.start()
        where = opts["host"] or WEB_HOST
        echo(f"1. Open this address in a browser and sign in to Dropbox ({where}):")
        echo(f"   {url}")
        echo('2. Click "Allow" (you might have to sign in first).')
        code = prompt("3. Paste the authorization code here").strip()
        if not code:
            raise AuthError("no authorization code given")
        try:
            result = flow.finish(code)
        except requests.HTTPError as err:
            detail = ""
            if err.response is not None:
                with contextlib.suppress(ValueError, AttributeError):
                    detail = str(err.response.json().get("error_description") or "")
            raise AuthError(f"Dropbox refused the code: {detail or err}") from None
        except requests.RequestException as err:
            raise TransientError(f"cannot reach Dropbox: {type(err).__name__}") from None
        if not result.refresh_token:
            raise AuthError("Dropbox returned no refresh token (is the app set to offline?)")
        return str(result.refresh_token)
