"""The OneDrive connector: the protocol's methods over `GraphClient` and `DeltaFeed`.

Moves are one PATCH with ``parentReference`` and ``@microsoft.graph.conflictBehavior=fail``, so
a name clash is a 409 (`Conflict`), never an overwrite; names OneDrive refuses are refused before
any call (`names.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO

import httpx

from renamerd.connectors import Changes, Conflict, ConnectorError, NotFound, Pacer, RemoteFile

from .auth import GraphTokens
from .connect import device_code_flow
from .delta import DeltaFeed
from .graph import GraphClient
from .items import folder_as_file, to_file
from .names import name_problem
from .options import OneDriveOptions

FAIL_ON_CONFLICT = {"@microsoft.graph.conflictBehavior": "fail"}


class OneDriveConnector:
    """A OneDrive or SharePoint drive, through Microsoft Graph. See the package docstring."""

    provider = "onedrive"
    case_insensitive = True

    def __init__(self, options: dict[str, Any], *, name: str, state_dir: str) -> None:
        opts = OneDriveOptions.parse(options, name)
        self.name = name
        self.state_dir = state_dir
        self.tokens = GraphTokens(
            name=name, client_id=opts.client_id, client_secret=opts.client_secret,
            refresh_token=opts.refresh_token, authority=opts.authority, verify=opts.verify,
            timeout=opts.timeout, scopes=opts.scopes)
        self.graph = GraphClient(opts, self.tokens, name=name)
        self.feed = DeltaFeed(self.graph)

    @property
    def pacer(self) -> Pacer:
        """The connection's pacing and retries (assignable, e.g. for tighter retries in tests)."""
        return self.graph.pacer

    @pacer.setter
    def pacer(self, pacer: Pacer) -> None:
        self.graph.pacer = pacer

    def _request(self, method: str, url: str, *, json_body: Any = None,
                 params: dict[str, str] | None = None) -> httpx.Response:
        """One Graph call with retries; returns a 2xx/3xx response. Raises ConnectorError kinds."""
        return self.graph.request(method, url, json_body=json_body, params=params)

    # ------------------------------------------------------------------ metadata

    def stat(self, file_id: str) -> RemoteFile | None:
        """The file's metadata, or None if it is gone or is a folder. Read-only."""
        item = self.graph.get(self.graph.item_url(file_id))
        if item is None or "file" not in item or "deleted" in item:
            return None
        return to_file(item)

    def stat_path(self, path: str) -> RemoteFile | None:
        """The item at `path` (case-insensitive), or None. A folder there is reported too (as a
        RemoteFile with revision "folder"), since it holds the name as much as a file does."""
        if path.strip("/") == "":
            return None
        item = self.graph.get(self.graph.path_url(path))
        if item is None or "deleted" in item:
            return None
        if "file" not in item:
            return folder_as_file(item)
        return to_file(item)

    # ------------------------------------------------------------------ changes

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """New or changed files under `watch` since `cursor`. See `Connector.changes`.

        One delta call per page (an idle poll is one call once the drive and folder ids are
        known); a 410 Gone restarts the enumeration and sets `reset`. Read-only; repeatable.
        """
        return self.feed.changes(watch, cursor, recursive=recursive)

    # ------------------------------------------------------------------ content

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the file's bytes to `dest`; returns the count. Follows the 302 of /content to the
        pre-authenticated URL without an Authorization header. NotFound, TooLarge; repeatable
        (the caller truncates `dest` first)."""
        return self.graph.download(file_id, dest, max_bytes)

    # ------------------------------------------------------------------ writes

    def list_folders(self, path: str) -> list[str]:
        """See `Connector.list_folders`: the folder's `/children`, paged (`@odata.nextLink`),
        folders only. Raises NotFound."""
        item = self.graph.get(self.graph.path_url(path))
        if item is None or "folder" not in item:
            raise NotFound(f"onedrive {self.name}: no folder {path!r}")
        url: str | None = f"{self.graph.item_url(str(item['id']))}/children"
        names: list[str] = []
        while url:
            page = self._request("GET", url).json()
            names += [str(c["name"]) for c in page.get("value", []) if "folder" in c]
            url = page.get("@odata.nextLink")
        return sorted(names)

    def ensure_folder(self, path: str) -> str:
        """Create `path` and missing parents; return the folder id. Idempotent (a 409 from a
        concurrent creation is resolved by looking the folder up). Conflict if a file is there."""
        parts = [p for p in path.split("/") if p]
        item = self.graph.get(self.graph.path_url(path))
        if item is not None:
            if "file" in item:
                raise Conflict(f"onedrive {self.name}: {path!r} is a file, not a folder")
            return str(item["id"])
        if not parts:
            raise NotFound(f"onedrive {self.name}: the drive root is missing")
        parent_id = self.ensure_folder("/" + "/".join(parts[:-1]))
        body = {"name": parts[-1], "folder": {}, **FAIL_ON_CONFLICT}
        try:
            created = self._request("POST", f"{self.graph.item_url(parent_id)}/children",
                                    json_body=body, params=FAIL_ON_CONFLICT).json()
            return str(created["id"])
        except Conflict:
            again = self.graph.get(self.graph.path_url(path))
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
        body = {"name": name, "parentReference": {"id": folder_id}, **FAIL_ON_CONFLICT}
        item = self._request("PATCH", self.graph.item_url(file_id), json_body=body,
                             params=FAIL_ON_CONFLICT).json()
        return to_file(item)

    def close(self) -> None:
        """Close HTTP sessions. Safe to call twice."""
        self.graph.close()

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
