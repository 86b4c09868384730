"""The Google Drive connector: Drive v3 changes feed, folder cache, move by parents + rename."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any, BinaryIO

from renamerd.connectors import Changes, Conflict, ConnectorError, NotFound, RemoteFile, join_path

from . import auth
from .api import DriveApi, InvalidCursor
from .tree import FolderTree

log = logging.getLogger(__name__)

FOLDER = "application/vnd.google-apps.folder"
GOOGLE_APPS = "application/vnd.google-apps."
FILE_FIELDS = "id,name,mimeType,parents,size,md5Checksum,headRevisionId,version,modifiedTime,trashed"
CHANGE_FIELDS = f"nextPageToken,newStartPageToken,changes(fileId,removed,file({FILE_FIELDS}))"
PAGE = 1000


def _call(resource: str, method: str, kwargs: dict[str, Any]) -> Callable[[Any], Any]:
    """A request factory for `DriveApi.run`: service.<resource>().<method>(**kwargs)."""

    def make(service: Any) -> Any:
        return getattr(getattr(service, resource)(), method)(**kwargs)

    return make


def quote(value: str) -> str:
    """A string literal for Drive's `q` language."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def split_path(path: str) -> list[str]:
    return [part for part in path.strip("/").split("/") if part]


class GDriveConnector:
    """Google Drive (My Drive or one shared drive) through the Drive v3 API.

    Paths are relative to My Drive's root, or to the shared drive's root when `drive_id` is set.
    Drive allows several items with one name in a folder; path lookups take the oldest, and
    `move` refuses a name that is already taken. Names are case-sensitive on Drive.
    """

    provider = "gdrive"
    case_insensitive = False

    def __init__(self, options: Mapping[str, Any], *, name: str, state_dir: str) -> None:
        self.name = name
        self.state_dir = state_dir
        self.opts = auth.GDriveOptions.parse(options, connection=name)
        self.api = DriveApi(self.opts, name)
        self._tree: FolderTree | None = None

    @classmethod
    def connect_flow(
        cls, options: dict[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
    ) -> str:
        """Google's loopback-redirect consent flow; returns the refresh token (see auth.connect_flow)."""
        return auth.connect_flow(options, echo=echo, prompt=prompt)

    # ------------------------------------------------------------------ helpers

    def _scope(self) -> dict[str, Any]:
        if self.opts.drive_id:
            return {"corpora": "drive", "driveId": self.opts.drive_id,
                    "includeItemsFromAllDrives": True, "supportsAllDrives": True}
        return {"includeItemsFromAllDrives": True, "supportsAllDrives": True}

    def tree(self) -> FolderTree:
        """The folder cache, rooted at the drive's root id (one API call the first time)."""
        if self._tree is None:
            root = self.opts.drive_id
            if root is None:
                got = self.api.run(lambda s: s.files().get(fileId="root", fields="id"), "files.get root")
                root = str(got["id"])
            self._tree = FolderTree(root)
        return self._tree

    def _list(self, q: str, *, fields: str = FILE_FIELDS, order_by: str | None = None,
              page_size: int = PAGE) -> Iterator[dict[str, Any]]:
        """Every item matching `q`, page by page (one API call per page)."""
        token: str | None = None
        while True:
            kwargs: dict[str, Any] = {"q": q, "pageSize": page_size,
                                      "fields": f"nextPageToken,files({fields})", **self._scope()}
            if order_by:
                kwargs["orderBy"] = order_by
            if token:
                kwargs["pageToken"] = token
            resp = self.api.run(_call("files", "list", dict(kwargs)), "files.list")
            yield from resp.get("files", [])
            token = resp.get("nextPageToken")
            if not token:
                return

    def _named(self, parent_id: str, name: str, *, folders: bool) -> list[dict[str, Any]]:
        """Items called exactly `name` in `parent_id`, oldest first (files or folders only)."""
        kind = "=" if folders else "!="
        q = (f"{quote(parent_id)} in parents and name = {quote(name)} and trashed = false "
             f"and mimeType {kind} {quote(FOLDER)}")
        found = self._list(q, fields=FILE_FIELDS + ",createdTime", order_by="createdTime", page_size=100)
        return [f for f in found if f.get("name") == name]

    def _get(self, item_id: str, what: str = "files.get") -> dict[str, Any]:
        got: dict[str, Any] = self.api.run(
            lambda s: s.files().get(fileId=item_id, fields=FILE_FIELDS, supportsAllDrives=True), what
        )
        return got

    def _folder_path(self, folder_id: str) -> str:
        """The folder's path, fetching unknown ancestors (once each; they are cached)."""
        tree = self.tree()
        while (missing := tree.unknown_ancestor(folder_id)) is not None:
            self._learn_remote(missing)
        return tree.path_of(folder_id)

    def _learn_remote(self, folder_id: str) -> None:
        try:
            meta = self._get(folder_id, "files.get parent")
        except NotFound:
            self.tree().learn(folder_id, folder_id, None)  # invisible to us: treat as a top
            return
        parents = meta.get("parents") or [None]
        self.tree().learn(folder_id, str(meta.get("name", "")), parents[0])

    def _resolve(self, path: str, *, create: bool) -> str | None:
        """Id of the folder at `path` (oldest among duplicates), creating it if asked."""
        tree = self.tree()
        cur = tree.root_id
        for part in split_path(path):
            known = tree.chosen(cur, part)
            if known is None:
                found = self._named(cur, part, folders=True)
                if found:
                    known = str(found[0]["id"])
                elif create:
                    known = self._create_folder(cur, part)
                else:
                    return None
                tree.learn(known, part, cur)
                tree.choose(cur, part, known)
            cur = known
        return cur

    def _create_folder(self, parent_id: str, name: str) -> str:
        body = {"name": name, "mimeType": FOLDER, "parents": [parent_id]}
        made = self.api.run(
            lambda s: s.files().create(body=body, fields="id", supportsAllDrives=True), "files.create"
        )
        made_id = str(made["id"])
        # someone (or a retried create) may have made the same folder: keep the oldest
        same = self._named(parent_id, name, folders=True)
        if same and str(same[0]["id"]) != made_id:
            log.info("gdrive %s: folder %r created twice, keeping the oldest", self.name, name)
            try:  # best effort: an empty duplicate left behind is harmless, lookups take the oldest
                self.api.run(lambda s: s.files().delete(fileId=made_id, supportsAllDrives=True),
                             "files.delete")
            except ConnectorError as err:
                log.info("gdrive %s: could not remove the duplicate folder %r (%s)", self.name, name, err)
            return str(same[0]["id"])
        return made_id

    def _remote(self, meta: Mapping[str, Any], folder_path: str | None = None) -> RemoteFile:
        parent = (meta.get("parents") or [None])[0]
        if folder_path is None:
            folder_path = self._folder_path(parent) if parent else "/"
        modified = meta.get("modifiedTime")
        return RemoteFile(
            id=str(meta["id"]), path=join_path(folder_path, str(meta["name"])), name=str(meta["name"]),
            size=int(meta.get("size", 0)),
            revision=str(meta.get("md5Checksum") or meta.get("headRevisionId") or f"v{meta.get('version')}"),
            modified=datetime.fromisoformat(modified.replace("Z", "+00:00")) if modified else None,
            parent_id=parent,
        )

    @staticmethod
    def _is_document(meta: Mapping[str, Any]) -> bool:
        """Files with binary content only: no folders, Docs Editors files or shortcuts."""
        return not meta.get("trashed") and not str(meta.get("mimeType", "")).startswith(GOOGLE_APPS)

    # ------------------------------------------------------------------ the protocol

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """New or changed files under `watch` since the page token `cursor` (see Connector).

        No cursor: one `changes.getStartPageToken`, then a listing of `watch` (one `files.list`
        per 1,000 items per folder). With a cursor: `changes.list` pages (1,000 changes each)
        until `newStartPageToken`; parents outside the folder cache cost one `files.get` each,
        once. A refused page token falls back to a listing with `reset=True`. Read-only.
        """
        watch_id = self._resolve(watch, create=False)
        if watch_id is None:
            raise NotFound(f"gdrive {self.name}: no folder {watch}")
        if cursor is not None:
            try:
                return self._feed(watch_id, watch, cursor, recursive)
            except InvalidCursor:
                log.warning("gdrive %s: page token refused, listing %s again", self.name, watch)
        kwargs = {"supportsAllDrives": True}
        if self.opts.drive_id:
            kwargs["driveId"] = self.opts.drive_id  # type: ignore[assignment]
        start = self.api.run(lambda s: s.changes().getStartPageToken(**kwargs), "changes.getStartPageToken")
        files = list(self._scan(watch_id, watch, recursive))
        return Changes(files, str(start["startPageToken"]), reset=cursor is not None)

    def _scan(self, watch_id: str, watch: str, recursive: bool) -> Iterator[RemoteFile]:
        tree = self.tree()
        pending = [(watch_id, "/" + "/".join(split_path(watch)))]
        while pending:
            folder_id, folder_path = pending.pop()
            for meta in self._list(f"{quote(folder_id)} in parents and trashed = false"):
                if meta.get("mimeType") == FOLDER:
                    tree.learn(str(meta["id"]), str(meta["name"]), folder_id)
                    if recursive:
                        pending.append((str(meta["id"]), join_path(folder_path, str(meta["name"]))))
                elif self._is_document(meta):
                    yield self._remote(meta, folder_path)

    def _feed(self, watch_id: str, watch: str, cursor: str, recursive: bool) -> Changes:
        tree = self.tree()
        found: dict[str, RemoteFile] = {}
        token = cursor
        # My Drive: shared drives' changes cannot concern a watched folder there, leave them out
        kwargs: dict[str, Any] = {"pageSize": PAGE, "fields": CHANGE_FIELDS, "supportsAllDrives": True,
                                  "includeItemsFromAllDrives": bool(self.opts.drive_id)}
        if self.opts.drive_id:
            kwargs["driveId"] = self.opts.drive_id
        while True:
            resp = self.api.run(_call("changes", "list", {"pageToken": token, **kwargs}), "changes.list")
            batch = resp.get("changes", [])
            for change in batch:  # folders first: a file may come before its new folder
                meta = change.get("file") or {}
                if change.get("removed") or meta.get("trashed"):
                    tree.forget(str(change.get("fileId")))
                    found.pop(str(change.get("fileId")), None)
                elif meta.get("mimeType") == FOLDER:
                    tree.learn(str(meta["id"]), str(meta["name"]), (meta.get("parents") or [None])[0])
            for change in batch:
                meta = change.get("file") or {}
                if change.get("removed") or not meta or not self._is_document(meta):
                    continue
                parent = (meta.get("parents") or [None])[0]
                if parent is None or not self._below(parent, watch_id, recursive):
                    found.pop(str(meta["id"]), None)
                    continue
                found[str(meta["id"])] = self._remote(meta, self._folder_path(parent))
            if "newStartPageToken" in resp:
                return Changes(list(found.values()), str(resp["newStartPageToken"]))
            token = str(resp["nextPageToken"])

    def _below(self, parent_id: str, watch_id: str, recursive: bool) -> bool:
        if parent_id == watch_id:
            return True
        if not recursive:
            return False
        tree = self.tree()
        while (missing := tree.unknown_ancestor(parent_id, stop=watch_id)) is not None:
            self._learn_remote(missing)
        return tree.is_under(parent_id, watch_id)

    def stat(self, file_id: str) -> RemoteFile | None:
        """The file's metadata, or None if it is gone, trashed or not a file. Read-only."""
        try:
            meta = self._get(file_id)
        except NotFound:
            return None
        if meta.get("mimeType") == FOLDER or meta.get("trashed"):
            return None
        return self._remote(meta)

    def stat_path(self, path: str) -> RemoteFile | None:
        """The oldest file called exactly so at `path` (names are case-sensitive), or None."""
        parts = split_path(path)
        if not parts:
            return None
        folder_path = "/" + "/".join(parts[:-1])
        folder_id = self._resolve(folder_path, create=False)
        if folder_id is None:
            return None
        found = self._named(folder_id, parts[-1], folders=False)
        return self._remote(found[0], folder_path) if found else None

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the content (`alt=media`, ranged chunks) to `dest`; NotFound, TooLarge. Repeatable."""
        return self.api.download(file_id, dest, max_bytes)

    def ensure_folder(self, path: str) -> str:
        """Find or create each folder on `path` (the oldest among duplicates). Idempotent."""
        folder_id = self._resolve(path, create=True)
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
        meta = self._get(file_id, "files.get move")
        if meta.get("trashed"):
            raise NotFound(f"gdrive {self.name}: file {file_id} is in the trash")
        parents = list(meta.get("parents") or [])
        if parents == [folder_id] and meta.get("name") == name:
            return self._remote(meta)
        if any(f["id"] != file_id for f in self._named(folder_id, name, folders=False)):
            raise Conflict(f"gdrive {self.name}: {name!r} is taken in the destination folder")
        updated = self._update(file_id, name, add=folder_id, remove=[p for p in parents if p != folder_id])
        if any(f["id"] != file_id for f in self._named(folder_id, name, folders=False)):
            old_parent = parents[0] if parents else None
            self._update(file_id, str(meta["name"]), add=old_parent if old_parent != folder_id else None,
                         remove=[folder_id] if old_parent and old_parent != folder_id else [])
            raise Conflict(f"gdrive {self.name}: {name!r} was taken in the destination meanwhile")
        return self._remote(updated)

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
