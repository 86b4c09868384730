"""The Dropbox connector: the protocol's methods over `DropboxApi` and `DropboxFeed`.

Identity: ids are Dropbox's "id:..." (they survive moves); `revision` is `content_hash`, which
also survives moves and renames (`rev` does not). Dropbox is case-insensitive: lookups go by
`path_lower`, names come from `path_display`. Moves use `files/move_v2` with autorename off, so
a taken name (in any case) gives `Conflict`, never an overwrite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO

from dropbox import files as dbx_files

from renamerd.connectors import (
    Changes,
    Conflict,
    ConnectorError,
    NotFound,
    Pacer,
    RemoteFile,
    TooLarge,
    iter_chunks,
    join_path,
)

from . import auth
from .api import ROOT_ID, DropboxApi, api_path, remote_file
from .feed import DropboxFeed
from .options import DropboxOptions

CHUNK = 64 * 1024


class DropboxConnector:
    """One Dropbox account (see the package docstring for options, feed and error mapping)."""

    provider = "dropbox"
    case_insensitive = True

    def __init__(
        self, options: dict[str, Any], *, name: str, state_dir: str = "", pacer: Pacer | None = None
    ) -> None:
        opts = DropboxOptions.parse(dict(options), need_token=True)
        self.name = name
        self.state_dir = state_dir
        self.api = DropboxApi(opts, name=name, pacer=pacer or Pacer())
        self.feed = DropboxFeed(self.api)

    @property
    def pacer(self) -> Pacer:
        """The connection's pacing and retries (assignable, e.g. for tighter retries in tests)."""
        return self.api.pacer

    @pacer.setter
    def pacer(self, pacer: Pacer) -> None:
        self.api.pacer = pacer

    # ---- changes (feed.py)

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """See `Connector.changes`. Read-only; safe to repeat with the same cursor.

        Cost: one `continue` call per 2,000 changed entries, one call for an idle poll.
        Raises NotFound if `watch` is not a folder, AuthError, TransientError.
        """
        return self.feed.changes(watch, cursor, recursive=recursive)

    def latest_cursor(self, watch: str, *, recursive: bool = True) -> str:
        """A cursor for "from now on" without listing what is there (optional capability).

        One API call; read-only. Raises NotFound if `watch` is not a folder.
        """
        return self.feed.latest_cursor(watch, recursive=recursive)

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """Block up to about `timeout_s` until something under the cursor's folder changes.

        Returns True when `changes` has news (or the cursor was reset), False on a quiet
        timeout. Uses `list_folder/longpoll` (no authentication, no API quota; Dropbox holds it
        30..480 s, so a shorter wait ends on the client side). Honours Dropbox's `backoff`.
        Read-only, safe to repeat. Raises TransientError when Dropbox cannot be reached.
        """
        return self.feed.wait_for_changes(cursor, timeout_s)

    # ---- files

    def stat(self, file_id: str) -> RemoteFile | None:
        """See `Connector.stat`: None if gone (or a folder). Read-only."""
        md = self.api.metadata("get_metadata", file_id)
        return remote_file(md) if isinstance(md, dbx_files.FileMetadata) else None

    def stat_path(self, path: str) -> RemoteFile | None:
        """See `Connector.stat_path` (case-insensitive). None if no file is there. Read-only."""
        if not api_path(path):
            return None
        md = self.api.metadata("get_metadata", api_path(path))
        return remote_file(md) if isinstance(md, dbx_files.FileMetadata) else None

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """See `Connector.download`: streams `files/download`, stopping past `max_bytes`.

        Raises NotFound, TooLarge. Safe to repeat; a retried attempt rewinds `dest` first.
        """
        start = dest.tell() if dest.seekable() else None

        def fetch() -> int:
            if start is not None:
                dest.seek(start)
                dest.truncate()
            md, response = self.api.dbx.files_download(file_id)
            try:
                if md.size is not None and md.size > max_bytes:
                    raise TooLarge(f"file is {md.size} bytes, more than {max_bytes}")
                return iter_chunks(response.iter_content(CHUNK), dest, max_bytes)
            finally:
                response.close()

        return self.api.call("download", fetch)

    def list_folders(self, path: str) -> list[str]:
        """See `Connector.list_folders`: `files/list_folder` (and its continuations), folders
        only. Raises NotFound."""
        folder = api_path(path)
        result = self.api.call("list_folder", lambda: self.api.dbx.files_list_folder(
            folder, recursive=False, include_deleted=False))
        names = []
        while True:
            names += [str(e.name) for e in result.entries
                      if isinstance(e, dbx_files.FolderMetadata)]
            if not result.has_more:
                return sorted(names)
            result = self.api.call(
                "list_folder/continue",
                lambda c=result.cursor: self.api.dbx.files_list_folder_continue(c),  # type: ignore[misc]
            )

    def ensure_folder(self, path: str) -> str:
        """See `Connector.ensure_folder`: the folder's "id:..." ("/" for the root). Idempotent.

        Raises Conflict if a file sits where a folder should be.
        """
        folder = api_path(path)
        if not folder:
            return ROOT_ID
        for _attempt in range(3):
            md = self.api.metadata("get_metadata", folder)
            if isinstance(md, dbx_files.FolderMetadata):
                return str(md.id)
            if md is not None:
                raise Conflict(f"ensure_folder: a file is in the way at {path}")
            try:
                created = self.api.call(
                    "create_folder_v2",
                    lambda: self.api.dbx.files_create_folder_v2(folder, autorename=False),
                )
                return str(created.metadata.id)
            except Conflict:
                continue  # created meanwhile (or a file): look again
        raise Conflict(f"ensure_folder: cannot create {path}")

    def _folder_path(self, folder_id: str) -> str:
        if folder_id == ROOT_ID:
            return ""
        if folder_id.startswith("/"):
            return api_path(folder_id)
        md = self.api.metadata("get_metadata", folder_id)
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
            return self.api.dbx.files_move_v2(
                file_id, to_path, autorename=False, allow_ownership_transfer=False
            )

        try:
            result = self.api.call("move_v2", relocate)
        except Conflict:
            there = self.stat_path(to_path)
            if there is not None and there.id == file_id and there.name == name:
                return there  # already moved (an earlier attempt went through)
            raise
        except NotFound as err:
            raise NotFound(f"move: file {file_id} not found ({err})") from None
        return remote_file(result.metadata)

    def close(self) -> None:
        """Close the HTTP session. Safe to call twice."""
        self.api.close()

    # ---- connecting an account (auth.py)

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
        return auth.connect_flow(options, echo=echo, prompt=prompt)
