"""What changed in a local folder: a listing compared with the last one, files held back until
they settle.

The cursor is JSON: the watched folder, the recursive flag and, per file below it (by relative
path), its size, mtime and how many looks in a row it has been stable for. It grows with the
number of files sitting in the watched folder, not with history. A file is reported once its
size and mtime held still for ``stable_checks`` looks, and again whenever they change (and
settle again).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from typing import Any

from renamerd.connectors import ConnectorError, NotFound, RemoteFile

from .paths import remote_of

log = logging.getLogger(__name__)

#: per relative path: [size, mtime_ns, looks stable]
FileStates = dict[str, list[int]]


def scan(watch: str, recursive: bool, ignored: Callable[[str], bool], connection: str
         ) -> dict[str, tuple[int, int]]:
    """{path: (size, mtime_ns)} of the regular files below `watch` whose names are not ignored.

    Raises NotFound if `watch` is missing or not a folder, ConnectorError if it cannot be read;
    unreadable subfolders are skipped with a warning.
    """
    found: dict[str, tuple[int, int]] = {}
    stack = [watch]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except FileNotFoundError:
            if folder == watch:
                raise NotFound(f"folder {watch} not found") from None
            continue
        except NotADirectoryError:
            raise NotFound(f"{watch} is not a folder") from None
        except PermissionError as err:
            if folder == watch:
                raise ConnectorError(f"cannot read {watch}: permission denied") from err
            log.warning("local %s: skipping unreadable folder %s", connection, folder)
            continue
        for entry in entries:
            if ignored(entry.name):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if recursive:
                        stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found[entry.path] = (st.st_size, st.st_mtime_ns)
            except FileNotFoundError:
                continue  # vanished while we looked
    return found


def settle(watch: str, scanned: dict[str, tuple[int, int]], state: FileStates,
           moved: dict[str, tuple[int, int]], stable_checks: int
           ) -> tuple[list[RemoteFile], FileStates]:
    """The files to report and the new per-file states, from this look (`scanned`) and the last
    (`state`). Files the connection moved itself (`moved`, still unchanged) are never reported."""
    new_state: FileStates = {}
    files: list[RemoteFile] = []
    prefix = len(watch.rstrip("/")) + 1
    for path, (size, mtime_ns) in sorted(scanned.items()):
        rel = path[prefix:]
        key = [size, mtime_ns]
        if moved.get(path) == (size, mtime_ns):
            new_state[rel] = [*key, stable_checks]
            continue
        old = state.get(rel)
        looks = old[2] + 1 if old is not None and old[:2] == key else 1
        if looks >= stable_checks:
            if old is None or old[:2] != key or old[2] < stable_checks:
                files.append(remote_of(path, size, mtime_ns))
            looks = stable_checks
        new_state[rel] = [*key, looks]
    return files, new_state


def dump_cursor(watch: str, recursive: bool, state: FileStates) -> str:
    return json.dumps(
        {"v": 1, "w": watch, "r": recursive, "f": state}, separators=(",", ":"), ensure_ascii=False,
    )


def load_cursor(cursor: str, watch: str, recursive: bool) -> FileStates | None:
    """The per-file states of `cursor` if it is ours and for this folder and flag, else None."""
    try:
        data = json.loads(cursor)
        if data.get("v") == 1 and data["w"] == watch and data["r"] == recursive:
            state = {str(k): [int(x) for x in v] for k, v in data["f"].items()}
            if all(len(v) == 3 for v in state.values()):
                return state
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def cursor_folder(cursor: str) -> tuple[str, bool, dict[str, Any]] | None:
    """(watch, recursive, file states) of a cursor, without checks, or None if unreadable."""
    try:
        data = json.loads(cursor)
        return str(data["w"]), bool(data["r"]), data["f"]
    except (ValueError, KeyError, TypeError):
        return None
