"""The options of a local connection (`[connections.options]`), all optional.

- ``stable_checks`` (int, default 2): a file is reported once its size and mtime were the same
  on this many looks in a row (scanners and network copies write slowly). 1 reports at once.
- ``ignore`` (list of glob patterns): names skipped besides the built-in ones: dotfiles,
  ``~$*`` (office lock files), ``*.part``, ``*.crdownload``, ``*.tmp``.
- ``inotify`` (bool, default true): on Linux, wait for files with inotify
  (`wait_for_changes`): a new file is picked up as soon as it is written instead of at the
  next poll, and an idle folder is not listed between polls. The daemon still looks at the
  whole folder every ``poll_seconds`` (at most 30 s), which catches what inotify cannot see
  (changes made by another machine to a network mount). False: look every ``poll_seconds``.
- ``settle_seconds`` (number, default 2): with inotify, how long a file seen but not yet
  settled (``stable_checks`` above 1) waits before the next look.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any

from renamerd.connectors import ConfigError

DEFAULT_IGNORE = (".*", "~$*", "*.part", "*.crdownload", "*.tmp")
KNOWN = frozenset({"stable_checks", "ignore", "settle_seconds", "inotify"})


def _number(options: dict[str, Any], key: str, default: float, *, least: float) -> float:
    """Option `key` as a number of at least `least`; ConfigError otherwise."""
    try:
        value = float(options.get(key, default))
    except (TypeError, ValueError) as err:
        raise ConfigError(f"local: {key} must be a number: {err}") from err
    if value < least:
        raise ConfigError(f"local: {key} must be at least {least:g}")
    return value


@dataclass(frozen=True)
class LocalOptions:
    """A connection's checked options; `ignore` holds the built-in patterns too."""

    stable_checks: int
    ignore: tuple[str, ...]
    settle_s: float
    inotify: bool

    @classmethod
    def parse(cls, options: dict[str, Any]) -> LocalOptions:
        """Validate `options`; raises ConfigError naming the bad key. No I/O."""
        stable_checks = int(_number(options, "stable_checks", 2, least=1))
        extra = options.get("ignore", [])
        if isinstance(extra, str) or not all(isinstance(x, str) for x in extra):
            raise ConfigError("local: ignore must be a list of glob patterns")
        settle_s = _number(options, "settle_seconds", 2.0, least=0)
        unknown = set(options) - KNOWN
        if unknown:
            raise ConfigError(f"local: unknown option(s) {', '.join(sorted(unknown))}")
        return cls(stable_checks=stable_checks, ignore=DEFAULT_IGNORE + tuple(extra),
                   settle_s=settle_s, inotify=bool(options.get("inotify", True)))

    def ignore_pattern(self) -> re.Pattern[str]:
        """One regular expression matching every ignored name."""
        return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in self.ignore))
