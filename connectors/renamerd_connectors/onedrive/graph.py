"""One connection's Microsoft Graph calls: bearer tokens, pacing and retries, the drive's URLs.

Every call runs through the connection's `Pacer` (throttling and 5xx are retried there, with
Graph's Retry-After). A 401 drops the access token and tries once more with a fresh one. Tokens
are only ever sent to the Graph origin; downloads follow the 302 of ``/content`` to a
pre-authenticated URL with a second client that sends no Authorization header.
"""

from __future__ import annotations

from typing import Any, BinaryIO
from urllib.parse import quote, urlsplit

import httpx

from renamerd.connectors import (
    AuthError,
    ConnectorError,
    NotFound,
    Pacer,
    TransientError,
    iter_chunks,
)

from .auth import GraphTokens, reconnect_hint
from .errors import raise_for
from .options import OneDriveOptions

REDIRECTS = (301, 302, 303, 307, 308)


def origin(url: str) -> str:
    """scheme://host[:port] of `url`, lower-case."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class GraphClient:
    """HTTP to one drive through Graph: `request` (paced, errors mapped), `get`, `download`."""

    def __init__(self, opts: OneDriveOptions, tokens: GraphTokens, *, name: str) -> None:
        self.name = name
        self.tokens = tokens
        self.drive_url = opts.drive_url
        self.graph_origin = origin(opts.graph)
        self.pacer = Pacer(max_sleep=120.0)  # Graph's Retry-After can reach minutes
        self._verify, self._timeout = opts.verify, opts.timeout
        self._http: httpx.Client | None = None
        self._plain: httpx.Client | None = None

    # ---- addresses

    def item_url(self, item_id: str) -> str:
        return f"{self.drive_url}/items/{quote(item_id, safe='')}"

    def path_url(self, path: str) -> str:
        clean = "/".join(p for p in path.split("/") if p)
        return f"{self.drive_url}/root" if not clean else \
            f"{self.drive_url}/root:/{quote(clean, safe='/')}:"

    # ---- calls

    def _client(self) -> httpx.Client:
        if self._http is None:
            self._http = httpx.Client(verify=self._verify, timeout=self._timeout,
                                      follow_redirects=False, headers={"Accept": "application/json"})
        return self._http

    def request(self, method: str, url: str, *, json_body: Any = None,
                params: dict[str, str] | None = None) -> httpx.Response:
        """One Graph call with retries; returns a 2xx/3xx response. Raises ConnectorError kinds."""
        if origin(url) != self.graph_origin:
            raise ConnectorError(f"onedrive {self.name}: refusing to send a token to {origin(url)}")
        return self.pacer.call(lambda: self.once(method, url, json_body, params),
                               f"onedrive {self.name} {method}")

    def once(self, method: str, url: str, json_body: Any = None,
             params: dict[str, str] | None = None) -> httpx.Response:
        """One call without the Pacer: a 401 refreshes the access token and tries again once."""
        for attempt in (1, 2):
            token = self.tokens.token()
            try:
                resp = self._client().request(method, url, json=json_body, params=params,
                                              headers={"Authorization": f"Bearer {token}"})
            except httpx.TransportError as err:
                raise TransientError(f"onedrive {self.name}: network error ({type(err).__name__})") from err
            if resp.status_code == 401 and attempt == 1:
                self.tokens.invalidate()  # expired or revoked access token: refresh once
                continue
            raise_for(resp, self.name)
            return resp
        raise AuthError(f"onedrive connection {self.name!r}: Graph refuses fresh tokens; "
                        f"{reconnect_hint(self.name)}")

    def get(self, url: str) -> dict[str, Any] | None:
        """The JSON of a GET, or None on 404."""
        try:
            data: dict[str, Any] = self.request("GET", url).json()
            return data
        except NotFound:
            return None

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the file's bytes to `dest` (truncated first); see `OneDriveConnector.download`."""
        def attempt() -> int:
            resp = self.once("GET", f"{self.item_url(file_id)}/content")
            location = resp.headers.get("location")
            if resp.status_code == 200:  # served directly (some proxies do): already in memory
                dest.seek(0)
                dest.truncate()
                return iter_chunks([resp.content], dest, max_bytes)
            if resp.status_code not in REDIRECTS or not location:
                raise ConnectorError(f"onedrive {self.name}: /content answered {resp.status_code} "
                                     f"without a redirect")
            return self._fetch(file_id, location, dest, max_bytes)

        return self.pacer.call(attempt, f"onedrive {self.name} download")

    def _fetch(self, file_id: str, location: str, dest: BinaryIO, max_bytes: int) -> int:
        """Stream the pre-authenticated `location` into `dest`, without our token."""
        if self._plain is None:
            self._plain = httpx.Client(verify=self._verify, timeout=self._timeout,
                                       follow_redirects=True)
        dest.seek(0)
        dest.truncate()
        try:
            with self._plain.stream("GET", location) as stream:
                if stream.status_code in (401, 403, 410):
                    raise TransientError(f"onedrive {self.name}: download URL expired")
                if stream.status_code == 404:
                    raise NotFound(f"onedrive {self.name}: file {file_id} is gone")
                if stream.status_code >= 400:
                    stream.read()
                    raise_for(stream, self.name)
                return iter_chunks(stream.iter_bytes(65536), dest, max_bytes)
        except httpx.TransportError as err:
            raise TransientError(f"onedrive {self.name}: download interrupted "
                                 f"({type(err).__name__})") from err

    def close(self) -> None:
        """Close the HTTP clients and msal's. Safe to call twice."""
        for client in (self._http, self._plain):
            if client is not None:
                client.close()
        self.tokens.close()
        self._http = self._plain = None
