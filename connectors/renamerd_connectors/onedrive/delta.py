"""OneDrive's change feed: Graph delta, its deltaLink as the cursor.

On a personal drive the feed is the delta of the watched folder; on a business drive or
SharePoint library (where delta is only offered on the root) it is the delta of the root,
filtered to the watched folder. The cursor is the deltaLink with the drive and folder ids it
belongs to; another drive, a replaced watch folder or an unreadable cursor starts over with
`Changes.reset`. A 410 Gone (Graph dropped the token) restarts the enumeration once.
"""

from __future__ import annotations

import json
from typing import Any

from renamerd.connectors import Changes, NotFound, RemoteFile, TransientError, join_path

from .errors import Resync
from .folders import FolderPaths
from .graph import GraphClient, origin
from .items import item_path, parent_id, to_file, under

CURSOR_VERSION = 1


def parse_cursor(cursor: str | None) -> dict[str, Any] | None:
    """The cursor's {"v", "drive", "watch", "link"}, or None for none or a foreign one."""
    if not cursor:
        return None
    try:
        state = json.loads(cursor)
    except ValueError:
        return None
    if not isinstance(state, dict) or state.get("v") != CURSOR_VERSION:
        return None
    return state


def make_cursor(drive_id: str, watch_id: str, delta_link: str) -> str:
    return json.dumps({"v": CURSOR_VERSION, "drive": drive_id, "watch": watch_id,
                       "link": delta_link}, separators=(",", ":"))


class DeltaFeed:
    """The changes of one connection, with the drive's identity and the folder path cache."""

    def __init__(self, graph: GraphClient) -> None:
        self.graph = graph
        self.name = graph.name
        self.folders = FolderPaths(graph)
        self._drive: dict[str, Any] | None = None
        self._watch_ids: dict[str, str] = {}

    def changes(self, watch: str, cursor: str | None, *, recursive: bool) -> Changes:
        """See `OneDriveConnector.changes`."""
        drive = self._drive_info()
        watch_id, watch_path = self._watch(watch)
        business = drive["driveType"] != "personal"
        scope_url = (f"{self.graph.drive_url}/root/delta" if business
                     else f"{self.graph.item_url(watch_id)}/delta")
        state = parse_cursor(cursor)
        reset = False
        url = scope_url
        if state is not None and state.get("drive") == drive["id"] and state.get("watch") == watch_id \
                and origin(str(state.get("link", ""))) == self.graph.graph_origin:
            url = str(state["link"])
        elif cursor is not None:
            reset = True  # unreadable cursor, another drive, or the watch folder was replaced
        try:
            found, delta_link, restarted = self._drain(url, scope_url, watch_id, watch_path, recursive)
        except NotFound:
            self._watch_ids.pop(watch.casefold(), None)
            raise
        return Changes(files=list(found.values()), cursor=make_cursor(drive["id"], watch_id, delta_link),
                       reset=reset or restarted)

    def _drain(self, url: str, scope_url: str, watch_id: str, watch_path: str, recursive: bool
               ) -> tuple[dict[str, RemoteFile], str, bool]:
        """Page through the feed from `url`: (files by id, the deltaLink, whether it restarted)."""
        found: dict[str, RemoteFile] = {}
        restarted = False
        while True:
            try:
                page = self.graph.request("GET", url).json()
            except Resync:
                if restarted:
                    raise TransientError(f"onedrive {self.name}: delta keeps asking for a resync") from None
                restarted, url = True, scope_url
                found.clear()
                continue
            for item in page.get("value", []):
                self._take(item, found, watch_id=watch_id, watch_path=watch_path, recursive=recursive)
            next_link = page.get("@odata.nextLink")
            if next_link:
                url = str(next_link)
                continue
            return found, str(page.get("@odata.deltaLink", "")), restarted

    def _drive_info(self) -> dict[str, Any]:
        """The drive's id and type (personal, business, documentLibrary); one GET, once."""
        if self._drive is None:
            info = self.graph.get(self.graph.drive_url)
            if info is None:
                raise NotFound(f"onedrive {self.name}: the drive does not exist")
            self._drive = {"id": info.get("id", ""), "driveType": info.get("driveType", "personal")}
        return self._drive

    def _watch(self, watch: str) -> tuple[str, str]:
        """(id, path) of the watched folder; cached while the folder cache vouches for it."""
        key = watch.casefold()
        cached_id = self._watch_ids.get(key)
        if cached_id is not None:
            cached_path = self.folders.cached(cached_id)
            if cached_path is not None:
                return cached_id, cached_path
        item = self.graph.get(self.graph.path_url(watch))
        if item is None or "folder" not in item and "root" not in item:
            raise NotFound(f"onedrive {self.name}: watch folder {watch!r} does not exist")
        path = item_path(item)
        self.folders.remember(item, path)
        self._watch_ids[key] = str(item["id"])
        return str(item["id"]), path

    def _take(self, item: dict[str, Any], found: dict[str, RemoteFile], *, watch_id: str,
              watch_path: str, recursive: bool) -> None:
        """Fold one delta item into `found`: files below the watch added, deletions dropped."""
        item_id = str(item.get("id", ""))
        if "deleted" in item:
            found.pop(item_id, None)
            self.folders.forget(item_id)
            return
        parent = parent_id(item)
        if "file" not in item:  # folder, root, package (OneNote notebook): no documents
            if "folder" in item and "root" not in item and item_id != watch_id:
                self.folders.seen(item)
            return
        if parent == watch_id:
            parent_path = watch_path
        elif not recursive:
            return
        else:
            found_path = self.folders.path_of(parent) if parent else None
            if found_path is None or not under(found_path, watch_path):
                return
            parent_path = found_path
        found.pop(item_id, None)  # the last occurrence wins, keep feed order
        found[item_id] = to_file(item, join_path(parent_path, str(item.get("name"))))
