"""The Google Drive connector: the protocol over `DriveFolders` (paths) and `feed` (changes).

Moves are one `files.update` (addParents/removeParents and the new name). Drive accepts
duplicate names, so `move` checks the destination before and after, and steps back when a file
arrived there meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

from renamerd.connectors import Changes, Conflict, ConnectorError, NotFound, RemoteFile

from . import connect, feed
from .api import DriveApi
from .folders import FILE_FIELDS, FOLDER, DriveFolders, split_path
from .options import GDriveOptions


class GDriveConnector(DriveFolders):
    """Google Drive (My Drive or one shared drive) through the Drive v3 API.

    Paths are relative to My Drive's root, or to the shared drive's root when `drive_id` is set.
    Drive allows several items with one name in a folder; path lookups take the oldest, and
    `move` refuses a name that is already taken. Names are case-sensitive on Drive.
    """

    provider = "gdrive"
    case_insensitive = False

    def __init__(self, options: Mapping[str, Any], *, name: str, state_dir: str) -> None:
        opts = GDriveOptions.parse(options, connection=name)
        super().__init__(opts, DriveApi(opts, name), name=name)
        self.state_dir = state_dir

    @classmethod
    def connect_flow(
        cls, options: dict[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
    ) -> str:
        """Google's loopback-redirect consent flow; returns the refresh token (see connect.py)."""
        return connect.connect_flow(options, echo=echo, prompt=prompt)

    # ------------------------------------------------------------------ the protocol

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """New or changed files under `watch` since the page token `cursor` (see Connector).

        No cursor: one `changes.getStartPageToken`, then a listing of `watch` (one `files.list`
        per 1,000 items per folder). With a cursor: `changes.list` pages (1,000 changes each)
        until `newStartPageToken`; parents outside the folder cache cost one `files.get` each,
        once. A refused page token falls back to a listing with `reset=True`. Read-only.
        """
        return feed.changes(self, watch, cursor, recursive=recursive)

    def stat(self, file_id: str) -> RemoteFile | None:
        """The file's metadata, or None if it is gone, trashed or not a file. Read-only."""
        try:
            meta = self.metadata(file_id)
        except NotFound:
            return None
        if meta.get("mimeType") == FOLDER or meta.get("trashed"):
            return None
        return self.remote(meta)

    def stat_path(self, path: str) -> RemoteFile | None:
        """The oldest file called exactly so at `path` (names are case-sensitive), or None."""
        parts = split_path(path)
        if not parts:
            return None
        folder_path = "/" + "/".join(parts[:-1])
        folder_id = self.resolve(folder_path, create=False)
        if folder_id is None:
            return None
        found = self.named(folder_id, parts[-1], folders=False)
        return self.remote(found[0], folder_path) if found else None

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the content (`alt=media`, ranged chunks) to `dest`; NotFound, TooLarge. Repeatable."""
        return self.api.download(file_id, dest, max_bytes)

    def ensure_folder(self, path: str) -> str:
        """Find or create each folder on `path` (the oldest among duplicates). Idempotent."""
        folder_id = self.resolve(path, create=True)
        assert folder_id is not None
        return folder_id

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """`files.update` with addParents/removeParents and the new name; never overwrites.

        Drive accepts duplicate names, so the destination is checked before the move (Conflict)
        and after it: a file that arrived there meanwhile makes this move step back and raise
        Conflict. Repeating a finished move returns the file unchanged. NotFound if the file or
        the folder is gone.
        """
        if not name or "/" in name or name in (".", ".."):
            raise ConnectorError(f"gdrive {self.name}: {name!r} cannot be a file name in a path")
        meta = self.metadata(file_id, "files.get move")
        if meta.get("trashed"):
            raise NotFound(f"gdrive {self.name}: file {file_id} is in the trash")
        parents = list(meta.get("parents") or [])
        if parents == [folder_id] and meta.get("name") == name:
            return self.remote(meta)
        if any(f["id"] != file_id for f in self.named(folder_id, name, folders=False)):
            raise Conflict(f"gdrive {self.name}: {name!r} is taken in the destination folder")
        updated = self._update(file_id, name, add=folder_id, remove=[p for p in parents if p != folder_id])
        if any(f["id"] != file_id for f in self.named(folder_id, name, folders=False)):
            old_parent = parents[0] if parents else None
            self._update(file_id, str(meta["name"]), add=old_parent if old_parent != folder_id else None,
                         remove=[folder_id] if old_parent and old_parent != folder_id else [])
            raise Conflict(f"gdrive {self.name}: {name!r} was taken in the destination meanwhile")
        return self.remote(updated)

    def _update(self, file_id: str, name: str, *, add: str | None, remove: list[str]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"fileId": file_id, "body": {"name": name}, "fields": FILE_FIELDS,
                                  "supportsAllDrives": True}
        if add:
            kwargs["addParents"] = add
        if remove:
            kwargs["removeParents"] = ",".join(remove)
        try:
            got: dict[str, Any] = self.api.run(lambda s: s.files().update(**kwargs), "files.update")
        except NotFound:
            if add:
                self.tree().forget(add)
            raise
        return got

    def close(self) -> None:
        """Release the HTTP connections. Safe to call twice."""
        self.api.close()
