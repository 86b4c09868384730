"""Drive's change feed: `changes.list` from a page token, or a listing when there is none.

No cursor (or one Drive refuses): `changes.getStartPageToken` first, then a listing of the
watched folder, one `files.list` per 1,000 items per folder; the start token is the new cursor.
With a cursor: `changes.list` pages of 1,000 changes until `newStartPageToken`, which is the next
cursor. The feed covers the whole drive, so changes are filtered to the watched folder; folder
renames, moves and deletions in it keep the folder cache true. Trashed and removed files drop
out; Docs Editors files and shortcuts (no binary content) are never reported.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from renamerd.connectors import Changes, NotFound, RemoteFile, join_path

from .api import InvalidCursor
from .folders import FILE_FIELDS, FOLDER, PAGE, DriveFolders, is_document, request, split_path
from .tree import FolderTree

log = logging.getLogger(__name__)

CHANGE_FIELDS = f"nextPageToken,newStartPageToken,changes(fileId,removed,file({FILE_FIELDS}))"


def changes(drive: DriveFolders, watch: str, cursor: str | None, *, recursive: bool) -> Changes:
    """See `GDriveConnector.changes`."""
    watch_id = drive.resolve(watch, create=False)
    if watch_id is None:
        raise NotFound(f"gdrive {drive.name}: no folder {watch}")
    if cursor is not None:
        try:
            return follow(drive, watch_id, cursor, recursive)
        except InvalidCursor:
            log.warning("gdrive %s: page token refused, listing %s again", drive.name, watch)
    start = start_token(drive)
    files = list(listing(drive, watch_id, watch, recursive))
    return Changes(files, start, reset=cursor is not None)


def start_token(drive: DriveFolders) -> str:
    """The page token for "from now on" (one call)."""
    kwargs = {"supportsAllDrives": True}
    if drive.opts.drive_id:
        kwargs["driveId"] = drive.opts.drive_id  # type: ignore[assignment]
    start = drive.api.run(lambda s: s.changes().getStartPageToken(**kwargs), "changes.getStartPageToken")
    return str(start["startPageToken"])


def listing(drive: DriveFolders, watch_id: str, watch: str, recursive: bool) -> Iterator[RemoteFile]:
    """Every document in the watched folder (and below it if `recursive`); learns the folders."""
    tree = drive.tree()
    pending = [(watch_id, "/" + "/".join(split_path(watch)))]
    while pending:
        folder_id, folder_path = pending.pop()
        for meta in drive.children(folder_id):
            if meta.get("mimeType") == FOLDER:
                tree.learn(str(meta["id"]), str(meta["name"]), folder_id)
                if recursive:
                    pending.append((str(meta["id"]), join_path(folder_path, str(meta["name"]))))
            elif is_document(meta):
                yield drive.remote(meta, folder_path)


def follow(drive: DriveFolders, watch_id: str, cursor: str, recursive: bool) -> Changes:
    """The documents changed under the watched folder since page token `cursor`.

    Raises InvalidCursor when Drive refuses the token.
    """
    tree = drive.tree()
    found: dict[str, RemoteFile] = {}
    token = cursor
    # My Drive: shared drives' changes cannot concern a watched folder there, leave them out
    kwargs: dict[str, Any] = {"pageSize": PAGE, "fields": CHANGE_FIELDS, "supportsAllDrives": True,
                              "includeItemsFromAllDrives": bool(drive.opts.drive_id)}
    if drive.opts.drive_id:
        kwargs["driveId"] = drive.opts.drive_id
    while True:
        resp = drive.api.run(request("changes", "list", {"pageToken": token, **kwargs}), "changes.list")
        batch = resp.get("changes", [])
        _learn_folders(tree, batch, found)  # folders first: a file may come before its new folder
        for change in batch:
            meta = change.get("file") or {}
            if change.get("removed") or not meta or not is_document(meta):
                continue
            parent = (meta.get("parents") or [None])[0]
            if parent is None or not drive.below(parent, watch_id, recursive):
                found.pop(str(meta["id"]), None)
                continue
            found[str(meta["id"])] = drive.remote(meta, drive.folder_path(parent))
        if "newStartPageToken" in resp:
            return Changes(list(found.values()), str(resp["newStartPageToken"]))
        token = str(resp["nextPageToken"])


def _learn_folders(tree: FolderTree, batch: list[dict[str, Any]], found: dict[str, RemoteFile]) -> None:
    """Apply a page's folder changes to the cache; drop removed or trashed items from `found`."""
    for change in batch:
        meta = change.get("file") or {}
        if change.get("removed") or meta.get("trashed"):
            tree.forget(str(change.get("fileId")))
            found.pop(str(change.get("fileId")), None)
        elif meta.get("mimeType") == FOLDER:
            tree.learn(str(meta["id"]), str(meta["name"]), (meta.get("parents") or [None])[0])
