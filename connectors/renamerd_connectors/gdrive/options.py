"""The options of a gdrive connection (`[connections.options]`), validated.

A user's account: `client_id`, `client_secret` (the OAuth client, "Desktop app") and
`refresh_token` (stored by `renamerd connect gdrive`). Or a service account: `service_account_file`
(its JSON key) and optionally `subject` (a user to impersonate, with domain-wide delegation).
`drive_id` selects a shared drive instead of My Drive. `api_endpoint`, `token_uri`, `auth_uri` and
`ca_bundle` move Google's addresses (proxies, tests); `pace_seconds`, `retries`, `max_sleep`,
`timeout` tune the Pacer and HTTP; `headless` and `connect_timeout` shape `renamerd connect`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from renamerd.connectors import ConfigError

GOOGLE_API_ENDPOINT = "https://www.googleapis.com/"
GOOGLE_AUTH_URI = "https://accounts.google.com/o/oauth2/auth"
API_PATH = "drive/v3/"

_KNOWN = {
    "client_id", "client_secret", "refresh_token", "service_account_file", "subject",
    "api_endpoint", "token_uri", "auth_uri", "ca_bundle", "drive_id", "pace_seconds",
    "retries", "max_sleep", "timeout", "headless", "connect_timeout",
}


def _text(options: Mapping[str, Any], key: str) -> str | None:
    value = options.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigError(f"gdrive: option {key} must be a string")
    return value


def _number(options: Mapping[str, Any], key: str, default: float, low: float) -> float:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
        raise ConfigError(f"gdrive: option {key} must be a number >= {low}")
    return float(value)


def _check_files_and_urls(options: Mapping[str, Any]) -> None:
    for key in ("ca_bundle", "service_account_file"):
        path = _text(options, key)
        if path is not None and not Path(path).is_file():
            raise ConfigError(f"gdrive: option {key}: no such file {path}")
    for key in ("api_endpoint", "token_uri", "auth_uri"):
        url = _text(options, key)
        if url is not None and urlsplit(url).scheme not in ("https", "http"):
            raise ConfigError(f"gdrive: option {key} must be an http(s) URL")


@dataclass(frozen=True)
class GDriveOptions:
    """The validated `[connections.options]` of a gdrive connection."""

    client_id: str | None = None
    client_secret: str | None = None
    refresh_token: str | None = None
    service_account_file: str | None = None
    subject: str | None = None
    api_endpoint: str = GOOGLE_API_ENDPOINT
    token_uri: str | None = None
    auth_uri: str = GOOGLE_AUTH_URI
    ca_bundle: str | None = None
    drive_id: str | None = None
    pace_seconds: float = 0.1
    retries: int = 8
    max_sleep: float = 60.0
    timeout: float = 60.0
    headless: bool = False
    connect_timeout: float = 300.0

    @classmethod
    def parse(
        cls, options: Mapping[str, Any], *, for_connect: bool = False, connection: str = "NAME"
    ) -> GDriveOptions:
        """Validate `options`; raises ConfigError naming the bad key. No I/O but file checks."""
        unknown = sorted(set(options) - _KNOWN)
        if unknown:
            raise ConfigError(f"gdrive: unknown option(s) {', '.join(unknown)}")
        _check_files_and_urls(options)
        text = {key: _text(options, key) for key in (
            "client_id", "client_secret", "refresh_token", "service_account_file", "subject",
            "api_endpoint", "token_uri", "auth_uri", "ca_bundle", "drive_id")}
        opts = cls(
            client_id=text["client_id"], client_secret=text["client_secret"],
            refresh_token=text["refresh_token"], service_account_file=text["service_account_file"],
            subject=text["subject"], api_endpoint=text["api_endpoint"] or GOOGLE_API_ENDPOINT,
            token_uri=text["token_uri"], auth_uri=text["auth_uri"] or GOOGLE_AUTH_URI,
            ca_bundle=text["ca_bundle"], drive_id=text["drive_id"],
            pace_seconds=_number(options, "pace_seconds", 0.1, 0.0),
            retries=int(_number(options, "retries", 8, 0)),
            max_sleep=_number(options, "max_sleep", 60.0, 0.0),
            timeout=_number(options, "timeout", 60.0, 1.0),
            headless=bool(options.get("headless", False)),
            connect_timeout=_number(options, "connect_timeout", 300.0, 1.0),
        )
        opts._check_credentials(for_connect, connection)
        return opts

    def _check_credentials(self, for_connect: bool, connection: str) -> None:
        if for_connect:
            if not (self.client_id and self.client_secret):
                raise ConfigError("gdrive: connecting an account needs client_id and client_secret")
        elif self.service_account_file is None:
            missing = [k for k in ("client_id", "client_secret", "refresh_token") if not getattr(self, k)]
            if missing:
                raise ConfigError(
                    f"gdrive: missing option(s) {', '.join(missing)} (or give service_account_file); "
                    f"run `renamerd connect gdrive --connection {connection}` to obtain a refresh token"
                )

    @property
    def base_url(self) -> str:
        """The Drive v3 base address: `api_endpoint` with "drive/v3/" appended unless present."""
        base = self.api_endpoint.rstrip("/") + "/"
        return base if base.endswith("/" + API_PATH) else base + API_PATH
