"""The options of a onedrive connection (`[connections.options]`), validated.

`client_id` (required), `client_secret` (optional: a confidential app), `refresh_token`
(required; stored by `renamerd connect onedrive`), `tenant` (default "common"; "consumers",
"organizations" or a tenant id), `authority` (the sign-in service, default
login.microsoftonline.com: national clouds, proxies, tests), `graph_endpoint` (default
graph.microsoft.com/v1.0), `drive_id` (a SharePoint library or another drive; default the
user's own), `scopes` (default Files.ReadWrite.All), `ca_bundle`, `timeout` (seconds, default 60).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from renamerd.connectors import ConfigError

GRAPH_ENDPOINT = "https://graph.microsoft.com/v1.0"
LOGIN_ENDPOINT = "https://login.microsoftonline.com"
DEFAULT_SCOPES = ("Files.ReadWrite.All",)
OPTIONS = frozenset({
    "client_id", "client_secret", "tenant", "refresh_token", "authority", "graph_endpoint",
    "ca_bundle", "drive_id", "scopes", "timeout",
})


def text_option(options: dict[str, Any], key: str, name: str, *, required: bool = False) -> str:
    """A string option ("" when absent). Raises ConfigError when required and missing, or when
    the value is not a string."""
    value = options.get(key)
    if value is None or value == "":
        if required:
            raise ConfigError(f"onedrive connection {name!r}: option {key} is required")
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"onedrive connection {name!r}: option {key} must be a string")
    return value


def scopes_option(options: dict[str, Any], name: str) -> list[str]:
    """`scopes` as a list (a space-separated string is split). Raises ConfigError."""
    scopes = options.get("scopes", list(DEFAULT_SCOPES))
    if isinstance(scopes, str):
        scopes = scopes.split()
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise ConfigError(f"onedrive connection {name!r}: scopes must be a list of strings")
    return scopes


def authority_url(options: dict[str, Any], name: str) -> str:
    """`authority` as given when it names a tenant, else ``{authority or login}/{tenant}``."""
    tenant = text_option(options, "tenant", name) or "common"
    authority = (text_option(options, "authority", name) or LOGIN_ENDPOINT).rstrip("/")
    parts = urlsplit(authority)
    if parts.scheme != "https" or not parts.netloc:
        raise ConfigError(f"onedrive connection {name!r}: authority must be an https URL")
    return authority if parts.path.strip("/") else f"{authority}/{quote(tenant, safe='')}"


def verify_option(options: dict[str, Any], name: str) -> str | bool:
    """`ca_bundle` (a PEM file that must exist), or True for the system's CAs."""
    verify: str | bool = text_option(options, "ca_bundle", name) or True
    if isinstance(verify, str) and not os.path.isfile(verify):
        raise ConfigError(f"onedrive connection {name!r}: ca_bundle {verify} not found")
    return verify


@dataclass(frozen=True)
class OneDriveOptions:
    """A connection's checked options."""

    client_id: str
    client_secret: str | None
    refresh_token: str
    #: the sign-in authority, tenant included (`authority_url`)
    authority: str
    #: the Graph base address, no trailing slash
    graph: str
    #: the drive's address: {graph}/drives/{drive_id}, or {graph}/me/drive
    drive_url: str
    verify: str | bool
    timeout: float
    scopes: list[str]

    @classmethod
    def parse(cls, options: dict[str, Any], name: str) -> OneDriveOptions:
        """Validate the options of connection `name`. Raises ConfigError naming the bad key;
        no I/O but a check that `ca_bundle` exists."""
        unknown = set(options) - OPTIONS
        if unknown:
            raise ConfigError(f"onedrive connection {name!r}: unknown options {sorted(unknown)}")
        client_id = text_option(options, "client_id", name, required=True)
        refresh_token = text_option(options, "refresh_token", name)
        if not refresh_token:
            raise ConfigError(f"onedrive connection {name!r} has no refresh_token: run "
                              f"`renamerd connect onedrive --connection {name}`")
        authority = authority_url(options, name)
        graph = (text_option(options, "graph_endpoint", name) or GRAPH_ENDPOINT).rstrip("/")
        if urlsplit(graph).scheme not in ("https", "http") or not urlsplit(graph).netloc:
            raise ConfigError(f"onedrive connection {name!r}: graph_endpoint must be an https URL")
        verify = verify_option(options, name)
        drive_id = text_option(options, "drive_id", name)
        drive_url = f"{graph}/drives/{quote(drive_id, safe='')}" if drive_id else f"{graph}/me/drive"
        try:
            timeout = float(options.get("timeout", 60))
        except (TypeError, ValueError) as err:
            raise ConfigError(f"onedrive connection {name!r}: timeout must be a number") from err
        return cls(
            client_id=client_id, client_secret=text_option(options, "client_secret", name) or None,
            refresh_token=refresh_token, authority=authority, graph=graph, drive_url=drive_url,
            verify=verify, timeout=timeout, scopes=scopes_option(options, name),
        )
