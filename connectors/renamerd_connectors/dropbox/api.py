"""One Dropbox connection's calls: the SDK client, the Pacer, and the metadata they return.

`DropboxApi.call(what, fn)` runs one SDK call under the connection's Pacer with the errors
mapped (`errors.py`); paths and metadata are translated between Dropbox's forms and the
protocol's here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any, TypeVar

from dropbox import exceptions as dbx_errors
from dropbox import files as dbx_files

from renamerd.connectors import NotFound, Pacer, RemoteFile, TransientError

from .client import open_client
from .errors import SDK_ERRORS, refused, sdk_error, tags
from .options import DropboxOptions

T = TypeVar("T")

#: what `ensure_folder("/")` returns; `move` accepts it (and any "/path") as a folder id
ROOT_ID = "/"


def api_path(path: str) -> str:
    """Provider path to the API's form: "/" is "" (the root), no trailing slash."""
    path = "/" + path.strip("/")
    return "" if path == "/" else path


def remote_file(md: dbx_files.FileMetadata) -> RemoteFile:
    """A FileMetadata as a RemoteFile: the id survives moves, `content_hash` is the revision."""
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


class DropboxApi:
    """The SDK client of one connection, its Pacer, and error mapping around every call."""

    def __init__(self, opts: DropboxOptions, *, name: str, pacer: Pacer) -> None:
        self.name = name
        self.pacer = pacer
        self.dbx = open_client(opts)

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one SDK call under the Pacer, mapping SDK errors to connector errors.

        Transient trouble is retried by the Pacer; route errors become NotFound, Conflict,
        Reset or ConnectorError. An `invalid_access_token` (a revoked access token, or a refused
        refresh) is tried once more after a forced refresh, then becomes AuthError. As safe to
        repeat as `fn`.
        """
        forced_refresh = False
        refresh_first = False

        def attempt() -> T:
            nonlocal forced_refresh, refresh_first
            try:
                if refresh_first:
                    refresh_first = False
                    self.dbx.refresh_access_token()
                return fn()
            except dbx_errors.AuthError as err:
                reason = tags(err.error) or ["other"]
                if reason[0] == "invalid_access_token" and not forced_refresh:
                    # a revoked access token, or a refused refresh: try once more afresh
                    forced_refresh = refresh_first = True
                    raise TransientError(f"{what}: renewing the access token", 0) from None
                if reason[0] == "invalid_access_token":
                    raise refused(self.name, "invalid_grant: access revoked or expired") from None
                raise refused(self.name, "/".join(reason)) from None
            except SDK_ERRORS as err:
                raise sdk_error(what, err, self.name) from None

        return self.pacer.call(attempt, what=f"dropbox {self.name}: {what}")

    def metadata(self, what: str, path_or_id: str) -> Any | None:
        """`files/get_metadata` (file, folder or deleted), or None when nothing is there."""
        try:
            return self.call(what, lambda: self.dbx.files_get_metadata(path_or_id))
        except NotFound:
            return None

    def close(self) -> None:
        """Close the HTTP session. Safe to call twice."""
        self.dbx.close()
