"""Waiting for news in a local folder tree with Linux inotify (the `inotify_simple` library).

`FolderWatch(root, recursive, ignored).wait(timeout_s)` blocks until a file below `root` was
written and closed, renamed into it or touched, or `timeout_s` pass. A file being created does
not wake it (its writer has not finished: a look then would see it half written); nor do files
leaving the folder (deleted, moved out: what the daemon itself does to every document), nor
names the connector ignores (``*.part`` and other temporary files: their rename to the final
name does). New subfolders are watched as they appear when `recursive`. A burst of events (a
scanner's batch) is read as one: the wait returns 20 ms after the first.

inotify sees what this machine's kernel does to the folder, not what another machine does to a
network mount (NFS, SMB): callers keep a periodic full look as a safety net (the local
connector wakes at every timeout too).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

log = logging.getLogger(__name__)

try:
    from inotify_simple import INotify
    from inotify_simple import flags as F
except ImportError:  # not Linux, or the package is missing: callers fall back to timed looks
    INotify = None  # type: ignore[assignment,misc]

#: what is watched: files finished or arriving, new folders, the watched folder going away
_MASK = ("CREATE", "CLOSE_WRITE", "MOVED_TO", "ATTRIB", "DELETE_SELF", "MOVE_SELF")
#: milliseconds to gather the rest of a burst after its first event
_BURST_MS = 20


class WatchUnavailable(Exception):
    """inotify cannot watch this folder here (no inotify, no watches left, no permission)."""


class FolderWatch:
    """inotify watches on `root` (and, when `recursive`, every folder below it).

    Raises WatchUnavailable from the constructor when inotify cannot be used; the caller then
    looks at the folder on a timer instead. Not thread-safe: one poller uses it.
    """

    def __init__(self, root: str, recursive: bool, ignored: Callable[[str], bool]) -> None:
        if INotify is None:
            raise WatchUnavailable("inotify is not available here")
        self.root, self.recursive, self.ignored = root, recursive, ignored
        self._mask = 0
        for name in _MASK:
            self._mask |= getattr(F, name)
        try:
            self._inotify = INotify()
        except OSError as err:
            raise WatchUnavailable(f"inotify: {err.strerror}") from err
        self._folders: dict[int, str] = {}
        try:
            self._add_tree(root)
        except OSError as err:
            self.close()
            raise WatchUnavailable(f"cannot watch {root}: {err.strerror}") from err

    def _add_tree(self, folder: str) -> None:
        self._folders[self._inotify.add_watch(folder, self._mask)] = folder
        if not self.recursive:
            return
        try:
            with os.scandir(folder) as it:
                subfolders = [e.path for e in it if e.is_dir(follow_symlinks=False)
                              and not self.ignored(e.name)]
        except OSError:
            return
        for sub in subfolders:
            try:
                self._add_tree(sub)
            except FileNotFoundError:
                continue  # removed while we looked

    def wait(self, timeout_s: float) -> bool:
        """Block until news below the root or `timeout_s`; True on news, False on a quiet
        timeout. Events that came since the last call count (the kernel keeps them)."""
        events = self._inotify.read(timeout=max(0, int(timeout_s * 1000)), read_delay=_BURST_MS)
        news = False
        for event in events:
            if event.mask & F.Q_OVERFLOW:
                return True  # events were lost: look at everything
            if event.mask & F.ISDIR and event.mask & (F.CREATE | F.MOVED_TO) and self.recursive:
                folder = self._folders.get(event.wd)
                if folder is not None and not self.ignored(event.name):
                    try:
                        self._add_tree(os.path.join(folder, event.name))
                    except OSError:
                        log.debug("cannot watch new folder %s", event.name, exc_info=True)
                    news = True
                continue
            if event.mask & (F.DELETE_SELF | F.MOVE_SELF):
                news = True
                continue
            if event.mask & F.CREATE:
                continue  # a file being written: its CLOSE_WRITE follows
            if event.name and not self.ignored(event.name):
                news = True
        return news

    def close(self) -> None:
        """Release the inotify instance. Safe to repeat."""
        inotify = getattr(self, "_inotify", None)
        if inotify is not None:
            inotify.close()
            self._inotify = None  # type: ignore[assignment]
