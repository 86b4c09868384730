"""Where users' own local connections may reach: `[providers.local] roots`.

A connection a user makes (web app, `/api/v1/connections`) with provider "local" watches and
files into folders on this server, read and written with the daemon's rights. So the admin
names the folders users may use, and nothing else is reachable:

    [providers.local]
    roots = ["/srv/renamerd/{email}"]

`{email}` stands for the user's e-mail address (lower case, every character but letters,
digits and ``@._+-`` made "_"), so each user gets a folder of their own. A watch or target
folder is allowed when it is one of the user's roots or lies below one, compared after
resolving symbolic links and ".." (a link inside a root that points outside it leads outside,
and is refused). Without `roots`, users cannot make local connections at all; the config
file's `[[connections]]` are the admin's and are not limited.
"""

from __future__ import annotations

import os
import re
from typing import Any

#: the key of `[providers.local]` that lists the allowed folders; not a connector option
ROOTS_KEY = "roots"


def _email_part(email: str) -> str:
    return re.sub(r"[^a-z0-9@._+-]", "_", email.strip().lower()) or "_"


def roots_of(providers: dict[str, dict[str, Any]], email: str) -> list[str]:
    """The user's allowed folders, absolute and resolved; [] when local connections are not
    offered to users (no `[providers.local]`, or no `roots` in it). Reads the filesystem
    (symbolic links) only."""
    raw = providers.get("local", {}).get(ROOTS_KEY) or []
    if isinstance(raw, str):
        raw = [raw]
    out = []
    for root in raw:
        if isinstance(root, str) and root.strip():
            path = root.strip().replace("{email}", _email_part(email))
            if os.path.isabs(path):
                out.append(os.path.realpath(path))
    return out


def inside(path: str, roots: list[str]) -> bool:
    """Whether `path` (absolute) is one of `roots` or lies below one, links resolved."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip("/") + "/") for root in roots)


def problem(providers: dict[str, dict[str, Any]], email: str, watch: str, target: str
            ) -> str | None:
    """Why a user's local connection with these folders is not allowed, for people; None when
    it is. An empty `watch` (folders not chosen yet) or `target` (file beside the watched
    files) is not checked."""
    roots = roots_of(providers, email)
    if not roots:
        return ("provider: 'local' folders are not offered to users on this server (the admin "
                "lists them in [providers.local] roots)")
    for key, path in (("watch", watch), ("target", target)):
        if path and not inside(path, roots):
            return (f"{key}: {path} is outside the folders you may use here "
                    f"({', '.join(roots)})")
    return None


def browsable(path: str, roots: list[str]) -> list[str] | None:
    """For the folder browser: None when `path` may be listed as it is (inside a root); else
    the names of the next folders on the way from `path` down to the roots below it (empty
    when no root lies below it, so nothing outside the roots is shown)."""
    if inside(path, roots):
        return None
    base = os.path.realpath(path).rstrip("/") + "/"
    names = {root[len(base):].split("/", 1)[0] for root in roots if root.startswith(base)}
    return sorted(n for n in names if n)


def connector_options(options: dict[str, Any]) -> dict[str, Any]:
    """`[providers.local]` without the keys that are not the connector's (`roots`)."""
    return {k: v for k, v in options.items() if k != ROOTS_KEY}
