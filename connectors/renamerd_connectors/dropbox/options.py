"""The options of a dropbox connection (`[connections.options]`), validated.

`app_key` (required), `app_secret` (optional: tokens from the PKCE flow of `renamerd connect
dropbox` refresh without it), `refresh_token` (required to run; usually stored by `renamerd
connect`), `endpoint` (one https base address standing in for the api, content and notify hosts
and the token endpoint: proxies and tests), `ca_bundle` (a PEM file of CAs to trust instead of the
system ones), `timeout` (seconds per request, default 100).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from renamerd.connectors import ConfigError

KNOWN = frozenset({"app_key", "app_secret", "refresh_token", "endpoint", "ca_bundle", "timeout"})


def split_endpoint(endpoint: str) -> str:
    """'https://host:port/prefix' -> 'host:port/prefix' (the SDK builds https://{host}/2/...).

    Raises ConfigError for anything but an https address.
    """
    parts = urlsplit(endpoint)
    if parts.scheme != "https" or not parts.netloc:
        raise ConfigError(
            f"option endpoint: {endpoint!r} must be an https:// address (the Dropbox SDK "
            "speaks https only)"
        )
    return parts.netloc + parts.path.rstrip("/")


@dataclass(frozen=True)
class DropboxOptions:
    """A connection's options, checked: every string stripped, `endpoint` split for the SDK."""

    app_key: str
    app_secret: str | None
    #: "" when not needed (the connect flow has none yet)
    refresh_token: str
    #: "host:port/prefix" standing in for every Dropbox host, or None for Dropbox itself
    host: str | None
    ca_bundle: str | None
    timeout: float

    @classmethod
    def parse(cls, options: dict[str, Any], *, need_token: bool) -> DropboxOptions:
        """Validate `options`; `need_token` makes `refresh_token` required.

        Raises ConfigError naming the bad key. No I/O but a check that `ca_bundle` exists.
        """
        unknown = sorted(set(options) - KNOWN)
        if unknown:
            raise ConfigError(f"unknown dropbox option(s): {', '.join(unknown)}")
        required = ["app_key", "refresh_token"] if need_token else ["app_key"]
        for key in required:
            if not isinstance(options.get(key), str) or not options[key].strip():
                hint = " (run: renamerd connect dropbox --connection NAME)" * (key == "refresh_token")
                raise ConfigError(f"dropbox option {key} is required{hint}")
        for key in ("app_secret", "endpoint", "ca_bundle"):
            if options.get(key) is not None and not isinstance(options[key], str):
                raise ConfigError(f"dropbox option {key} must be a string")
        ca = options.get("ca_bundle")
        if ca and not os.path.isfile(ca):
            raise ConfigError(f"dropbox option ca_bundle: no such file {ca!r}")
        timeout = options.get("timeout", 100)
        if not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError("dropbox option timeout must be a positive number of seconds")
        return cls(
            app_key=options["app_key"].strip(),
            app_secret=(options.get("app_secret") or "").strip() or None,
            refresh_token=(options.get("refresh_token") or "").strip(),
            host=split_endpoint(options["endpoint"]) if options.get("endpoint") else None,
            ca_bundle=ca or None,
            timeout=float(timeout),
        )
