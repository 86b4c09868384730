"""The Dropbox SDK client, pointed at one address and one set of trusted CAs.

The SDK talks to three hosts (api, content, notify) and refreshes the access token at the api
host; with the `endpoint` option all four go to one address (a proxy, or the test emulator).
Its own retries are off: every retry is paced and counted by the connection's `Pacer`.
"""

from __future__ import annotations

from typing import Any

import dropbox
import requests
from dropbox.session import API_HOST, HOST_API, HOST_CONTENT, HOST_NOTIFY
from requests.adapters import HTTPAdapter

from .options import DropboxOptions


class CaSession(requests.Session):
    """A requests session whose `ca_bundle` wins over REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE.

    (requests lets those variables override `Session.verify`; proxies from the environment
    still apply.)
    """

    def __init__(self, ca_bundle: str | None) -> None:
        super().__init__()
        self.ca_bundle = ca_bundle
        self.verify = ca_bundle or True
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=8)
        self.mount("https://", adapter)

    def merge_environment_settings(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        settings: dict[str, Any] = super().merge_environment_settings(*args, **kwargs)
        if self.ca_bundle:
            settings["verify"] = self.ca_bundle
        return settings


class DropboxClient(dropbox.Dropbox):  # type: ignore[misc]
    """The SDK client with every host, the token endpoint included, at one address.

    The SDK refreshes the access token itself shortly before it expires (`refresh_access_token`,
    a POST of the refresh token to the api host's /oauth2/token).
    """

    def __init__(self, *, host: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._token_host = host or API_HOST
        if host:
            self._host_map = {HOST_API: host, HOST_CONTENT: host, HOST_NOTIFY: host}

    def refresh_access_token(self, host: str | None = None, scope: Any = None) -> None:
        super().refresh_access_token(host=host or self._token_host, scope=scope)


def open_client(opts: DropboxOptions) -> DropboxClient:
    """A client for `opts` with the SDK's retries off. No network I/O until the first call."""
    return DropboxClient(
        host=opts.host,
        oauth2_refresh_token=opts.refresh_token,
        app_key=opts.app_key,
        app_secret=opts.app_secret,
        session=CaSession(opts.ca_bundle),
        max_retries_on_error=0,
        max_retries_on_rate_limit=0,
        timeout=opts.timeout,
        user_agent="renamerd",
    )
