"""Folder paths by id, for the delta feed (whose items carry no ``parentReference.path``).

Fed by the feed itself (folders it reports) and, for a folder not seen yet, one GET of it.
Bounded (LRU, 4,096 folders); a folder that moved or was renamed drops the whole cache, since
every path below it may be stale (it refills with one GET per folder in use).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from renamerd.connectors import join_path

from .graph import GraphClient
from .items import item_path, parent_id

LIMIT = 4096


class FolderPaths:
    """folder id -> (path, parent id, name), least recently used first."""

    def __init__(self, graph: GraphClient, *, limit: int = LIMIT) -> None:
        self.graph = graph
        self.limit = limit
        self._folders: OrderedDict[str, tuple[str, str, str]] = OrderedDict()

    def __contains__(self, folder_id: object) -> bool:
        return folder_id in self._folders

    def cached(self, folder_id: str) -> str | None:
        """The cached path of `folder_id`, or None; no call."""
        entry = self._folders.get(folder_id)
        return entry[0] if entry is not None else None

    def remember(self, item: dict[str, Any], path: str) -> None:
        """Cache a folder's path, keyed by id, with the parent id and name it was derived from."""
        folder_id = str(item["id"])
        self._folders[folder_id] = (path, parent_id(item), str(item.get("name", "")))
        self._folders.move_to_end(folder_id)
        while len(self._folders) > self.limit:
            self._folders.popitem(last=False)

    def forget(self, folder_id: str) -> None:
        """Drop a deleted item (a no-op for anything not cached)."""
        self._folders.pop(folder_id, None)

    def seen(self, item: dict[str, Any]) -> None:
        """A folder came by in the delta feed: keep the cache true.

        Unchanged name and parent: nothing to do. Moved or renamed: every cached path below it
        may be stale, so the cache is dropped.
        """
        folder_id = str(item.get("id", ""))
        parent = parent_id(item)
        name = str(item.get("name", ""))
        cached = self._folders.get(folder_id)
        if cached is not None and cached[1:] == (parent, name):
            return
        if cached is not None:
            self._folders.clear()
        parent_entry = self._folders.get(parent)
        if parent_entry is not None:
            self.remember(item, join_path(parent_entry[0], name))

    def path_of(self, folder_id: str) -> str | None:
        """Path of a folder by id (cached, else one GET), or None if it is gone."""
        if folder_id in self._folders:
            self._folders.move_to_end(folder_id)
            return self._folders[folder_id][0]
        item = self.graph.get(self.graph.item_url(folder_id))
        if item is None or "deleted" in item:
            return None
        path = item_path(item)
        self.remember(item, path)
        return path
