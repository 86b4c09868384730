"""Graph driveItems as the protocol's RemoteFile: paths, revisions, times."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import unquote

from renamerd.connectors import ConnectorError, RemoteFile, join_path


def item_path(item: dict[str, Any]) -> str:
    """Provider path of an item from a non-delta response (parentReference.path is encoded)."""
    if "root" in item:
        return "/"
    ref = (item.get("parentReference") or {}).get("path")
    if ref is None:
        raise ConnectorError("onedrive: item without a parent path")
    parent = unquote(str(ref).split("root:", 1)[1]) if "root:" in str(ref) else ""
    return join_path(parent or "/", str(item.get("name", "")))


def revision(item: dict[str, Any]) -> str:
    """Content identity that survives moves: a content hash; without one (rare), the size and the
    file's own modification time. Not the cTag: business drives leave it out of delta items, so
    a revision from it would differ between `changes` and `stat`."""
    hashes = (item.get("file") or {}).get("hashes") or {}
    for key, tag in (("quickXorHash", "qxh"), ("sha256Hash", "sha256"), ("sha1Hash", "sha1")):
        if hashes.get(key):
            return f"{tag}:{hashes[key]}"
    fs = item.get("fileSystemInfo") or {}
    return f"fs:{item.get('size', 0)}:{fs.get('lastModifiedDateTime', '')}"


def when(value: Any) -> datetime | None:
    """An ISO 8601 time from Graph ("...Z"), or None."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def parent_id(item: dict[str, Any]) -> str:
    """The item's parent id ("" for the root or when Graph leaves it out)."""
    return str((item.get("parentReference") or {}).get("id", ""))


def to_file(item: dict[str, Any], path: str | None = None) -> RemoteFile:
    """A file item as a RemoteFile; `path` when known (delta items carry no parent path)."""
    parent = item.get("parentReference") or {}
    name = str(item.get("name", ""))
    if path is None:
        path = item_path(item)
    return RemoteFile(id=str(item["id"]), path=path, name=name, size=int(item.get("size") or 0),
                      revision=revision(item), modified=when(item.get("lastModifiedDateTime")),
                      parent_id=parent.get("id"))


def folder_as_file(item: dict[str, Any]) -> RemoteFile:
    """A folder as a RemoteFile with revision "folder" (it holds its name as a file does)."""
    parent = (item.get("parentReference") or {}).get("id")
    return RemoteFile(id=str(item["id"]), path=item_path(item), name=str(item["name"]),
                      size=0, revision="folder", parent_id=parent)


def under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or below it, case-insensitively ("" is the root)."""
    p, f = path.casefold(), folder.casefold().rstrip("/")
    return p == f or p.startswith(f + "/") or f == ""
