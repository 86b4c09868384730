"""Drive by path: the lookups a connection makes on top of ids and parents.

Drive knows items by id and parents; a folder may hold several items of one name. `DriveFolders`
resolves paths to folder ids (the oldest folder among duplicates), lists folders page by page,
finds items by name, creates folders (keeping the oldest when two were made at once), and turns
Drive metadata into RemoteFiles with their paths, all through the folder cache (`tree.py`) so
that a known path costs no API call. `GDriveConnector` builds the protocol on top of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any

from renamerd.connectors import ConnectorError, NotFound, RemoteFile, join_path

from .api import DriveApi
from .options import GDriveOptions
from .tree import FolderTree

log = logging.getLogger(__name__)

FOLDER = "application/vnd.google-apps.folder"
GOOGLE_APPS = "application/vnd.google-apps."
FILE_FIELDS = "id,name,mimeType,parents,size,md5Checksum,headRevisionId,version,modifiedTime,trashed"
PAGE = 1000


def request(resource: str, method: str, kwargs: dict[str, Any]) -> Callable[[Any], Any]:
    """A request factory for `DriveApi.run`: service.<resource>().<method>(**kwargs)."""

    def make(service: Any) -> Any:
        return getattr(getattr(service, resource)(), method)(**kwargs)

    return make


def quote(value: str) -> str:
    """A string literal for Drive's `q` language."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def split_path(path: str) -> list[str]:
    return [part for part in path.strip("/").split("/") if part]


def is_document(meta: Mapping[str, Any]) -> bool:
    """Files with binary content only: no folders, Docs Editors files or shortcuts."""
    return not meta.get("trashed") and not str(meta.get("mimeType", "")).startswith(GOOGLE_APPS)


class DriveFolders:
    """One connection's path view of Drive (My Drive, or the shared drive `opts.drive_id`)."""

    def __init__(self, opts: GDriveOptions, api: DriveApi, *, name: str) -> None:
        self.name = name
        self.opts = opts
        self.api = api
        self._tree: FolderTree | None = None

    def tree(self) -> FolderTree:
        """The folder cache, rooted at the drive's root id (one API call the first time)."""
        if self._tree is None:
            root = self.opts.drive_id
            if root is None:
                got = self.api.run(lambda s: s.files().get(fileId="root", fields="id"), "files.get root")
                root = str(got["id"])
            self._tree = FolderTree(root)
        return self._tree

    def _scope(self) -> dict[str, Any]:
        if self.opts.drive_id:
            return {"corpora": "drive", "driveId": self.opts.drive_id,
                    "includeItemsFromAllDrives": True, "supportsAllDrives": True}
        return {"includeItemsFromAllDrives": True, "supportsAllDrives": True}

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
            resp = self.api.run(request("files", "list", dict(kwargs)), "files.list")
            yield from resp.get("files", [])
            token = resp.get("nextPageToken")
            if not token:
                return

    def children(self, folder_id: str) -> Iterator[dict[str, Any]]:
        """Everything directly in `folder_id` that is not trashed."""
        return self._list(f"{quote(folder_id)} in parents and trashed = false")

    def list_folders(self, path: str) -> list[str]:
        """See `Connector.list_folders`: the folders in `path` (one files.list, paged).
        Raises NotFound."""
        folder_id = self.resolve(path, create=False)
        if folder_id is None:
            raise NotFound(f"folder {path} not found")
        q = f"{quote(folder_id)} in parents and trashed = false and mimeType = {quote(FOLDER)}"
        return sorted({str(f.get("name", "")) for f in self._list(q)})

    def named(self, parent_id: str, name: str, *, folders: bool) -> list[dict[str, Any]]:
        """Items called exactly `name` in `parent_id`, oldest first (files or folders only)."""
        kind = "=" if folders else "!="
        q = (f"{quote(parent_id)} in parents and name = {quote(name)} and trashed = false "
             f"and mimeType {kind} {quote(FOLDER)}")
        found = self._list(q, fields=FILE_FIELDS + ",createdTime", order_by="createdTime", page_size=100)
        return [f for f in found if f.get("name") == name]

    def metadata(self, item_id: str, what: str = "files.get") -> dict[str, Any]:
        """The metadata (FILE_FIELDS) of `item_id`. Raises NotFound."""
        got: dict[str, Any] = self.api.run(
            lambda s: s.files().get(fileId=item_id, fields=FILE_FIELDS, supportsAllDrives=True), what
        )
        return got

    def folder_path(self, folder_id: str) -> str:
        """The folder's path, fetching unknown ancestors (once each; they are cached)."""
        tree = self.tree()
        while (missing := tree.unknown_ancestor(folder_id)) is not None:
            self._learn_remote(missing)
        return tree.path_of(folder_id)

    def _learn_remote(self, folder_id: str) -> None:
        try:
            meta = self.metadata(folder_id, "files.get parent")
        except NotFound:
            self.tree().learn(folder_id, folder_id, None)  # invisible to us: treat as a top
            return
        parents = meta.get("parents") or [None]
        self.tree().learn(folder_id, str(meta.get("name", "")), parents[0])

    def below(self, parent_id: str, watch_id: str, recursive: bool) -> bool:
        """Whether a file in `parent_id` lies in the watched folder (or below it if `recursive`)."""
        if parent_id == watch_id:
            return True
        if not recursive:
            return False
        tree = self.tree()
        while (missing := tree.unknown_ancestor(parent_id, stop=watch_id)) is not None:
            self._learn_remote(missing)
        return tree.is_under(parent_id, watch_id)

    def resolve(self, path: str, *, create: bool) -> str | None:
        """Id of the folder at `path` (oldest among duplicates), creating it if asked."""
        tree = self.tree()
        cur = tree.root_id
        for part in split_path(path):
            known = tree.chosen(cur, part)
            if known is None:
                found = self.named(cur, part, folders=True)
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
        same = self.named(parent_id, name, folders=True)
        if same and str(same[0]["id"]) != made_id:
            log.info("gdrive %s: folder %r created twice, keeping the oldest", self.name, name)
            try:  # best effort: an empty duplicate left behind is harmless, lookups take the oldest
                self.api.run(lambda s: s.files().delete(fileId=made_id, supportsAllDrives=True),
                             "files.delete")
            except ConnectorError as err:
                log.info("gdrive %s: could not remove the duplicate folder %r (%s)", self.name, name, err)
            return str(same[0]["id"])
        return made_id

    def remote(self, meta: Mapping[str, Any], folder_path: str | None = None) -> RemoteFile:
        """A file's metadata as a RemoteFile; its folder's path is looked up unless given.

        The revision is md5Checksum (the content), else headRevisionId, else the version.
        """
        parent = (meta.get("parents") or [None])[0]
        if folder_path is None:
            folder_path = self.folder_path(parent) if parent else "/"
        modified = meta.get("modifiedTime")
        return RemoteFile(
            id=str(meta["id"]), path=join_path(folder_path, str(meta["name"])), name=str(meta["name"]),
            size=int(meta.get("size", 0)),
            revision=str(meta.get("md5Checksum") or meta.get("headRevisionId") or f"v{meta.get('version')}"),
            modified=datetime.fromisoformat(modified.replace("Z", "+00:00")) if modified else None,
            parent_id=parent,
        )
