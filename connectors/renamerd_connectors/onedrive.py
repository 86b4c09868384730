"""OneDrive (personal and business) through Microsoft Graph, tokens through msal.

Changes come from Graph delta: on a personal drive, delta of the watched folder; on a business
drive or SharePoint library (where delta is only offered on the root), delta of the root, filtered
to the watched folder. The cursor is the deltaLink (with the drive and folder ids it belongs to).
Delta items carry no ``parentReference.path``, so folder paths come from a small id -> path cache
fed by the feed itself and, for folders not seen yet, one GET of that folder.

Downloads follow the 302 of ``/content`` by hand, without the Authorization header. Moves are one
PATCH with ``parentReference`` and ``@microsoft.graph.conflictBehavior=fail``, so a name clash is a
409 (`Conflict`), never an overwrite. Every call runs through the connection's `Pacer`: 429/503/5xx
and network errors become `TransientError` (honouring Retry-After); an expired access token is
refreshed once; a refused refresh token (``invalid_grant``) is an `AuthError`.
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any, BinaryIO
from urllib.parse import quote, unquote, urlsplit

import httpx

from renamerd.connectors import (
    AuthError,
    Changes,
    ConfigError,
    Conflict,
    ConnectorError,
    NotFound,
    Pacer,
    RemoteFile,
    TransientError,
    iter_chunks,
    join_path,
)
from renamerd_connectors.onedrive_auth import (
    GraphTokens,
    authority_url,
    device_code_flow,
    scopes_option,
    text_option,
)

log = logging.getLogger(__name__)

GRAPH_ENDPOINT = "https://graph.microsoft.com/v1.0"
OPTIONS = {
    "client_id", "client_secret", "tenant", "refresh_token", "authority", "graph_endpoint",
    "ca_bundle", "drive_id", "scopes", "timeout",
}
INVALID_CHARS = frozenset('"*:<>?/\\|')
RESERVED_NAMES = frozenset({".lock", "con", "prn", "aux", "nul", "desktop.ini"}
                           | {f"{p}{n}" for p in ("com", "lpt") for n in range(10)})
CURSOR_VERSION = 1


def name_problem(name: str) -> str | None:
    """Why OneDrive would refuse `name` (a reason), or None when it is acceptable."""
    if not name or name != name.strip():
        return "empty, or leading/trailing spaces"
    if any(c in INVALID_CHARS for c in name):
        return 'contains one of " * : < > ? / \\ |'
    low = name.lower()
    if low in RESERVED_NAMES or low.startswith("~$") or "_vti_" in low:
        return "a reserved name"
    if len(name) > 255:
        return "longer than 255 characters"
    return None


def clean_name(name: str) -> str:
    """`name` made acceptable to OneDrive: forbidden characters become "_", spaces trimmed,
    reserved names prefixed with "_". Pure; safe to repeat."""
    out = "".join("_" if c in INVALID_CHARS or ord(c) < 32 else c for c in name).strip()
    low = out.lower()
    if not out or low in RESERVED_NAMES or low.startswith("~$"):
        out = "_" + out
    out = out.replace("_vti_", "_vti-")
    if len(out) > 255:
        stem, dot, ext = out.rpartition(".")
        out = (stem[: 255 - len(ext) - 1] + "." + ext) if dot and len(ext) < 16 else out[:255]
    return out


class _Resync(Exception):
    """Graph answered 410 Gone to a delta token."""


class OneDriveConnector:
    """A OneDrive or SharePoint drive, through Microsoft Graph. See the module docstring."""

    provider = "onedrive"
    case_insensitive = True

    def __init__(self, options: dict[str, Any], *, name: str, state_dir: str) -> None:
        unknown = set(options) - OPTIONS
        if unknown:
            raise ConfigError(f"onedrive connection {name!r}: unknown options {sorted(unknown)}")
        self.name = name
        self.state_dir = state_dir
        client_id = text_option(options, "client_id", name, required=True)
        refresh_token = text_option(options, "refresh_token", name)
        if not refresh_token:
            raise ConfigError(f"onedrive connection {name!r} has no refresh_token: run "
                              f"`renamerd connect onedrive --connection {name}`")
        authority = authority_url(options, name)
        graph = (text_option(options, "graph_endpoint", name) or GRAPH_ENDPOINT).rstrip("/")
        if urlsplit(graph).scheme not in ("https", "http") or not urlsplit(graph).netloc:
            raise ConfigError(f"onedrive connection {name!r}: graph_endpoint must be an https URL")
        self._graph = graph
        self._graph_origin = _origin(graph)
        self._verify: str | bool = text_option(options, "ca_bundle", name) or True
        if isinstance(self._verify, str) and not os.path.isfile(self._verify):
            raise ConfigError(f"onedrive connection {name!r}: ca_bundle {self._verify} not found")
        drive_id = text_option(options, "drive_id", name)
        self._drive_url = f"{graph}/drives/{quote(drive_id, safe='')}" if drive_id else f"{graph}/me/drive"
        try:
            self._timeout = float(options.get("timeout", 60))
        except (TypeError, ValueError) as err:
            raise ConfigError(f"onedrive connection {name!r}: timeout must be a number") from err
        self.tokens = GraphTokens(
            name=name, client_id=client_id,
            client_secret=text_option(options, "client_secret", name) or None,
            refresh_token=refresh_token, authority=authority, verify=self._verify,
            timeout=self._timeout, scopes=scopes_option(options, name))
        self.pacer = Pacer(max_sleep=120.0)  # Graph's Retry-After can reach minutes
        self._http: httpx.Client | None = None
        self._plain: httpx.Client | None = None
        self._drive: dict[str, Any] | None = None
        self._watch_ids: dict[str, str] = {}
        #: folder id -> (path, parent id, name), least recently used first
        self._folders: OrderedDict[str, tuple[str, str, str]] = OrderedDict()

    # ------------------------------------------------------------------ HTTP

    def _client(self) -> httpx.Client:
        if self._http is None:
            self._http = httpx.Client(verify=self._verify, timeout=self._timeout,
                                      follow_redirects=False, headers={"Accept": "application/json"})
        return self._http

    def _request(self, method: str, url: str, *, json_body: Any = None,
                 params: dict[str, str] | None = None) -> httpx.Response:
        """One Graph call with retries; returns a 2xx/3xx response. Raises ConnectorError kinds."""
        if _origin(url) != self._graph_origin:
            raise ConnectorError(f"onedrive {self.name}: refusing to send a token to {_origin(url)}")
        return self.pacer.call(lambda: self._once(method, url, json_body, params),
                               f"onedrive {self.name} {method}")

    def _once(self, method: str, url: str, json_body: Any, params: dict[str, str] | None
              ) -> httpx.Response:
        for attempt in (1, 2):
            token = self.tokens.token()
            try:
                resp = self._client().request(method, url, json=json_body, params=params,
                                              headers={"Authorization": f"Bearer {token}"})
            except httpx.TransportError as err:
                raise TransientError(f"onedrive {self.name}: network error ({type(err).__name__})") from err
            if resp.status_code == 401 and attempt == 1:
                self.tokens.invalidate()  # expired or revoked access token: refresh once
                continue
            self._raise_for(resp)
            return resp
        raise AuthError(f"onedrive connection {self.name!r}: Graph refuses fresh tokens; reconnect "
                        f"with `renamerd connect onedrive --connection {self.name}`")

    def _raise_for(self, resp: httpx.Response) -> None:
        status = resp.status_code
        if status < 400:
            return
        code, message = _graph_error(resp)
        what = f"onedrive {self.name}: {status} {code}: {message}"
        if status in (429, 503, 509) or status >= 500 or status == 423:
            raise TransientError(what, retry_after=_retry_after(resp))
        if status == 404:
            raise NotFound(what)
        if status == 409:
            raise Conflict(what)
        if status == 410:
            raise _Resync(what)
        if status == 401:
            raise AuthError(f"onedrive connection {self.name!r}: {code}; reconnect with "
                            f"`renamerd connect onedrive --connection {self.name}`")
        raise ConnectorError(what)

    # ------------------------------------------------------------------ metadata

    def _item_url(self, item_id: str) -> str:
        return f"{self._drive_url}/items/{quote(item_id, safe='')}"

    def _path_url(self, path: str) -> str:
        clean = "/".join(p for p in path.split("/") if p)
        return f"{self._drive_url}/root" if not clean else \
            f"{self._drive_url}/root:/{quote(clean, safe='/')}:"

    def _get(self, url: str) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = self._request("GET", url).json()
            return data
        except NotFound:
            return None

    def _drive_info(self) -> dict[str, Any]:
        if self._drive is None:
            info = self._get(self._drive_url)
            if info is None:
                raise NotFound(f"onedrive {self.name}: the drive does not exist")
            self._drive = {"id": info.get("id", ""), "driveType": info.get("driveType", "personal")}
        return self._drive

    def _remember(self, item: dict[str, Any], path: str) -> None:
        """Cache a folder's path, keyed by id, with the parent id and name it was derived from."""
        folder_id = str(item["id"])
        parent_id = str((item.get("parentReference") or {}).get("id", ""))
        self._folders[folder_id] = (path, parent_id, str(item.get("name", "")))
        self._folders.move_to_end(folder_id)
        while len(self._folders) > 4096:
            self._folders.popitem(last=False)

    def _seen_folder(self, item: dict[str, Any]) -> None:
        """A folder came by in the delta feed: keep the path cache true.

        Unchanged name and parent: nothing to do. Moved or renamed: every cached path below it
        may be stale, so the cache is dropped (it refills with one GET per folder in use).
        """
        folder_id = str(item.get("id", ""))
        parent_id = str((item.get("parentReference") or {}).get("id", ""))
        name = str(item.get("name", ""))
        cached = self._folders.get(folder_id)
        if cached is not None and cached[1:] == (parent_id, name):
            return
        if cached is not None:
            self._folders.clear()
        parent = self._folders.get(parent_id)
        if parent is not None:
            self._remember(item, join_path(parent[0], name))

    def _folder_path(self, folder_id: str) -> str | None:
        """Path of a folder by id (cached), or None if it is gone."""
        if folder_id in self._folders:
            self._folders.move_to_end(folder_id)
            return self._folders[folder_id][0]
        item = self._get(self._item_url(folder_id))
        if item is None or "deleted" in item:
            return None
        path = _item_path(item)
        self._remember(item, path)
        return path

    def _to_file(self, item: dict[str, Any], path: str | None = None) -> RemoteFile:
        parent = item.get("parentReference") or {}
        name = str(item.get("name", ""))
        if path is None:
            path = _item_path(item)
        return RemoteFile(id=str(item["id"]), path=path, name=name, size=int(item.get("size") or 0),
                          revision=_revision(item), modified=_when(item.get("lastModifiedDateTime")),
                          parent_id=parent.get("id"))

    def stat(self, file_id: str) -> RemoteFile | None:
        """The file's metadata, or None if it is gone or is a folder. Read-only."""
        item = self._get(self._item_url(file_id))
        if item is None or "file" not in item or "deleted" in item:
            return None
        return self._to_file(item)

    def stat_path(self, path: str) -> RemoteFile | None:
        """The item at `path` (case-insensitive), or None. A folder there is reported too (as a
        RemoteFile with revision "folder"), since it holds the name as much as a file does."""
        if path.strip("/") == "":
            return None
        item = self._get(self._path_url(path))
        if item is None or "deleted" in item:
            return None
        if "file" not in item:
            parent_id = (item.get("parentReference") or {}).get("id")
            return RemoteFile(id=str(item["id"]), path=_item_path(item), name=str(item["name"]),
                              size=0, revision="folder", parent_id=parent_id)
        return self._to_file(item)

    # ------------------------------------------------------------------ changes

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """New or changed files under `watch` since `cursor`. See `Connector.changes`.

        One delta call per page (an idle poll is one call once the drive and folder ids are
        known); a 410 Gone restarts the enumeration and sets `reset`. Read-only; repeatable.
        """
        drive = self._drive_info()
        watch_id, watch_path = self._watch(watch)
        business = drive["driveType"] != "personal"
        scope_url = f"{self._drive_url}/root/delta" if business else f"{self._item_url(watch_id)}/delta"
        state = _parse_cursor(cursor)
        reset = False
        url = scope_url
        if state is not None and state.get("drive") == drive["id"] and state.get("watch") == watch_id \
                and _origin(str(state.get("link", ""))) == self._graph_origin:
            url = str(state["link"])
        elif cursor is not None:
            reset = True  # unreadable cursor, another drive, or the watch folder was replaced
        found: dict[str, RemoteFile] = {}
        restarted = False
        while True:
            try:
                page = self._request("GET", url).json()
            except _Resync:
                if restarted:
                    raise TransientError(f"onedrive {self.name}: delta keeps asking for a resync") from None
                restarted, reset, url = True, True, scope_url
                found.clear()
                continue
            except NotFound:
                self._watch_ids.pop(watch.casefold(), None)
                raise
            for item in page.get("value", []):
                self._take(item, found, watch_id=watch_id, watch_path=watch_path, recursive=recursive)
            next_link = page.get("@odata.nextLink")
            if next_link:
                url = str(next_link)
                continue
            delta_link = str(page.get("@odata.deltaLink", ""))
            break
        new_cursor = json.dumps({"v": CURSOR_VERSION, "drive": drive["id"], "watch": watch_id,
                                 "link": delta_link}, separators=(",", ":"))
        return Changes(files=list(found.values()), cursor=new_cursor, reset=reset)

    def _watch(self, watch: str) -> tuple[str, str]:
        """(id, path) of the watched folder; cached while the folder cache vouches for it."""
        key = watch.casefold()
        cached_id = self._watch_ids.get(key)
        if cached_id is not None and cached_id in self._folders:
            return cached_id, self._folders[cached_id][0]
        item = self._get(self._path_url(watch))
        if item is None or "folder" not in item and "root" not in item:
            raise NotFound(f"onedrive {self.name}: watch folder {watch!r} does not exist")
        path = _item_path(item)
        self._remember(item, path)
        self._watch_ids[key] = str(item["id"])
        return str(item["id"]), path

    def _take(self, item: dict[str, Any], found: dict[str, RemoteFile], *, watch_id: str,
              watch_path: str, recursive: bool) -> None:
        item_id = str(item.get("id", ""))
        if "deleted" in item:
            found.pop(item_id, None)
            self._folders.pop(item_id, None)
            return
        parent_id = str((item.get("parentReference") or {}).get("id", ""))
        if "file" not in item:  # folder, root, package (OneNote notebook): no documents
            if "folder" in item and "root" not in item and item_id != watch_id:
                self._seen_folder(item)
            return
        if parent_id == watch_id:
            parent_path = watch_path
        elif not recursive:
            return
        else:
            found_path = self._folder_path(parent_id) if parent_id else None
            if found_path is None or not _under(found_path, watch_path):
                return
            parent_path = found_path
        found.pop(item_id, None)  # the last occurrence wins, keep feed order
        found[item_id] = self._to_file(item, join_path(parent_path, str(item.get("name"))))

    # ------------------------------------------------------------------ content

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the file's bytes to `dest`; returns the count. Follows the 302 of /content to the
        pre-authenticated URL without an Authorization header. NotFound, TooLarge; repeatable
        (the caller truncates `dest` first)."""
        def attempt() -> int:
            resp = self._once("GET", f"{self._item_url(file_id)}/content", None, None)
            location = resp.headers.get("location")
            if resp.status_code == 200:  # served directly (some proxies do): already in memory
                dest.seek(0)
                dest.truncate()
                return iter_chunks([resp.content], dest, max_bytes)
            if resp.status_code not in (301, 302, 303, 307, 308) or not location:
                raise ConnectorError(f"onedrive {self.name}: /content answered {resp.status_code} "
                                     f"without a redirect")
            if self._plain is None:
                self._plain = httpx.Client(verify=self._verify, timeout=self._timeout,
                                           follow_redirects=True)
            dest.seek(0)
            dest.truncate()
            try:
                with self._plain.stream("GET", location) as stream:
                    if stream.status_code in (401, 403, 410):
                        raise TransientError(f"onedrive {self.name}: download URL expired")
                    if stream.status_code == 404:
                        raise NotFound(f"onedrive {self.name}: file {file_id} is gone")
                    if stream.status_code >= 400:
                        stream.read()
                        self._raise_for(stream)
                    return iter_chunks(stream.iter_bytes(65536), dest, max_bytes)
            except httpx.TransportError as err:
                raise TransientError(f"onedrive {self.name}: download interrupted "
                                     f"({type(err).__name__})") from err
        return self.pacer.call(attempt, f"onedrive {self.name} download")

    # ------------------------------------------------------------------ writes

    def ensure_folder(self, path: str) -> str:
        """Create `path` and missing parents; return the folder id. Idempotent (a 409 from a
        concurrent creation is resolved by looking the folder up). Conflict if a file is there."""
        parts = [p for p in path.split("/") if p]
        item = self._get(self._path_url(path))
        if item is not None:
            if "file" in item:
                raise Conflict(f"onedrive {self.name}: {path!r} is a file, not a folder")
            return str(item["id"])
        if not parts:
            raise NotFound(f"onedrive {self.name}: the drive root is missing")
        parent_id = self.ensure_folder("/" + "/".join(parts[:-1]))
        body = {"name": parts[-1], "folder": {}, "@microsoft.graph.conflictBehavior": "fail"}
        try:
            created = self._request("POST", f"{self._item_url(parent_id)}/children", json_body=body,
                                    params={"@microsoft.graph.conflictBehavior": "fail"}).json()
            return str(created["id"])
        except Conflict:
            again = self._get(self._path_url(path))
            if again is None or "file" in again:
                raise Conflict(f"onedrive {self.name}: {path!r} is taken by a file") from None
            return str(again["id"])

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """Move the file into `folder_id` as `name` with one PATCH (conflictBehavior=fail).

        Conflict if the name is taken there (case-insensitively), NotFound if the file or folder
        is gone, ConnectorError for a name OneDrive refuses. Repeating a finished move is a
        no-op PATCH that returns the file unchanged.
        """
        problem = name_problem(name)
        if problem:
            raise ConnectorError(f"onedrive {self.name}: cannot name a file {name!r} ({problem})")
        body = {"name": name, "parentReference": {"id": folder_id},
                "@microsoft.graph.conflictBehavior": "fail"}
        item = self._request("PATCH", self._item_url(file_id), json_body=body,
                             params={"@microsoft.graph.conflictBehavior": "fail"}).json()
        return self._to_file(item)

    def close(self) -> None:
        """Close HTTP sessions. Safe to call twice."""
        for client in (self._http, self._plain):
            if client is not None:
                client.close()
        self.tokens.close()
        self._http = self._plain = None

    # ------------------------------------------------------------------ connecting

    @property
    def on_token_rotated(self) -> Callable[[str], None] | None:
        """Called with the new refresh token whenever Microsoft rotates it (on every refresh);
        the daemon may store it (encrypted) so that a restart months later still signs in."""
        return self.tokens.on_rotated

    @on_token_rotated.setter
    def on_token_rotated(self, sink: Callable[[str], None] | None) -> None:
        self.tokens.on_rotated = sink

    @classmethod
    def connect_flow(cls, options: dict[str, Any], *, echo: Callable[[str], None],
                     prompt: Callable[[str], str]) -> str:
        """Device-code sign-in for a person at a terminal; returns the refresh token.

        Prints the verification URL and the code, then waits (polling Microsoft) until the person
        has signed in; `prompt` is not needed. Raises AuthError if sign-in is refused or the code
        expires.
        """
        return device_code_flow(options, echo=echo)


# ---------------------------------------------------------------------- helpers


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _graph_error(resp: httpx.Response) -> tuple[str, str]:
    try:
        err = resp.json().get("error", {})
    except (ValueError, AttributeError):
        return "unknown", resp.reason_phrase
    if isinstance(err, dict):
        return str(err.get("code", "unknown")), str(err.get("message", ""))[:200]
    return str(err), ""


def _retry_after(resp: httpx.Response) -> float | None:
    value = resp.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _item_path(item: dict[str, Any]) -> str:
    """Provider path of an item from a non-delta response (parentReference.path is encoded)."""
    if "root" in item:
        return "/"
    ref = (item.get("parentReference") or {}).get("path")
    if ref is None:
        raise ConnectorError("onedrive: item without a parent path")
    parent = unquote(str(ref).split("root:", 1)[1]) if "root:" in str(ref) else ""
    return join_path(parent or "/", str(item.get("name", "")))


def _revision(item: dict[str, Any]) -> str:
    """Content identity that survives moves: a content hash; without one (rare), the size and the
    file's own modification time. Not the cTag: business drives leave it out of delta items, so
    a revision from it would differ between `changes` and `stat`."""
    hashes = (item.get("file") or {}).get("hashes") or {}
    for key, tag in (("quickXorHash", "qxh"), ("sha256Hash", "sha256"), ("sha1Hash", "sha1")):
        if hashes.get(key):
            return f"{tag}:{hashes[key]}"
    fs = item.get("fileSystemInfo") or {}
    return f"fs:{item.get('size', 0)}:{fs.get('lastModifiedDateTime', '')}"


def _when(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _under(path: str, folder: str) -> bool:
    p, f = path.casefold(), folder.casefold().rstrip("/")
    return p == f or p.startswith(f + "/") or f == ""


def _parse_cursor(cursor: str | None) -> dict[str, Any] | None:
    if not cursor:
        return None
    try:
        state = json.loads(cursor)
    except ValueError:
        return None
    if not isinstance(state, dict) or state.get("v") != CURSOR_VERSION:
        return None
    return state
