"""Dropbox's change feed: `files/list_folder` and its cursor, and `list_folder/longpoll`.

A first call lists the watched folder (recursive or not) and pages with `list_folder/continue`
until `has_more` is false; the cursor then returned yields only what changed since. The stored
cursor wraps Dropbox's with the watched path and the recursive flag ({"w", "r", "c"}), so a
changed `watch` starts over instead of continuing another folder's feed. When Dropbox resets a
cursor (route error `reset`), the folder is listed again and `Changes.reset` is set.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import requests
from dropbox import files as dbx_files

from renamerd.connectors import Changes, RemoteFile, TransientError

from .api import DropboxApi, api_path, remote_file
from .errors import Reset

log = logging.getLogger(__name__)

#: the wait Dropbox accepts for a longpoll, in seconds
LONGPOLL_MIN, LONGPOLL_MAX = 30, 480
#: Dropbox adds up to 90 s of jitter to a longpoll's timeout
LONGPOLL_JITTER = 90


def wrap_cursor(path: str, recursive: bool, cursor: str) -> str:
    """The stored cursor: Dropbox's, with the (lower-case) folder and flag it belongs to."""
    return json.dumps({"w": path.lower(), "r": recursive, "c": cursor})


def parse_cursor(cursor: str | None) -> dict[str, Any] | None:
    """The wrapped cursor's {"w", "r", "c"}, or None for none or a foreign one (start over)."""
    if not cursor:
        return None
    try:
        state = json.loads(cursor)
        if isinstance(state, dict) and {"w", "r", "c"} <= set(state):
            return state
    except ValueError:
        pass
    return None  # not ours (an older format): start over


class DropboxFeed:
    """The changes of one connection (and the longpoll's `backoff`, which it must honour)."""

    def __init__(self, api: DropboxApi) -> None:
        self.api = api
        self._longpoll_not_before = 0.0

    def changes(self, watch: str, cursor: str | None, *, recursive: bool) -> Changes:
        """See `Connector.changes`; one `continue` call per 2,000 entries, one for an idle poll."""
        path = api_path(watch)
        state = parse_cursor(cursor)
        reset = False
        if state is not None and (state["w"] != path.lower() or state["r"] != recursive):
            state, reset = None, True  # the stored cursor follows another folder
        for _attempt in range(3):
            try:
                if state is None:
                    found, latest = self._list(path, recursive)
                else:
                    found, latest = self._continue(state["c"])
                wrapped = wrap_cursor(path, recursive, latest)
                return Changes(files=list(found.values()), cursor=wrapped, reset=reset)
            except Reset:
                log.info("dropbox %s: cursor reset, listing %s again", self.api.name, watch)
                state, reset = None, True
        raise TransientError(f"changes: Dropbox keeps resetting the cursor of {watch}")

    def _list(self, path: str, recursive: bool) -> tuple[dict[str, RemoteFile], str]:
        def first() -> Any:
            return self.api.dbx.files_list_folder(path, recursive=recursive, include_deleted=False)

        result = self.api.call("list_folder", first)
        found: dict[str, RemoteFile] = {}
        _take(result.entries, found)
        if result.has_more:
            more, cursor = self._continue(result.cursor)
            found.update(more)
            return found, cursor
        return found, result.cursor

    def _continue(self, cursor: str) -> tuple[dict[str, RemoteFile], str]:
        found: dict[str, RemoteFile] = {}
        while True:
            result = self.api.call(
                "list_folder/continue",
                lambda c=cursor: self.api.dbx.files_list_folder_continue(c),  # type: ignore[misc]
            )
            _take(result.entries, found)
            cursor = result.cursor
            if not result.has_more:
                return found, cursor

    def latest_cursor(self, watch: str, *, recursive: bool) -> str:
        """A cursor for "from now on" without listing; one call. NotFound if not a folder."""
        path = api_path(watch)
        result = self.api.call(
            "list_folder/get_latest_cursor",
            lambda: self.api.dbx.files_list_folder_get_latest_cursor(path, recursive=recursive),
        )
        return wrap_cursor(path, recursive, result.cursor)

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """See `DropboxConnector.wait_for_changes`: a longpoll, after Dropbox's `backoff`."""
        state = parse_cursor(cursor)
        if state is None:
            return True
        deadline = time.monotonic() + max(timeout_s, 0.0)
        pause = self._longpoll_not_before - time.monotonic()
        if pause > 0:
            time.sleep(min(pause, max(timeout_s, 0.0)))
            if time.monotonic() >= deadline:
                return False
        try:
            result = self._longpoll(state["c"], max(deadline - time.monotonic(), 0.1))
        except Reset:
            return True
        if result is None:
            return False
        if result.backoff:
            self._longpoll_not_before = time.monotonic() + result.backoff
        return bool(result.changes)

    def _longpoll(self, cursor: str, remaining: float) -> Any | None:
        """One `list_folder/longpoll` for up to `remaining` seconds; None when our own wait,
        shorter than Dropbox's least, ended first. No authentication and no API quota."""
        wire = int(min(max(remaining, LONGPOLL_MIN), LONGPOLL_MAX))
        client_timeout = remaining if remaining < LONGPOLL_MIN else wire + LONGPOLL_JITTER
        arg = dbx_files.ListFolderLongpollArg(cursor, wire)

        def poll() -> Any:
            try:
                return self.api.dbx.request(
                    dbx_files.list_folder_longpoll, "files", arg, None, timeout=client_timeout
                )
            except requests.exceptions.ReadTimeout:
                if remaining < LONGPOLL_MIN:
                    return None  # our own short wait ended first
                raise

        return self.api.call("list_folder/longpoll", poll)


def _take(entries: list[Any], found: dict[str, RemoteFile]) -> None:
    """Fold one page of entries into `found` (by id): files added, deletions dropped."""
    for md in entries:
        if isinstance(md, dbx_files.FileMetadata) and md.is_downloadable is not False:
            found[md.id] = remote_file(md)
        elif isinstance(md, dbx_files.DeletedMetadata):
            for key in [k for k, f in found.items() if f.path.lower() == md.path_lower]:
                del found[key]
